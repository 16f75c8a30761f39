/**
 * Authorization networks for tests and the benchmark seeder: identities, services, edge routers, posture checks and
 * the three kinds of policy, generated from a seeded PRNG and written straight into the store with their index rows
 * (built by role-index.ts, the same functions the repositories use), in large batches inside one transaction.
 * `bruteForce` answers every question by evaluating every policy on every pair with `matchesRoles`: the reference the
 * engine is compared against. Builders return values and never assert.
 */
import type { Kysely } from 'kysely';
import type { ServicePolicyType } from '../../src/domain/policy.js';
import type { Database } from '../../src/persistence/database.js';
import { attributeRows, policyRoleRows, type AttributeHolder } from '../../src/persistence/repositories/role-index.js';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import type { Tables } from '../../src/persistence/tables.js';
import { atomically } from '../../src/persistence/unit-of-work.js';
import { matchesRoles, parseRoles, type Semantic } from '../../src/policy/roles.js';

export interface NetEntity {
  id: string;
  name: string;
  roleAttributes: string[];
}

interface NetPolicy {
  id: string;
  name: string;
  semantic: Semantic;
}

export interface NetServicePolicy extends NetPolicy {
  type: ServicePolicyType;
  identityRoles: string[];
  serviceRoles: string[];
  postureCheckRoles: string[];
}

export interface NetEdgeRouterPolicy extends NetPolicy {
  identityRoles: string[];
  edgeRouterRoles: string[];
}

export interface NetServiceEdgeRouterPolicy extends NetPolicy {
  serviceRoles: string[];
  edgeRouterRoles: string[];
}

export interface AuthzNetwork {
  identities: NetEntity[];
  services: NetEntity[];
  routers: NetEntity[];
  postureChecks: NetEntity[];
  servicePolicies: NetServicePolicy[];
  edgeRouterPolicies: NetEdgeRouterPolicy[];
  serviceEdgeRouterPolicies: NetServiceEdgeRouterPolicy[];
}

export interface NetworkSizes {
  identities: number;
  services: number;
  routers: number;
  postureChecks: number;
  servicePolicies: number;
  edgeRouterPolicies: number;
  serviceEdgeRouterPolicies: number;
  /** Distinct attributes per entity type. */
  attributes: number;
  /** Most attributes an entity holds. */
  maxAttributesPerEntity: number;
  /** Chance that a role list is `#all`. */
  allChance: number;
  /** Prefix of every id and name, so several networks can share a store. */
  prefix?: string;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same network. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function someOf<T>(random: () => number, items: readonly T[], most: number): T[] {
  const count = Math.floor(random() * (most + 1));
  return [...new Set(Array.from({ length: count }, () => pick(random, items)))];
}

/** A random network of the given sizes. */
export function randomNetwork(random: () => number, sizes: NetworkSizes): AuthzNetwork {
  const prefix = sizes.prefix ?? 'n';
  // Built once per kind: a pool per entity would cost entities x attributes strings at benchmark sizes.
  const poolsByKind = new Map<string, string[]>();
  const pools = (kind: string): string[] => {
    const known = poolsByKind.get(kind);
    if (known) return known;
    const made = Array.from({ length: sizes.attributes }, (_, i) => `${kind}-a${i}`);
    poolsByKind.set(kind, made);
    return made;
  };
  const entities = (kind: string, count: number): NetEntity[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `${prefix}-${kind}-${i}`,
      name: `${prefix}-${kind}-${String(i).padStart(7, '0')}`,
      roleAttributes: someOf(random, pools(kind), sizes.maxAttributesPerEntity),
    }));
  const network = {
    identities: entities('identity', sizes.identities),
    services: entities('service', sizes.services),
    routers: entities('router', sizes.routers),
    postureChecks: entities('check', sizes.postureChecks),
  };
  /** A role list: sometimes `#all`, else attributes and `@id`s of the kind. */
  const roles = (kind: string, of: NetEntity[], allowAll = true): string[] => {
    if (allowAll && random() < sizes.allChance) return ['#all'];
    const attributes = someOf(random, pools(kind), 3).map((a) => `#${a}`);
    const ids = of.length === 0 || random() < 0.6 ? [] : someOf(random, of, 2).map((e) => `@${e.id}`);
    return [...attributes, ...ids];
  };
  const semantic = (): Semantic => (random() < 0.5 ? 'AllOf' : 'AnyOf');
  const policy = (kind: string, i: number) => ({ id: `${prefix}-${kind}-${i}`, name: `${prefix}-${kind}-${String(i).padStart(6, '0')}`, semantic: semantic() });
  return {
    ...network,
    servicePolicies: Array.from({ length: sizes.servicePolicies }, (_, i) => ({
      ...policy('sp', i),
      type: random() < 0.5 ? 'Dial' : 'Bind',
      identityRoles: roles('identity', network.identities),
      serviceRoles: roles('service', network.services),
      postureCheckRoles: random() < 0.5 ? [] : roles('check', network.postureChecks, false),
    })),
    edgeRouterPolicies: Array.from({ length: sizes.edgeRouterPolicies }, (_, i) => ({
      ...policy('erp', i),
      identityRoles: roles('identity', network.identities),
      edgeRouterRoles: roles('router', network.routers),
    })),
    serviceEdgeRouterPolicies: Array.from({ length: sizes.serviceEdgeRouterPolicies }, (_, i) => ({
      ...policy('serp', i),
      serviceRoles: roles('service', network.services),
      edgeRouterRoles: roles('router', network.routers),
    })),
  };
}

