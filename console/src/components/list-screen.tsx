/**
 * The one list screen every collection uses: filtered, sorted and paged by the API (the filter language, `sort`,
 * `limit` and `offset`), never in the browser, so a list of a million identities costs one page per request. The
 * search, sort and page live in the URL: reload, back and a shared link show the same rows.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, query, quoted } from '../api/client';
import { setQuery, useLocation } from '../router';
import { t } from '../strings';
import { Problem } from './problem';

export interface Column<Row> {
  key: string;
  label: string;
  /** Field name for `sort=`; absent: not sortable. */
  sort?: string;
  render?: (row: Row) => ComponentChildren;
}

export interface ListScreenProps<Row> {
  title: string;
  /** The collection's path under the Management API, e.g. `/identities`. */
  collection: string;
  columns: Column<Row>[];
  /** Fields the search box looks in with `contains` (the name, usually); ids always match exactly. */
  searchFields?: string[];
  /** Whether `#attribute` in the search box becomes a roleFilter (collections that have role attributes). */
  roleSearch?: boolean;
  defaultSort?: string;
  actions?: ComponentChildren;
  pageSize?: number;
  /** More query parameters for every request: a screen's own server-side filters (the audit trail's actorId, …). */
  params?: Record<string, string | undefined>;
  /** Whether the name search box shows (default yes); a screen with its own filters may leave it out. */
  search?: boolean;
  /** A value that, when it changes, loads the page again (after a row was deleted, say). */
  reloadKey?: unknown;
  /** What sits between the search box and the table: a screen's own filter form. */
  filters?: ComponentChildren;
  /**
   * A list inside another screen (an identity's authenticators): no heading or search box of its own, and its sort
   * and page kept in the component rather than the URL, which belongs to the screen around it.
   */
  embedded?: boolean;
}

const PAGE = 25;

/**
 * The API filter for what was typed. A name is matched by its start, as a range (`name >= "web" and name < "wec"`),
 * which the store answers from the name's index however large the collection; `*web` looks anywhere in the name
 * (`contains`), which reads every row and is slower on a large network. An id is looked up by its own request
 * (idLookup), not by an `or` here: an `or` across two indexes makes PostgreSQL walk the whole name index.
 */
export function filterFor(text: string, fields: string[]): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('*')) {
    const inner = trimmed.slice(1).trim();
    return inner === '' ? undefined : fields.map((field) => `${field} contains ${quoted(inner)}`).join(' or ');
  }
  const last = trimmed.codePointAt(trimmed.length - 1)!;
  const next = trimmed.slice(0, trimmed.length - (last > 0xffff ? 2 : 1)) + String.fromCodePoint(last + 1);
  return fields.map((field) => `(${field} >= ${quoted(trimmed)} and ${field} < ${quoted(next)})`).join(' or ');
}

/** The exact-id filter for what was typed, when it could be an id (one word, not a role or a `*` search). */
export function idLookup(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' || /[\s*#]/.test(trimmed) ? undefined : `id = ${quoted(trimmed)}`;
}

/** Two filters that must both hold (either may be absent). */
const both = (a: string | undefined, b: string | undefined) => (a && b ? `(${a}) and (${b})` : (a ?? b));

