/** Third-party certificate authorities: name, verified or not, what their certificates may do; paged by the API. */
import { YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface Ca {
  id: string;
  name: string;
  fingerprint: string;
  isVerified: boolean;
  verificationToken: string;
  isAuthEnabled: boolean;
  isAutoCaEnrollmentEnabled: boolean;
  isOttCaEnrollmentEnabled: boolean;
  identityRoles: string[];
  identityNameFormat: string;
  createdAt: string;
}

export function CaList() {
  return (
    <ListScreen<Ca>
      title={t.cas.title}
      collection="/cas"
      actions={<Link href="/console/cas/new">{t.cas.create}</Link>}
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/cas/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'isVerified', label: t.cas.verified, sort: 'isVerified', render: (row) => <YesNo value={row.isVerified} /> },
        { key: 'isAuthEnabled', label: t.cas.authEnabled, render: (row) => <YesNo value={row.isAuthEnabled} /> },
        { key: 'isAutoCaEnrollmentEnabled', label: t.cas.autoEnrollment, render: (row) => <YesNo value={row.isAutoCaEnrollmentEnabled} /> },
        { key: 'fingerprint', label: t.cas.fingerprint },
      ]}
    />
  );
}
