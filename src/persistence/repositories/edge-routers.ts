/**
 * Edge routers in the store. The resource kit gives the common operations (resource-table.ts); the role attribute
 * index follows every write (the table's `dependents`). The enrollment and enrolled-certificate columns are written
 * only by `issueEnrollment` (and later by the router's own enrollment), never by an administrator's edit.
 */
import type { EdgeRouter, RouterEnrollment } from '../../domain/edge-router.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { EdgeRoutersTable } from '../tables.js';
import { indexAttributes, unindexEntity } from './role-index.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toBool, toDate, toDateOrNull, toIso } from './row-values.js';

/** Public field name -> column, for `filter` and `sort` on the edge router list. */
export const EDGE_ROUTER_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  isTunnelerEnabled: { column: 'is_tunneler_enabled', type: 'boolean' },
  cost: { column: 'cost', type: 'number' },
  noTraversal: { column: 'no_traversal', type: 'boolean' },
  disabled: { column: 'disabled', type: 'boolean' },
  isVerified: { column: 'is_verified', type: 'boolean' },
  fingerprint: { column: 'fingerprint', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  roleAttributes: { column: 'role_attributes', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

/** Written only by enrollment paths. */
const ENROLLMENT_COLUMNS = ['fingerprint', 'cert_pem', 'is_verified', 'enrollment_token_hash', 'enrollment_jwt', 'enrollment_expires_at', 'connection'];

export interface EdgeRouterRepository extends ResourceRepository<EdgeRouter> {
  /** A new pending enrollment; the enrolled certificate is forgotten and the router is unverified again. False when no router has the id. */
  issueEnrollment(id: string, enrollment: RouterEnrollment, now: Date): Promise<boolean>;
}

/** A stored row as the domain's edge router (also read whole by the service reach index's source). */
export function edgeRouterFromRow(row: EdgeRoutersTable): EdgeRouter {
  const expiresAt = toDateOrNull(row.enrollment_expires_at);
  return {
    id: row.id,
    name: row.name,
    roleAttributes: parseJson(row.role_attributes),
    isTunnelerEnabled: toBool(row.is_tunneler_enabled),
    cost: Number(row.cost),
    noTraversal: toBool(row.no_traversal),
    disabled: toBool(row.disabled),
    appData: parseJson(row.app_data),
    tags: parseJson(row.tags),
    fingerprint: row.fingerprint,
    certPem: row.cert_pem,
    isVerified: toBool(row.is_verified),
    enrollment:
      row.enrollment_token_hash !== null && row.enrollment_jwt !== null && expiresAt !== null
        ? { tokenHash: row.enrollment_token_hash, jwt: row.enrollment_jwt, expiresAt }
        : null,
    connection: parseJson(row.connection),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(router: EdgeRouter): EdgeRoutersTable {
  return {
    id: router.id,
    name: router.name,
    role_attributes: JSON.stringify(router.roleAttributes),
    is_tunneler_enabled: router.isTunnelerEnabled,
    cost: router.cost,
    no_traversal: router.noTraversal,
    disabled: router.disabled,
    app_data: JSON.stringify(router.appData),
    tags: JSON.stringify(router.tags),
    fingerprint: router.fingerprint,
    cert_pem: router.certPem,
    is_verified: router.isVerified,
    enrollment_token_hash: router.enrollment?.tokenHash ?? null,
    enrollment_jwt: router.enrollment?.jwt ?? null,
    enrollment_expires_at: router.enrollment ? toIso(router.enrollment.expiresAt) : null,
    connection: JSON.stringify(router.connection),
    created_at: toIso(router.createdAt),
    updated_at: toIso(router.updatedAt),
  };
}

/** How edge routers are stored. */
export const EDGE_ROUTER_TABLE: ResourceTable<'edge_routers', EdgeRouter> = {
  table: 'edge_routers',
  changeLog: 'edge-router',
  fields: EDGE_ROUTER_FIELDS,
  fromRow: edgeRouterFromRow,
  toRow,
  keptOnUpdate: ENROLLMENT_COLUMNS,
  // The role attribute index the policy engine reads (migration 0012) follows every write of the router.
  dependents: {
    written: (db, router) => indexAttributes(db, 'edge-router', router.id, router.roleAttributes),
    deleted: (db, id) => unindexEntity(db, 'edge-router', id),
  },
};

export function createEdgeRouterRepository(database: Database): EdgeRouterRepository {
  return {
    ...resourceRepository(database, EDGE_ROUTER_TABLE),
    async issueEnrollment(id, enrollment, now) {
      const result = await database.db
        .updateTable('edge_routers')
        .set({
          enrollment_token_hash: enrollment.tokenHash,
          enrollment_jwt: enrollment.jwt,
          enrollment_expires_at: toIso(enrollment.expiresAt),
          fingerprint: null,
          cert_pem: null,
          is_verified: false,
          updated_at: toIso(now),
        })
        .where('id', '=', id)
        .executeTakeFirst();
      const updated = Number(result.numUpdatedRows) > 0;
      // The enrolled certificate is gone: the controller holding the router's control channel closes it (decision 0062).
      if (updated) await recordChange(database, 'edge-router', id, now);
      return updated;
    },
  };
}