/** Inserts `rows` into `table` in batches that stay under both dialects' bound-parameter limits. */
async function insertAll(db: Kysely<Tables>, table: keyof Tables, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const perBatch = Math.max(1, Math.floor(30_000 / Object.keys(rows[0] as object).length));
  for (let i = 0; i < rows.length; i += perBatch) {
    await (db as unknown as Kysely<Record<string, Record<string, unknown>>>).insertInto(table).values(rows.slice(i, i + perBatch)).execute();
  }
}

/** Writes `network` into the store with its index rows, in one transaction. */
export async function insertNetwork(database: Database, network: AuthzNetwork, at = new Date()): Promise<void> {
  const now = at.toISOString();
  const base = (e: NetEntity) => ({ id: e.id, name: e.name, role_attributes: JSON.stringify(e.roleAttributes), tags: '{}', created_at: now, updated_at: now });
  const attributes = (type: AttributeHolder, entities: NetEntity[]) => entities.flatMap((e) => attributeRows(type, e.id, e.roleAttributes));
  const policyBase = (p: NetPolicy) => ({ id: p.id, name: p.name, semantic: p.semantic, tags: '{}', created_at: now, updated_at: now });
  await atomically(database.db, async (db) => {
    // Many rows at once: every controller's in-memory index rebuilds rather than follow them one by one.
    await recordChange({ ...database, db }, '*', '');
    await insertAll(
      db,
      'identities',
      network.identities.map((e) => ({
        ...base(e),
        type_id: 'Default',
        is_admin: false,
        is_default_admin: false,
        auth_policy_id: null,
        external_id: null,
        disabled: false,
        disabled_at: null,
        disabled_until: null,
      })),
    );
    await insertAll(db, 'services', network.services.map(base));
    await insertAll(db, 'edge_routers', network.routers.map(base));
    await insertAll(db, 'posture_checks', network.postureChecks.map((e) => ({ ...base(e), type_id: 'MFA', body: JSON.stringify({ timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false }) })));
    await insertAll(db, 'entity_attributes', [
      ...attributes('identity', network.identities),
      ...attributes('service', network.services),
      ...attributes('edge-router', network.routers),
      ...attributes('posture-check', network.postureChecks),
    ]);
    const json = JSON.stringify;
    await insertAll(
      db,
      'service_policies',
      network.servicePolicies.map((p) => ({ ...policyBase(p), type: p.type, identity_roles: json(p.identityRoles), service_roles: json(p.serviceRoles), posture_check_roles: json(p.postureCheckRoles) })),
    );
    await insertAll(
      db,
      'edge_router_policies',
      network.edgeRouterPolicies.map((p) => ({ ...policyBase(p), identity_roles: json(p.identityRoles), edge_router_roles: json(p.edgeRouterRoles), is_system: false })),
    );
    await insertAll(
      db,
      'service_edge_router_policies',
      network.serviceEdgeRouterPolicies.map((p) => ({ ...policyBase(p), service_roles: json(p.serviceRoles), edge_router_roles: json(p.edgeRouterRoles) })),
    );
    await insertAll(db, 'policy_roles', [
      ...network.servicePolicies.flatMap((p) =>
        policyRoleRows('service-policy', p.id, { identity: p.identityRoles, service: p.serviceRoles, 'posture-check': p.postureCheckRoles }),
      ),
      ...network.edgeRouterPolicies.flatMap((p) => policyRoleRows('edge-router-policy', p.id, { identity: p.identityRoles, 'edge-router': p.edgeRouterRoles })),
      ...network.serviceEdgeRouterPolicies.flatMap((p) =>
        policyRoleRows('service-edge-router-policy', p.id, { service: p.serviceRoles, 'edge-router': p.edgeRouterRoles }),
      ),
    ]);
  });
}