export function ListScreen<Row extends { id: string }>(props: ListScreenProps<Row>) {
  const { search } = useLocation();
  const [local, setLocal] = useState<{ sort?: string; offset?: string }>({});
  const text = props.embedded ? '' : (search.get('q') ?? '');
  const sort = (props.embedded ? local.sort : search.get('sort')) ?? props.defaultSort ?? 'name asc';
  const offset = Math.max(0, Number((props.embedded ? local.offset : search.get('offset')) ?? 0) || 0);
  const update = (values: { sort?: string; offset?: string | undefined; q?: string }) => (props.embedded ? setLocal({ ...local, ...values }) : setQuery(values));
  const limit = props.pageSize ?? PAGE;
  const [typed, setTyped] = useState(text);
  const [rows, setRows] = useState<Row[] | undefined>(undefined);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    const abort = new AbortController();
    const role = props.roleSearch && text.trim().startsWith('#');
    const params = role
      ? { ...props.params, roleFilter: text.trim(), sort, limit, offset }
      : { ...props.params, filter: both(props.params?.filter, filterFor(text, props.searchFields ?? ['name'])), sort, limit, offset };
    const byId = role || offset > 0 ? undefined : idLookup(text);
    setError(undefined);
    Promise.all([
      get<Row[]>(`${props.collection}${query(params)}`, abort.signal),
      byId ? get<Row[]>(`${props.collection}${query({ ...props.params, filter: both(props.params?.filter, byId), limit: 1 })}`, abort.signal) : undefined,
    ])
      .then(([answer, exact]) => {
        // The entity whose id was typed comes first, unless its name matched too.
        const found = exact?.data[0];
        const extra = found && !answer.data.some((row) => row.id === found.id) ? [found] : [];
        setRows([...extra, ...answer.data]);
        setTotal((answer.meta?.pagination?.totalCount ?? answer.data.length) + extra.length);
      })
      .catch((problem: unknown) => {
        if (!abort.signal.aborted) setError(problem);
      });
    return () => abort.abort();
  }, [props.collection, text, sort, offset, limit, JSON.stringify(props.params ?? {}), props.reloadKey]);

  // The search runs as the user pauses typing, not on every key.
  useEffect(() => {
    if (typed === text) return;
    const timer = setTimeout(() => setQuery({ q: typed, offset: undefined }), 250);
    return () => clearTimeout(timer);
  }, [typed]);

  const [sortField, sortDirection] = sort.split(' ');
  const toggleSort = (field: string) => update({ sort: `${field} ${sortField === field && sortDirection === 'asc' ? 'desc' : 'asc'}`, offset: undefined });
  const page = (to: number) => update({ offset: to > 0 ? String(to) : undefined });

  return (
    <section class="list-screen" {...(props.embedded ? { 'aria-label': props.title } : { 'aria-labelledby': 'list-title' })}>
      {!props.embedded && (
        <header class="screen-head">
          <h1 id="list-title">{props.title}</h1>
          {props.actions}
        </header>
      )}
      {props.embedded && props.actions}
      {props.search !== false && !props.embedded && (
        <form class="search" role="search" onSubmit={(event) => (event.preventDefault(), setQuery({ q: typed, offset: undefined }))}>
          <label for="list-search">{t.list.search}</label>
          <input id="list-search" type="search" value={typed} onInput={(event) => setTyped((event.target as HTMLInputElement).value)} aria-describedby="list-search-hint" />
          <span id="list-search-hint" class="hint">
            {props.roleSearch ? t.list.searchHintRoles : t.list.searchHint}
          </span>
        </form>
      )}
      {props.filters}
      <Problem error={error} prefix={t.list.failed} />
      <table class="list">
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.key} aria-sort={column.sort && column.sort === sortField ? (sortDirection === 'desc' ? 'descending' : 'ascending') : undefined}>
                {column.sort ? (
                  <button type="button" class="sort" onClick={() => toggleSort(column.sort!)} aria-label={t.list.sortBy(column.label)}>
                    {column.label}
                    <span aria-hidden="true">{column.sort === sortField ? (sortDirection === 'desc' ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                ) : (
                  column.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-live="polite" aria-busy={rows === undefined}>
          {rows === undefined ? (
            <tr>
              <td colSpan={props.columns.length}>{t.list.loading}</td>
            </tr>
          ) : rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length}>{t.list.empty}</td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={row.id}>
                {props.columns.map((column) => (
                  <td key={column.key}>{column.render ? column.render(row) : String((row as Record<string, unknown>)[column.key] ?? t.common.none)}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
      <nav class="pager" aria-label={props.title}>
        <button type="button" disabled={offset === 0} onClick={() => page(Math.max(0, offset - limit))}>
          {t.list.previous}
        </button>
        <span>{rows && rows.length > 0 ? t.list.range(offset + 1, offset + rows.length, total) : ''}</span>
        <button type="button" disabled={offset + limit >= total} onClick={() => page(offset + limit)}>
          {t.list.next}
        </button>
      </nav>
    </section>
  );
}
