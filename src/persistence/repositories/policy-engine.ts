/**
 * The policy engine's store queries (issue 14; docs/decisions/0025-authorization-model.md). Three kinds of read, all
 * by index, none proportional to the network:
 * - an entity as a role holder (id, name, role attributes): one primary-key read;
 * - the candidate policies of an entity on one side: the `policy_roles` rows for `#all`, for its `@id` and for each
 *   of its attributes, joined to the policy rows (the engine then decides each exactly with `matchesRoles`);
 * - a page of entities or policies under a `Membership`: one SQL condition (ids, any-of attributes, all-of
 *   attribute groups through `entity_attributes`, or everything) combined with the client's filter, sort and paging.
 * Nothing is cached: every answer reads the committed rows, so every controller on a store answers alike.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { EdgeRouterPolicy, RoleTarget, ServicePolicy, ServiceEdgeRouterPolicy, Tags } from '../../domain/policy.js';
import type { Database } from '../database.js';
import { listTableRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { Tables } from '../tables.js';
import { EDGE_ROUTER_POLICY_TABLE } from './edge-router-policies.js';
import type { PolicySide, PolicyType } from './role-index.js';
import { SERVICE_EDGE_ROUTER_POLICY_TABLE } from './service-edge-router-policies.js';
import { SERVICE_POLICY_TABLE } from './service-policies.js';
import { parseJson, toDate } from './row-values.js';

/** An entity as the engine sees it: what a match needs, and what the related lists' neutral view shows. */
export interface RoleEntity {
  id: string;
  name: string;
  roleAttributes: readonly string[];
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The entities a set of matched policies selects on one side, as data: every entity, or those named by id, or
 * holding any of `anyOf`, or holding every attribute of one group of `allOf`.
 */
export interface Membership {
  all: boolean;
  ids: string[];
  anyOf: string[];
  allOf: string[][];
}

export interface PolicyOfType {
  'service-policy': ServicePolicy;
  'edge-router-policy': EdgeRouterPolicy;
  'service-edge-router-policy': ServiceEdgeRouterPolicy;
}

const ENTITY_TABLES = { identity: 'identities', service: 'services', 'edge-router': 'edge_routers', 'posture-check': 'posture_checks' } as const;
const POLICY_TABLES = {
  'service-policy': SERVICE_POLICY_TABLE,
  'edge-router-policy': EDGE_ROUTER_POLICY_TABLE,
  'service-edge-router-policy': SERVICE_EDGE_ROUTER_POLICY_TABLE,
} as const;

/**
 * The fields a related list of entities may filter and sort on: those every entity table has. The resources' own
 * lists offer more; when their views replace the neutral one here, their field maps can too.
 */
export const ROLE_ENTITY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

type EntityRow = { id: string; name: string; role_attributes: string; tags: string; created_at: string; updated_at: string };
type Loose = Kysely<Record<string, Record<string, unknown>>>;

function entityFromRow(row: EntityRow): RoleEntity {
  return {
    id: row.id,
    name: row.name,
    roleAttributes: parseJson(row.role_attributes),
    tags: parseJson(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export interface PolicyEngineStore {
  entity(target: RoleTarget, id: string): Promise<RoleEntity | undefined>;
  /** The ids among `ids` of existing entities of `target`. */
  existingIds(target: RoleTarget, ids: readonly string[]): Promise<Set<string>>;
  /** id -> name of the existing entities of `target` among `ids`. */
  namesByIds(target: RoleTarget, ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * The policies of `policyType` whose `side` names `#all`, `@<holder.id>` or one of the holder's attributes: a
   * superset of those that match (an AllOf policy may need more attributes), read by index.
   */
  candidates<P extends PolicyType>(policyType: P, side: PolicySide, holder: { id: string; roleAttributes: readonly string[] }): Promise<PolicyOfType[P][]>;
  policy<P extends PolicyType>(policyType: P, id: string): Promise<PolicyOfType[P] | undefined>;
  /** The fields a list of policies of `policyType` may filter and sort on (the policy table's). */
  policyFields(policyType: PolicyType): FieldMap;
  /**
   * A page of `target` entities within `within` (memberships, all must hold), under the client's query on `fields`
   * (the neutral ones by default; a resource's own, e.g. a service's, when its list offers more).
   */
  listEntities(target: RoleTarget, query: ListQuery, within: readonly Membership[], fields?: FieldMap): Promise<{ items: RoleEntity[]; totalCount: number }>;
  /** How many `target` entities lie within every membership of `within`. */
  countEntities(target: RoleTarget, within: readonly Membership[]): Promise<number>;
  /** A page of the policies of `policyType` among `ids`, under the client's query. */
  listPolicies<P extends PolicyType>(policyType: P, query: ListQuery, ids: readonly string[]): Promise<{ items: PolicyOfType[P][]; totalCount: number }>;
}

/**
 * The SQL condition "the row of `target`'s table is within `membership`", on its `id` column.
 */
export function membershipCondition(target: RoleTarget, membership: Membership): RawBuilder<SqlBool> {
  if (membership.all) return sql<SqlBool>`1 = 1`;
  const table = ENTITY_TABLES[target];
  const list = (values: readonly string[]) => sql.join(values.map((value) => sql`${value}`));
  // Each read names the entity type and the attribute, so it is a range of the primary key (type, attribute, entity).
  const holding = (attributes: readonly string[]) =>
    sql`select entity_id from entity_attributes where entity_type = ${target} and attribute in (${list(attributes)})`;
  const members = [
    // Named ids through the entity table itself, so an id whose entity is gone selects nothing.
    ...(membership.ids.length === 0 ? [] : [sql`select named.id from ${sql.table(table)} as named where named.id in (${list(membership.ids)})`]),
    ...(membership.anyOf.length === 0 ? [] : [holding(membership.anyOf)]),
    // All of a group: the intersection of the holders of each attribute.
    ...membership.allOf.map((group, i) => sql`select entity_id from (${sql.join(group.map((attribute) => holding([attribute])), sql` intersect `)}) as ${sql.ref(`all_of_${i}`)}`),
  ];
  if (members.length === 0) return sql<SqlBool>`1 = 0`;
  // One `in` over one `union all` (duplicates do not matter to `in`, and need no sort): the store builds the member
  // set once and reads each member by primary key, rather than testing every row of the table.
  return sql<SqlBool>`${sql.ref(`${table}.id`)} in (${sql.join(members, sql` union all `)})`;
}

function within(target: RoleTarget, memberships: readonly Membership[]): RawBuilder<SqlBool> | undefined {
  const bounded = memberships.filter((membership) => !membership.all);
  if (bounded.length === 0) return undefined;
  return sql<SqlBool>`(${sql.join(bounded.map((membership) => membershipCondition(target, membership)), sql` and `)})`;
}

export function createPolicyEngineStore(database: Database): PolicyEngineStore {
  const db = database.db as unknown as Loose;
  const entityColumns = ['id', 'name', 'role_attributes', 'tags', 'created_at', 'updated_at'];
  const distinct = (ids: readonly string[]) => [...new Set(ids)];
  const asPolicy = <P extends PolicyType>(policyType: P, row: unknown) => POLICY_TABLES[policyType].fromRow(row as never) as PolicyOfType[P];

  return {
    async entity(target, id) {
      const row = await db.selectFrom(ENTITY_TABLES[target]).select(entityColumns).where('id', '=', id).executeTakeFirst();
      return row && entityFromRow(row as EntityRow);
    },
    async existingIds(target, ids) {
      const unique = distinct(ids);
      if (unique.length === 0) return new Set();
      const rows = await db.selectFrom(ENTITY_TABLES[target]).select('id').where('id', 'in', unique).execute();
      return new Set(rows.map((row) => String(row.id)));
    },
    async namesByIds(target, ids) {
      const unique = distinct(ids);
      if (unique.length === 0) return new Map();
      const rows = await db.selectFrom(ENTITY_TABLES[target]).select(['id', 'name']).where('id', 'in', unique).execute();
      return new Map(rows.map((row) => [String(row.id), String(row.name)]));
    },
    async candidates(policyType, side, holder) {
      const roles = (database.db as Kysely<Tables>)
        .selectFrom('policy_roles')
        .select('policy_id')
        .where('policy_type', '=', policyType)
        .where('side', '=', side);
      // Three range reads on the primary key (policy_type, side, kind, value), one per kind of role.
      let named = roles.where('kind', '=', 'all').where('value', '=', '').union(roles.where('kind', '=', 'id').where('value', '=', holder.id));
      const attributes = distinct(holder.roleAttributes);
      if (attributes.length > 0) named = named.union(roles.where('kind', '=', 'attribute').where('value', 'in', attributes));
      const table = POLICY_TABLES[policyType].table;
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where('id', 'in', named as never)
        .execute();
      return rows.map((row) => asPolicy(policyType, row));
    },
    async policy(policyType, id) {
      const row = await db.selectFrom(POLICY_TABLES[policyType].table).selectAll().where('id', '=', id).executeTakeFirst();
      return row && asPolicy(policyType, row);
    },
    policyFields: (policyType) => POLICY_TABLES[policyType].fields,
    async listEntities(target, query, memberships, fields = ROLE_ENTITY_FIELDS) {
      const { rows, totalCount } = await listTableRows(db, database.dialect, ENTITY_TABLES[target], fields, query, within(target, memberships));
      return { items: rows.map((row) => entityFromRow(row as EntityRow)), totalCount };
    },
    async countEntities(target, memberships) {
      const condition = within(target, memberships);
      let count = db.selectFrom(ENTITY_TABLES[target]).select(sql<number | string | bigint>`count(*)`.as('total'));
      if (condition) count = count.where(condition);
      // PostgreSQL returns count(*) as a bigint, which pg hands over as a string.
      return Number((await count.executeTakeFirstOrThrow()).total);
    },
    async listPolicies(policyType, query, ids) {
      const description = POLICY_TABLES[policyType];
      const unique = distinct(ids);
      const among = unique.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${sql.ref(`${description.table}.id`)} in (${sql.join(unique.map((id) => sql`${id}`))})`;
      const { rows, totalCount } = await listTableRows(db, database.dialect, description.table, description.fields, query, among);
      return { items: rows.map((row) => asPolicy(policyType, row)), totalCount };
    },
  };
}
