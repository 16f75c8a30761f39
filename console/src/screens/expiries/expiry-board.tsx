/**
 * The expiry board: enrollments, identity and router certificates, CA certificates, signing keys and signer
 * certificates that end within the chosen window (7, 30 or 90 days), those already ended first, each linked to
 * the object to renew. Paged by the API (GET /expiries?within=P30D).
 */
import { DateTime } from '../../components/fields';
import { EntityLink } from '../../components/entity-link';
import { ListScreen } from '../../components/list-screen';
import { setQuery, useLocation } from '../../router';
import { t } from '../../strings';

interface Expiry {
  kind: string;
  id: string;
  name: string;
  expiresAt: string;
  entity: { type: string; id: string; name: string };
}

const WINDOWS = [7, 30, 90];

export function ExpiryBoard() {
  const { search } = useLocation();
  const days = WINDOWS.includes(Number(search.get('days'))) ? Number(search.get('days')) : 30;
  const now = Date.now();
  return (
    <ListScreen<Expiry>
      title={t.expiries.title}
      collection="/expiries"
      search={false}
      defaultSort=""
      params={{ within: `P${days}D` }}
      filters={
        <div class="field window">
          <label for="expiry-window">{t.expiries.within}</label>
          <select id="expiry-window" value={String(days)} onChange={(event) => setQuery({ days: (event.target as HTMLSelectElement).value, offset: undefined })}>
            {WINDOWS.map((n) => (
              <option key={n} value={String(n)}>
                {t.expiries.days(n)}
              </option>
            ))}
          </select>
        </div>
      }
      columns={[
        { key: 'kind', label: t.expiries.kind, render: (row) => t.expiries.kinds[row.kind] ?? row.kind },
        { key: 'object', label: t.expiries.object, render: (row) => <EntityLink type={row.entity.type} id={row.entity.id} name={row.entity.name || row.name} /> },
        {
          key: 'expiresAt',
          label: t.expiries.expiresAt,
          render: (row) => (
            <>
              <DateTime value={row.expiresAt} /> {Date.parse(row.expiresAt) <= now && <span class="badge offline">{t.expiries.expired}</span>}
            </>
          ),
        },
      ]}
    />
  );
}