const matches = (roles: string[], semantic: Semantic, entity: NetEntity) => matchesRoles(parseRoles(roles), semantic, entity);
const ids = (entities: NetEntity[]) => entities.map((e) => e.id).sort();

/** Every answer by brute force: each policy evaluated on each pair with `matchesRoles`. Lists are sorted ids. */
export function bruteForce(network: AuthzNetwork) {
  const sps = (type?: ServicePolicyType) => network.servicePolicies.filter((p) => type === undefined || p.type === type);
  return {
    servicesOf: (identity: NetEntity, type?: ServicePolicyType) =>
      ids(network.services.filter((s) => sps(type).some((p) => matches(p.identityRoles, p.semantic, identity) && matches(p.serviceRoles, p.semantic, s)))),
    identitiesOf: (service: NetEntity, type?: ServicePolicyType) =>
      ids(network.identities.filter((i) => sps(type).some((p) => matches(p.identityRoles, p.semantic, i) && matches(p.serviceRoles, p.semantic, service)))),
    routersOfIdentity: (identity: NetEntity) =>
      ids(network.routers.filter((r) => network.edgeRouterPolicies.some((p) => matches(p.identityRoles, p.semantic, identity) && matches(p.edgeRouterRoles, p.semantic, r)))),
    routersOfService: (service: NetEntity) =>
      ids(network.routers.filter((r) => network.serviceEdgeRouterPolicies.some((p) => matches(p.serviceRoles, p.semantic, service) && matches(p.edgeRouterRoles, p.semantic, r)))),
    identitiesOfRouter: (router: NetEntity) =>
      ids(network.identities.filter((i) => network.edgeRouterPolicies.some((p) => matches(p.identityRoles, p.semantic, i) && matches(p.edgeRouterRoles, p.semantic, router)))),
    servicesOfRouter: (router: NetEntity) =>
      ids(network.services.filter((s) => network.serviceEdgeRouterPolicies.some((p) => matches(p.serviceRoles, p.semantic, s) && matches(p.edgeRouterRoles, p.semantic, router)))),
    mayAccess: (identity: NetEntity, service: NetEntity, type: ServicePolicyType) =>
      sps(type).some((p) => matches(p.identityRoles, p.semantic, identity) && matches(p.serviceRoles, p.semantic, service)),
    servicePoliciesOfIdentity: (identity: NetEntity) => network.servicePolicies.filter((p) => matches(p.identityRoles, p.semantic, identity)).map((p) => p.id).sort(),
    servicePolicyMembers: (policy: NetServicePolicy) => ({
      identities: ids(network.identities.filter((i) => matches(policy.identityRoles, policy.semantic, i))),
      services: ids(network.services.filter((s) => matches(policy.serviceRoles, policy.semantic, s))),
      postureChecks: ids(network.postureChecks.filter((c) => matches(policy.postureCheckRoles, policy.semantic, c))),
    }),
  };
}
