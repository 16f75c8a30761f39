/**
 * An identity's API sessions (its logins) and sessions (its rights, opened by its SDK, to dial or bind a service),
 * each filtered to this identity by the API (`identityId = "…"`) and paged there; either can be ended.
 */
import { useState } from 'preact/hooks';
import { api, quoted } from '../../api/client';
import { ConfirmButton, Section } from '../../components/detail';
import { DateTime } from '../../components/fields';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

interface ApiSessionRow {
  id: string;
  kind: string;
  authMethod: string;
  ipAddress: string;
  lastActivityAt: string;
}

interface SessionRow {
  id: string;
  type: string;
  service: { id: string; name: string };
  createdAt: string;
}

/** A column whose button ends the row's session (DELETE) and reloads the list. */
function endColumn<Row extends { id: string }>(collection: string, label: string, question: (row: Row) => string, ended: () => void) {
  return {
    key: 'end',
    label,
    render: (row: Row) => <ConfirmButton label={label} question={question(row)} onConfirm={async () => (await api('DELETE', `${collection}/${encodeURIComponent(row.id)}`), ended())} />,
  };
}

export function IdentitySessions({ identityId, identityName }: { identityId: string; identityName: string }) {
  const [generation, setGeneration] = useState(0);
  const ended = () => setGeneration((n) => n + 1);
  const params = { filter: `identityId = ${quoted(identityId)}` };
  return (
    <>
      <Section title={t.nav.apiSessions}>
        <ListScreen<ApiSessionRow>
          title={t.identities.apiSessionsOf(identityName)}
          collection="/api-sessions"
          embedded
          reloadKey={generation}
          params={params}
          defaultSort="lastActivityAt desc"
          columns={[
            { key: 'kind', label: t.sessions.kind, render: (row) => row.kind },
            { key: 'authMethod', label: t.sessions.authMethod, render: (row) => row.authMethod },
            { key: 'ipAddress', label: t.sessions.ipAddress, render: (row) => row.ipAddress || t.common.none },
            { key: 'lastActivityAt', label: t.sessions.lastActivity, render: (row) => <DateTime value={row.lastActivityAt} /> },
            endColumn<ApiSessionRow>('/api-sessions', t.sessions.revoke, () => t.sessions.revokeQuestion(identityName), ended),
          ]}
        />
      </Section>
      <Section title={t.nav.sessions}>
        <ListScreen<SessionRow>
          title={t.identities.sessionsOf(identityName)}
          collection="/sessions"
          embedded
          reloadKey={generation}
          params={params}
          defaultSort="createdAt desc"
          columns={[
            { key: 'service', label: t.sessions.service, render: (row) => row.service.name },
            { key: 'type', label: t.sessions.type, render: (row) => row.type },
            { key: 'createdAt', label: t.common.createdAt, render: (row) => <DateTime value={row.createdAt} /> },
            endColumn<SessionRow>('/sessions', t.sessions.end, (row) => t.sessions.endQuestion(row.service.name), ended),
          ]}
        />
      </Section>
    </>
  );
}
