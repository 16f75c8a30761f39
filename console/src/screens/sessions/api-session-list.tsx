/** API sessions (legacy and OIDC logins): who, how, from where, last active; revoking one ends it at once. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/detail';
import { DateTime } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

interface ApiSessionRow {
  id: string;
  identity: { id: string; name: string };
  kind: string;
  authMethod: string;
  ipAddress: string;
  lastActivityAt: string;
  createdAt: string;
}

export function ApiSessionList() {
  const [generation, setGeneration] = useState(0);
  return (
    <ListScreen<ApiSessionRow>
      title={t.sessions.apiTitle}
      collection="/api-sessions"
      searchFields={['ipAddress']}
      defaultSort="lastActivityAt desc"
      reloadKey={generation}
      columns={[
        { key: 'identity', label: t.sessions.identity, render: (row) => <Link href={`/console/identities/${encodeURIComponent(row.identity.id)}`}>{row.identity.name}</Link> },
        { key: 'kind', label: t.sessions.kind, sort: 'kind' },
        { key: 'authMethod', label: t.sessions.authMethod, sort: 'authMethod' },
        { key: 'ipAddress', label: t.sessions.ipAddress, sort: 'ipAddress' },
        { key: 'lastActivityAt', label: t.sessions.lastActivity, sort: 'lastActivityAt', render: (row) => <DateTime value={row.lastActivityAt} /> },
        {
          key: 'revoke',
          label: t.sessions.revoke,
          render: (row) => (
            <ConfirmButton
              label={t.sessions.revoke}
              question={t.sessions.revokeQuestion(row.identity.name)}
              onConfirm={async () => (await api('DELETE', `/api-sessions/${encodeURIComponent(row.id)}`), setGeneration((n) => n + 1))}
            />
          ),
        },
      ]}
    />
  );
}
