/** Sessions (an identity's right, opened by its SDK, to dial or bind a service): paged by the API; ending one. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/detail';
import { DateTime } from '../../components/fields';
import { Link } from '../../components/link';
import { ListScreen } from '../../components/list-screen';
import { t } from '../../strings';

interface SessionRow {
  id: string;
  type: string;
  service: { id: string; name: string };
  identity: { id: string; name: string };
  apiSessionId: string;
  createdAt: string;
}

export function SessionList() {
  const [generation, setGeneration] = useState(0);
  return (
    <ListScreen<SessionRow>
      title={t.sessions.title}
      collection="/sessions"
      search={false}
      defaultSort="createdAt desc"
      reloadKey={generation}
      columns={[
        { key: 'service', label: t.sessions.service, render: (row) => row.service.name },
        { key: 'identity', label: t.sessions.identity, render: (row) => <Link href={`/console/identities/${encodeURIComponent(row.identity.id)}`}>{row.identity.name}</Link> },
        { key: 'type', label: t.sessions.type, sort: 'type' },
        { key: 'createdAt', label: t.common.createdAt, sort: 'createdAt', render: (row) => <DateTime value={row.createdAt} /> },
        {
          key: 'end',
          label: t.sessions.end,
          render: (row) => (
            <ConfirmButton
              label={t.sessions.end}
              question={t.sessions.endQuestion(row.service.name)}
              onConfirm={async () => (await api('DELETE', `/sessions/${encodeURIComponent(row.id)}`), setGeneration((n) => n + 1))}
            />
          ),
        },
      ]}
    />
  );
}
