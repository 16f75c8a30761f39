/**
 * What the in-memory service reach index (policy/service-reach-state.ts; decision 0028) reads from the store: every
 * service, service policy, config, config type and posture check when it is built, the ones a change names when it
 * follows the change log, and the log.
 */
import type { ServicePolicyType, Tags } from '../../domain/policy.js';
import type { ReachConfig, ReachConfigType, ReachPostureCheck } from '../../policy/service-contents.js';
import type { ReachPolicy, ReachService } from '../../policy/service-reach-state.js';
import type { RouterPolicy } from '../../policy/router-reach-state.js';
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { Semantic } from '../../policy/roles.js';
import type { Database } from '../database.js';
import { createAuthorizationChangeLog, type AuthorizationChangeLog } from './authorization-changes.js';
import { edgeRouterFromRow } from './edge-routers.js';
import { postureCheckFromRow } from './posture-checks.js';
import { parseJson, toBool, toDate } from './row-values.js';

/** Each read: every row when `ids` is undefined, else those among `ids` that exist. */
export interface ServiceReachSource {
  readonly changes: AuthorizationChangeLog;
  services(ids?: readonly string[]): Promise<ReachService[]>;
  servicePolicies(ids?: readonly string[]): Promise<ReachPolicy[]>;
  configs(ids?: readonly string[]): Promise<ReachConfig[]>;
  configTypes(ids?: readonly string[]): Promise<ReachConfigType[]>;
  postureChecks(ids?: readonly string[]): Promise<ReachPostureCheck[]>;
  edgeRouters(ids?: readonly string[]): Promise<EdgeRouter[]>;
  /** Edge router policies, their holders the identities. */
  edgeRouterPolicies(ids?: readonly string[]): Promise<RouterPolicy[]>;
  /** Service edge router policies, their holders the services. */
  serviceEdgeRouterPolicies(ids?: readonly string[]): Promise<RouterPolicy[]>;
}

/** Ids per statement: far below both dialects' bound-parameter limits. */
const CHUNK = 500;
const millis = (iso: string) => Date.parse(iso);

export function createServiceReachSource(database: Database): ServiceReachSource {
  const { db } = database;
  /** Runs `read` over `ids` in chunks, or once over everything. */
  async function inChunks<T>(ids: readonly string[] | undefined, read: (chunk?: string[]) => Promise<T[]>): Promise<T[]> {
    if (ids === undefined) return read();
    const unique = [...new Set(ids)];
    const results: T[] = [];
    for (let i = 0; i < unique.length; i += CHUNK) results.push(...(await read(unique.slice(i, i + CHUNK))));
    return results;
  }
  return {
    changes: createAuthorizationChangeLog(database),
    services: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db
          .selectFrom('services')
          .select(['id', 'name', 'created_at', 'updated_at', 'role_attributes', 'tags', 'encryption_required', 'max_idle_time_millis', 'terminator_strategy']);
        let links = db.selectFrom('service_configs').select(['service_id', 'config_id']);
        if (chunk) {
          query = query.where('id', 'in', chunk);
          links = links.where('service_id', 'in', chunk);
        }
        const [rows, configRows] = [await query.execute(), await links.execute()];
        const configsOf = new Map<string, string[]>();
        for (const link of configRows) configsOf.set(link.service_id, [...(configsOf.get(link.service_id) ?? []), link.config_id]);
        return rows.map((row) => ({
          id: row.id,
          name: row.name,
          // Each attribute once: the index lists a service under each of its attributes.
          roleAttributes: [...new Set(parseJson<string[]>(row.role_attributes))],
          tags: parseJson<Tags>(row.tags),
          createdAt: toDate(row.created_at),
          updatedAt: toDate(row.updated_at),
          createdAtText: row.created_at,
          configs: (configsOf.get(row.id) ?? []).sort(),
          encryptionRequired: toBool(row.encryption_required),
          maxIdleTimeMillis: Number(row.max_idle_time_millis),
          terminatorStrategy: row.terminator_strategy,
        }));
      }),
    servicePolicies: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('service_policies').select(['id', 'type', 'semantic', 'identity_roles', 'service_roles', 'posture_check_roles']);
        if (chunk) query = query.where('id', 'in', chunk);
        const rows = await query.execute();
        return rows.map((row) => ({
          id: row.id,
          type: row.type as ServicePolicyType,
          semantic: row.semantic as Semantic,
          identityRoles: parseJson<string[]>(row.identity_roles),
          serviceRoles: parseJson<string[]>(row.service_roles),
          postureCheckRoles: parseJson<string[]>(row.posture_check_roles),
        }));
      }),
    configs: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('configs').select(['id', 'config_type_id', 'updated_at']);
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map((row) => ({ id: row.id, configTypeId: row.config_type_id, updatedAt: millis(row.updated_at) }));
      }),
    configTypes: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('config_types').select(['id', 'updated_at']);
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map((row) => ({ id: row.id, updatedAt: millis(row.updated_at) }));
      }),
    postureChecks: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('posture_checks').selectAll();
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map((row) => {
          const check = postureCheckFromRow(row);
          return { id: check.id, roleAttributes: check.roleAttributes, updatedAt: check.updatedAt.getTime(), check };
        });
      }),
    edgeRouters: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('edge_routers').selectAll();
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map(edgeRouterFromRow);
      }),
    edgeRouterPolicies: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('edge_router_policies').select(['id', 'semantic', 'identity_roles', 'edge_router_roles']);
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map((row) => ({ id: row.id, semantic: row.semantic as Semantic, holderRoles: parseJson<string[]>(row.identity_roles), edgeRouterRoles: parseJson<string[]>(row.edge_router_roles) }));
      }),
    serviceEdgeRouterPolicies: (ids) =>
      inChunks(ids, async (chunk) => {
        let query = db.selectFrom('service_edge_router_policies').select(['id', 'semantic', 'service_roles', 'edge_router_roles']);
        if (chunk) query = query.where('id', 'in', chunk);
        return (await query.execute()).map((row) => ({ id: row.id, semantic: row.semantic as Semantic, holderRoles: parseJson<string[]>(row.service_roles), edgeRouterRoles: parseJson<string[]>(row.edge_router_roles) }));
      }),
  };
}
