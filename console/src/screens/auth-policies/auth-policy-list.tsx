/** Auth policies: which logins each allows and whether TOTP is required; paged by the API. */
import { YesNo } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

export interface AuthPolicy {
  id: string;
  name: string;
  primary: {
    cert: { allowed: boolean; allowExpiredCerts: boolean };
    updb: { allowed: boolean; minPasswordLength: number; maxAttempts: number; lockoutDurationMinutes: number };
    extJwt: { allowed: boolean };
  };
  secondary: { requireTotp: boolean };
}

export function AuthPolicyList() {
  return (
    <ListScreen<AuthPolicy>
      title={t.authPolicies.title}
      collection="/auth-policies"
      columns={[
        { key: 'name', label: t.common.name, sort: 'name', render: (row) => <Link href={`/console/auth-policies/${encodeURIComponent(row.id)}`}>{row.name}</Link> },
        { key: 'primary', label: t.authPolicies.primary, render: (row) => t.authPolicies.methods(row.primary.cert.allowed, row.primary.updb.allowed, row.primary.extJwt.allowed) },
        { key: 'requireTotp', label: t.authPolicies.requireTotp, render: (row) => <YesNo value={row.secondary.requireTotp} /> },
      ]}
    />
  );
}
