/** External JWT signers: name, issuer, audience, enabled, when their certificate ends; paged by the API. */
import { DateTime, YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface Signer {
  id: string;
  name: string;
  issuer: string;
  audience: string | null;
  enabled: boolean;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  claimsProperty: string;
  useExternalId: boolean;
  externalAuthUrl: string | null;
  clientId: string | null;
  notAfter: string | null;
}

export function SignerList() {
  return (
    <ListScreen<Signer>
      title={t.signers.title}
      collection="/external-jwt-signers"
      actions={<Link href="/console/external-jwt-signers/new">{t.signers.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/external-jwt-signers/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'issuer', label: t.signers.issuer },
        { key: 'audience', label: t.signers.audience },
        { key: 'enabled', label: t.signers.enabled, render: (row) => <YesNo value={row.enabled} /> },
        { key: 'notAfter', label: t.signers.notAfter, render: (row) => <DateTime value={row.notAfter} /> },
      ]}
    />
  );
}
