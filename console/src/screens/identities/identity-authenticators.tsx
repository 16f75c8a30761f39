/**
 * An identity's authenticators (password, certificate), listed and paged by the API. Each can be deleted; a password
 * can be reset: the API has no "set a password" for administrators, so the reset re-enrolls the password
 * authenticator (one request: the API deletes it and issues a password enrollment for the same username together),
 * and the person uses the enrollment's JWT to choose a new password.
 */
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/detail';
import { DateTime } from '../../components/fields';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';
import { enrollmentExpiry } from './identity-enrollment';

interface AuthenticatorRow {
  id: string;
  method: string;
  username?: string | null;
  certFingerprint?: string | null;
  createdAt: string;
}

async function resetPassword(row: AuthenticatorRow) {
  await api('POST', `/authenticators/${encodeURIComponent(row.id)}/re-enroll`, { expiresAt: enrollmentExpiry() });
}

export function IdentityAuthenticators(props: { identityId: string; reloadKey: unknown; changed: () => void }) {
  return (
    <ListScreen<AuthenticatorRow>
      reloadKey={props.reloadKey}
      title={t.identities.authenticators}
      collection={`/identities/${encodeURIComponent(props.identityId)}/authenticators`}
      embedded
      defaultSort="createdAt asc"
      columns={[
        { key: 'method', label: t.identities.method, render: (row) => row.method },
        { key: 'detail', label: t.identities.credential, render: (row) => row.username ?? row.certFingerprint ?? t.common.none },
        { key: 'createdAt', label: t.common.createdAt, render: (row) => <DateTime value={row.createdAt} /> },
        {
          key: 'actions',
          label: t.common.actions,
          render: (row) => (
            <span class="actions">
              {row.method === 'updb' && row.username && (
                <ConfirmButton label={t.identities.resetPassword} question={t.identities.resetPasswordQuestion(row.username)} onConfirm={async () => (await resetPassword(row), props.changed())} />
              )}
              <ConfirmButton label={t.common.delete} question={t.identities.deleteAuthenticatorQuestion(row.method)} onConfirm={async () => (await api('DELETE', `/authenticators/${encodeURIComponent(row.id)}`), props.changed())} />
            </span>
          ),
        },
      ]}
    />
  );
}
