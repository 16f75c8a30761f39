/**
 * The resource kit's store half (issue 13, point 2; docs/decisions/0022-resource-kit.md): what every named,
 * listed resource does in the store (find by id or name, list with filter/sort/paging, insert, update, delete),
 * written once over a table description. A resource's repository is its description plus the queries that are
 * really its own, e.g. `{ ...resourceRepository(database, AUTH_POLICY_TABLE), findReferencingSigner }`.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from './database.js';
import { atomically } from './unit-of-work.js';
import { recordChange, type ChangedEntity } from './repositories/authorization-changes.js';
import { listTableRows, type FieldMap, type ListQuery, type ListRestriction } from './query/list-query.js';
import type { Tables } from './tables.js';

/** Tables with the columns every resource has. */
type ResourceTableName = {
  [T in keyof Tables & string]: Tables[T] extends { id: string; name: string; created_at: string } ? T : never;
}[keyof Tables & string];

/** How one resource is stored: its table, the fields a list may filter and sort on, and the row mapping. */
export interface ResourceTable<T extends ResourceTableName, Entity extends { id: string; name: string }> {
  table: T;
  /** Public field name -> column, for `filter` and `sort` on the list. */
  fields: FieldMap;
  fromRow(row: Selectable<Tables[T]>): Entity;
  /** Every column of a new row. */
  toRow(entity: Entity): Insertable<Tables[T]>;
  /**
   * Columns `update` leaves as they are besides `id` and `created_at`: those written by other paths than an
   * administrator's edit (e.g. an identity's client info, which logins record).
   */
  keptOnUpdate?: readonly string[];
  /**
   * Rows that follow the entity's own (indexes, link tables), written and removed in the same transaction: after
   * its insert or update, and before its delete.
   */
  dependents?: {
    written(db: Kysely<Tables>, entity: Entity): Promise<void>;
    /** `store` is the store bound to the same transaction, for writes that need more than SQL (the change log). */
    deleted(db: Kysely<Tables>, id: string, store: Database): Promise<void>;
  };
  /**
   * The entity type under which every insert, update and delete is written to the authorization change log in the
   * same transaction, for resources the policy engine's in-memory index follows (decision 0028).
   */
  changeLog?: ChangedEntity;
}

/** The operations every resource's repository has. */
export interface ResourceRepository<Entity> {
  findById(id: string): Promise<Entity | undefined>;
  findByName(name: string): Promise<Entity | undefined>;
  /** The ids among `ids` that exist. */
  existingIds(ids: readonly string[]): Promise<Set<string>>;
  /** id -> name of each entity in `ids` that exists. */
  namesByIds(ids: readonly string[]): Promise<Map<string, string>>;
  /** A page under the client's query; `restriction` (SQL the server built, e.g. a role filter) must hold too. */
  list(query: ListQuery, restriction?: ListRestriction): Promise<{ items: Entity[]; totalCount: number }>;
  insert(entity: Entity): Promise<void>;
  /** Writes every column but `id`, `created_at` and the description's `keptOnUpdate`. */
  update(entity: Entity): Promise<void>;
  /** False when nothing had the id. */
  delete(id: string): Promise<boolean>;
}

/** Rows of any table: Kysely's builder types cannot follow a table name given as a type parameter. */
type LooseTables = Record<string, Record<string, unknown>>;

/**
 * The generic operations on `description`'s table in `database` (or in the transaction `database` is bound to).
 *
 * @example export const createAuthPolicyRepository = (database: Database) => ({ ...resourceRepository(database, AUTH_POLICY_TABLE), ...own });
 */
export function resourceRepository<T extends ResourceTableName, Entity extends { id: string; name: string }>(
  database: Database,
  description: ResourceTable<T, Entity>,
): ResourceRepository<Entity> {
  const { fields, fromRow, toRow } = description;
  const table: string = description.table;
  // One loose view of the instance for building queries; rows are given their table's type when read.
  const db = database.db as unknown as Kysely<LooseTables>;
  const read = (row: unknown) => fromRow(row as Selectable<Tables[T]>);
  const kept = new Set(['id', 'created_at', ...(description.keptOnUpdate ?? [])]);
  const distinct = (ids: readonly string[]) => [...new Set(ids)];
  const { dependents, changeLog } = description;
  const loose = (trx: Kysely<Tables>) => trx as unknown as Kysely<LooseTables>;
  // One statement needs no transaction of its own; with dependents or a log entry they all commit together.
  const withDependents = <T>(work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> =>
    dependents || changeLog ? atomically(database.db, work) : work(database.db);
  const logged = async (trx: Kysely<Tables>, id: string) => {
    if (changeLog) await recordChange({ ...database, db: trx }, changeLog, id);
  };

  return {
    async findById(id) {
      const row = await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
      return row && read(row);
    },
    async findByName(name) {
      const row = await db.selectFrom(table).selectAll().where('name', '=', name).executeTakeFirst();
      return row && read(row);
    },
    async existingIds(ids) {
      const unique = distinct(ids);
      if (unique.length === 0) return new Set();
      const rows = await db.selectFrom(table).select('id').where('id', 'in', unique).execute();
      return new Set(rows.map((row) => String(row.id)));
    },
    async namesByIds(ids) {
      const unique = distinct(ids);
      if (unique.length === 0) return new Map();
      const rows = await db.selectFrom(table).select(['id', 'name']).where('id', 'in', unique).execute();
      return new Map(rows.map((row) => [String(row.id), String(row.name)]));
    },
    async list(query, restriction) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, table, fields, query, restriction);
      return { items: rows.map(read), totalCount };
    },
    async insert(entity) {
      await withDependents(async (trx) => {
        await loose(trx).insertInto(table).values(toRow(entity) as Record<string, unknown>).execute();
        await dependents?.written(trx, entity);
        await logged(trx, entity.id);
      });
    },
    async update(entity) {
      const values = Object.fromEntries(Object.entries(toRow(entity) as Record<string, unknown>).filter(([column]) => !kept.has(column)));
      await withDependents(async (trx) => {
        await loose(trx).updateTable(table).set(values).where('id', '=', entity.id).execute();
        await dependents?.written(trx, entity);
        await logged(trx, entity.id);
      });
    },
    async delete(id) {
      return withDependents(async (trx) => {
        await dependents?.deleted(trx, id, { ...database, db: trx });
        const result = await loose(trx).deleteFrom(table).where('id', '=', id).executeTakeFirst();
        const deleted = Number(result.numDeletedRows) > 0;
        if (deleted) await logged(trx, id);
        return deleted;
      });
    },
  };
}
