/**
 * The audit trail: every management change, newest first, filtered on the server by actor, target (type and id)
 * and time (GET /audit-log's actorId, entityType, entityId, from, to), paged by the API; each entry's differences
 * are a table of field, before and after. The filters live in the URL, so a link to a filtered trail can be shared.
 */
import { useState } from 'preact/hooks';
import { DateTime } from '../../components/fields';
import { EntityLink } from '../../components/entity-link';
import { ListScreen } from '../../components/list-screen';
import { setQuery, useLocation } from '../../router';
import { t } from '../../strings';

interface Change {
  field: string;
  before?: unknown;
  after?: unknown;
}

interface AuditEntry {
  id: string;
  time: string;
  actorId: string;
  actorName: string;
  action: string;
  entityType: string;
  entityId: string;
  entityName: string;
  changes?: Change[];
}

const TYPES = ['identity', 'service', 'config', 'service-policy', 'edge-router-policy', 'service-edge-router-policy', 'edge-router', 'posture-check', 'ca', 'external-jwt-signer', 'auth-policy'];
const FILTERS = ['actorId', 'entityType', 'entityId', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

const shown = (value: unknown) => (value === undefined || value === null ? t.common.none : typeof value === 'string' ? value : JSON.stringify(value));

/** `datetime-local` text (the browser's zone) to the ISO instant the API takes, and back. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function ChangesTable({ entry }: { entry: AuditEntry }) {
  const changes = entry.changes ?? [];
  if (changes.length === 0) return <span class="hint">{t.audit.noChanges}</span>;
  return (
    <table class="changes">
      <caption class="visually-hidden">{t.audit.changesOf(entry.action, entry.entityName || entry.entityId)}</caption>
      <thead>
        <tr>
          <th scope="col">{t.audit.field}</th>
          <th scope="col">{t.audit.before}</th>
          <th scope="col">{t.audit.after}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field}>
            <th scope="row">{change.field}</th>
            <td>{shown(change.before)}</td>
            <td>{shown(change.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function FilterForm({ applied }: { applied: Filters }) {
  const [typed, setTyped] = useState<Filters>({ ...applied, from: toLocal(applied.from), to: toLocal(applied.to) });
  const set = (name: keyof Filters) => (event: Event) => setTyped({ ...typed, [name]: (event.target as HTMLInputElement).value });
  const apply = (values: Filters) => setQuery({ ...values, from: toIso(values.from), to: toIso(values.to), offset: undefined });
  const input = (name: 'actorId' | 'entityId' | 'from' | 'to', label: string, type = 'text') => (
    <div class="field">
      <label for={`audit-${name}`}>{label}</label>
      <input id={`audit-${name}`} type={type} value={typed[name]} onInput={set(name)} />
    </div>
  );
  return (
    <form class="filters" aria-label={t.audit.filters} onSubmit={(event) => (event.preventDefault(), apply(typed))}>
      {input('actorId', t.audit.actor)}
      <div class="field">
        <label for="audit-entityType">{t.audit.entityType}</label>
        <select id="audit-entityType" value={typed.entityType} onChange={set('entityType')}>
          <option value="">{t.audit.anyType}</option>
          {TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      {input('entityId', t.audit.entityId)}
      {input('from', t.audit.from, 'datetime-local')}
      {input('to', t.audit.to, 'datetime-local')}
      <div class="actions">
        <button type="submit" class="primary">
          {t.audit.apply}
        </button>
        <button
          type="button"
          onClick={() => {
            const empty = { actorId: '', entityType: '', entityId: '', from: '', to: '' };
            setTyped(empty);
            apply(empty);
          }}
        >
          {t.audit.clear}
        </button>
      </div>
    </form>
  );
}

export function AuditTrail() {
  const { search } = useLocation();
  const applied = Object.fromEntries(FILTERS.map((name) => [name, search.get(name) ?? ''])) as Filters;
  return (
    <ListScreen<AuditEntry>
      title={t.audit.title}
      collection="/audit-log"
      search={false}
      defaultSort="sequence desc"
      params={applied}
      filters={<FilterForm applied={applied} />}
      columns={[
        { key: 'time', label: t.audit.time, sort: 'sequence', render: (row) => <DateTime value={row.time} /> },
        { key: 'actor', label: t.audit.actor, render: (row) => row.actorName || row.actorId },
        { key: 'action', label: t.audit.action, sort: 'action' },
        {
          key: 'target',
          label: t.audit.target,
          render: (row) => (
            <>
              <span class="hint">{row.entityType}</span> <EntityLink type={row.entityType} id={row.entityId} name={row.entityName} />
            </>
          ),
        },
        { key: 'changes', label: t.audit.changes, render: (row) => <ChangesTable entry={row} /> },
      ]}
    />
  );
}
