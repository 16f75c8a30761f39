/**
 * The public face of the list-query language: parse the list parameters (list-params.ts) and run the list
 * on a table with the compiled filter, the sort, the page and the total count.
 */
import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Database, DialectName } from '../database.js';
import type { Tables } from '../tables.js';
import { compileFilter, fieldSpec, orderedColumn } from './compile.js';
import type { ListQuery } from './list-params.js';
import type { FieldMap } from './ast.js';

export type { FieldMap, FieldSpec, FieldType, FilterExpr, FilterValue } from './ast.js';
export { parseListParams, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ListQuery, type RawListParams } from './list-params.js';
export { parseFilter, MAX_FILTER_LENGTH, MAX_NESTING_DEPTH } from './parser.js';
export { compileFilter } from './compile.js';

/**
 * Runs the list on `table`: rows of the page and the total count matching the filter (ignoring limit/offset).
 *
 * @example const { rows, totalCount } = await listRows(database, 'identities', IDENTITY_FIELDS, parseListParams(query, IDENTITY_FIELDS));
 */
export async function listRows<T extends keyof Tables & string>(
  database: Database,
  table: T,
  fields: FieldMap,
  query: ListQuery,
): Promise<{ rows: Selectable<Tables[T]>[]; totalCount: number }> {
  return listTableRows(database.db, database.dialect, table, fields, query);
}

/** Rows of any table: a stand-in for a database whose row type Kysely cannot follow through a type parameter. */
type AnyTables = Record<string, Record<string, unknown>>;

/**
 * A condition every listed row must also meet besides the client's filter, e.g. "the services identity X may dial"
 * (the policy engine's membership, decision 0025). It is SQL built by the server, never from filter text; it may
 * refer to the listed table's columns qualified by the table name.
 */
export type ListRestriction = Expression<SqlBool>;

/**
 * listRows on any Kysely instance and table, e.g. one extended with `withTables` (tests, future tables).
 * `restriction`, when given, is combined with the filter by `and`, in the page and in the total count alike.
 */
export async function listTableRows<DB, T extends keyof DB & string>(
  db: Kysely<DB>,
  dialect: DialectName,
  table: T,
  fields: FieldMap,
  query: ListQuery,
  restriction?: ListRestriction,
): Promise<{ rows: Selectable<DB[T]>[]; totalCount: number }> {
  // Kysely's builder types cannot resolve `DB[T]` for a generic T, so the query is built on a loose view of the
  // same instance and the rows are given their table's type at the end.
  const loose = db as unknown as Kysely<AnyTables>;
  const from: string = table;
  const where = query.where === undefined ? undefined : compileFilter(query.where, fields, dialect);
  let page = loose.selectFrom(from).selectAll();
  let count = loose.selectFrom(from).select(sql<number | string | bigint>`count(*)`.as('total'));
  for (const condition of [restriction, where]) {
    if (condition === undefined) continue;
    page = page.where(condition);
    count = count.where(condition);
  }
  for (const key of query.sort) {
    // NULL counts as the smallest value on both dialects (SQLite's default; PostgreSQL's is the opposite).
    page = page.orderBy(orderedColumn(fieldSpec(key.field, fields), dialect), (order) =>
      key.direction === 'asc' ? order.asc().nullsFirst() : order.desc().nullsLast(),
    );
  }
  const [rows, total] = await Promise.all([
    page.limit(query.limit).offset(query.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  // PostgreSQL returns count(*) as a bigint, which pg hands over as a string.
  return { rows: rows as Selectable<DB[T]>[], totalCount: Number(total.total) };
}
