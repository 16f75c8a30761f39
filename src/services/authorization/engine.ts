/**
 * The one policy engine (issue 14; docs/decisions/0025-authorization-model.md): who may dial or bind which services,
 * through which posture checks; which edge routers identities and services may use; which policies apply to an
 * entity. Every related list and every check asks here; nothing else decides membership.
 *
 * Each answer takes three steps and never expands policies into pairs:
 * 1. the entity's candidate policies, read from the role index by its id, its attributes and `#all`;
 * 2. each candidate decided exactly by `matchesRoles` (policy/roles.ts, the one definition of a match);
 * 3. the other side of the matched policies as one membership condition, which the store combines with the
 *    client's filter, sort and paging (or checks one entity against with `matchesRoles`).
 * The hot question, an identity's services in list order, is answered from the in-memory service reach index
 * instead (service-reach.ts, decision 0028), which follows the store's change log; the store answers it when the
 * client filters or sorts otherwise. Either way a change shows in the next answer on every controller.
 */
import type { PolicySide, PolicyType, RoleTarget, ServicePolicy, ServicePolicyType } from '../../domain/policy.js';
import type { PostureCheck } from '../../domain/posture-check.js';
import type { EdgeRouter } from '../../domain/edge-router.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type FieldMap, type ListQuery, type RawListParams } from '../../persistence/query/list-query.js';
import { ROLE_ENTITY_FIELDS, type Membership, type PolicyEngineStore, type PolicyOfType, type RoleEntity } from '../../persistence/repositories/policy-engine.js';
import { matchesRoles, parseRoles, type RoleHolder } from '../../policy/roles.js';
import type { ListPage } from '../list-page.js';
import type { ReachGrant, ReachOrder, ReachService, ServiceReachState } from '../../policy/service-reach-state.js';
import type { ServiceReach } from './service-reach.js';

export type { RoleEntity } from '../../persistence/repositories/policy-engine.js';

type AnyPolicy = PolicyOfType[PolicyType];

/** The role list of `policy` on `side`. */
export function rolesOn(policy: AnyPolicy, side: PolicySide): string[] {
  const lists: Partial<Record<PolicySide, string[]>> = {
    identity: 'identityRoles' in policy ? policy.identityRoles : undefined,
    service: 'serviceRoles' in policy ? policy.serviceRoles : undefined,
    'edge-router': 'edgeRouterRoles' in policy ? policy.edgeRouterRoles : undefined,
    'posture-check': 'postureCheckRoles' in policy ? policy.postureCheckRoles : undefined,
  };
  return lists[side] ?? [];
}

/** Whether `holder` is selected by `policy`'s roles on `side`, under the policy's semantic. */
export function policySelects(policy: AnyPolicy, side: PolicySide, holder: RoleHolder): boolean {
  return matchesRoles(parseRoles(rolesOn(policy, side)), policy.semantic, holder);
}

/** The entities the `side` roles of `policies` select, together (a union), as one membership. */
export function membershipOf(policies: readonly AnyPolicy[], side: PolicySide): Membership {
  const membership: Membership = { all: false, ids: [], anyOf: [], allOf: [] };
  const groups = new Map<string, string[]>();
  for (const policy of policies) {
    const roles = parseRoles(rolesOn(policy, side));
    membership.all ||= roles.all;
    membership.ids.push(...roles.ids);
    // One attribute of an AllOf policy is the same as any of one.
    if (policy.semantic === 'AnyOf' || roles.attributes.length === 1) membership.anyOf.push(...roles.attributes);
    else if (roles.attributes.length > 1) {
      const group = [...new Set(roles.attributes)].sort();
      groups.set(JSON.stringify(group), group);
    }
  }
  return { all: membership.all, ids: [...new Set(membership.ids)], anyOf: [...new Set(membership.anyOf)], allOf: [...groups.values()] };
}

/** The policy kind and sides that relate two entity types. */
interface Relation {
  policyType: PolicyType;
  from: PolicySide;
  to: PolicySide;
}

const LABELS: Record<RoleTarget, string> = { identity: 'identity', service: 'service', 'edge-router': 'edge router', 'posture-check': 'posture check' };
const POLICY_LABELS: Record<PolicyType, string> = {
  'service-policy': 'service policy',
  'edge-router-policy': 'edge router policy',
  'service-edge-router-policy': 'service edge router policy',
};

/** Which policies relate `from` to `to`: service policies identities↔services, ERPs identities↔routers, SERPs services↔routers. */
function relation(from: RoleTarget, to: RoleTarget): Relation {
  const pair = `${from}>${to}`;
  if (pair === 'identity>service' || pair === 'service>identity') return { policyType: 'service-policy', from, to };
  if (pair === 'identity>edge-router' || pair === 'edge-router>identity') return { policyType: 'edge-router-policy', from, to };
  if (pair === 'service>edge-router' || pair === 'edge-router>service') return { policyType: 'service-edge-router-policy', from, to };
  throw new Error(`no policy relates ${from} to ${to}`);
}

export interface AccessDecision {
  allowed: boolean;
  /** The policies of the type that select both the identity and the service, each with the posture checks it requires. */
  policies: { policy: ServicePolicy; postureChecks: RoleEntity[] }[];
}

/** A service policy granting an identity a service, with the ids of the posture checks it names. */
export type ServiceGrant = ReachGrant;
/** A service as the in-memory index holds it: whole, and never changed once handed out. */
export type { ReachService };

export interface GrantedService {
  /** The service whole, as the in-memory index holds it (never to be changed). */
  service: ReachService;
  grants: ServiceGrant[];
}

export interface VisibleServicesOptions {
  fields: FieldMap;
  everyService: boolean;
  within: readonly Membership[];
}

export interface PolicyEngine {
  /** The entity, or 404 NOT_FOUND naming its type and id. */
  entity(target: RoleTarget, id: string): Promise<RoleEntity>;
  /** The policies of `policyType` that select `holder` on `side` (service policies of `type` only, when given). */
  policiesSelecting<P extends PolicyType>(policyType: P, side: PolicySide, holder: RoleHolder, type?: ServicePolicyType): Promise<PolicyOfType[P][]>;
  /**
   * The `to` entities related to entity `id` of type `from` through their policies (identity→services through
   * service policies of `type` or both, identity→edge routers through ERPs, service→edge routers through SERPs, and
   * back), one page under the client's list parameters. 404 when the entity does not exist.
   */
  related(from: RoleTarget, id: string, to: RoleTarget, params: RawListParams, type?: ServicePolicyType): Promise<ListPage<RoleEntity>>;
  /** The policies of `policyType` that apply to entity `id` of type `target`, one page. 404 when it does not exist. */
  policiesOf<P extends PolicyType>(target: RoleTarget, id: string, policyType: P, params: RawListParams): Promise<ListPage<PolicyOfType[P]>>;
  /** The entities policy `policyId` selects on `side`, one page. 404 when the policy does not exist. */
  members(policyType: PolicyType, policyId: string, side: PolicySide, params: RawListParams): Promise<ListPage<RoleEntity>>;
  /** Whether identity `identityId` may `type` service `serviceId`, and through which policies and posture checks. */
  access(identityId: string, serviceId: string, type: ServicePolicyType): Promise<AccessDecision>;
  /**
   * One page of the services `identity` may dial or bind (every service when `everyService`: an administrator's
   * view), under the client's list parameters on `fields` and within every membership of `within` (a role filter),
   * each with the service policies that grant the identity it. From the in-memory index when nothing narrows it.
   */
  visibleServices(identity: RoleHolder, params: RawListParams, options: VisibleServicesOptions): Promise<ListPage<GrantedService>>;
  /**
   * Service `serviceId` with the policies that grant `identity` it, when the identity may see it: it may dial or
   * bind it, or `everyService` (an administrator). Undefined otherwise, or when there is no such service.
   */
  visibleService(identity: RoleHolder, serviceId: string, everyService: boolean): Promise<GrantedService | undefined>;
  /**
   * One page of the edge routers through which `identity` may reach `service` (those an edge router policy selecting
   * the identity and a service edge router policy selecting the service both name), from the in-memory index, when
   * `query` has no filter and a list order the index keeps; undefined otherwise (the store answers then).
   */
  commonRouters(identity: RoleHolder, service: RoleHolder, query: ListQuery): Promise<{ items: EdgeRouter[]; totalCount: number } | undefined>;
  /** The posture checks among `ids` that exist, whole, from the in-memory index (the ids grants name). */
  postureChecks(ids: readonly string[]): Promise<PostureCheck[]>;
  /**
   * The version of the index (any change anywhere moves it), when the newest change it holds was made, and the
   * fingerprint of `identity`'s service list (policy/service-reach-state.ts `fingerprint`) read from it, unless the
   * version is still `knownVersion` (then nothing changed and the fingerprint is not computed).
   */
  serviceListState(
    identity: RoleHolder,
    knownVersion: number | undefined,
    options?: { strict?: boolean },
  ): Promise<ServiceListState>;
  /**
   * The same answer (not strict) at once when the index needs no read of the log; undefined otherwise, and always on
   * a shared store, where every poll reads the log.
   */
  serviceListStateFromMemory(identity: RoleHolder, knownVersion: number | undefined): ServiceListState | undefined;
  /** The edge routers usable by the identity, by the service, and by both (counts), and up to `limit` common ones. */
  routers(identityId: string, serviceId: string, limit: number): Promise<{ identityCount: number; serviceCount: number; commonCount: number; common: RoleEntity[] }>;
}

/** What an identity's service list is at the index's version (its fingerprint only when the version is not `knownVersion`). */
export interface ServiceListState {
  version: number;
  fingerprint: string | undefined;
  newestChangeAt: number;
}

/** Read together, with no pause between: the fingerprint belongs to the version given with it. */
function listStateOf(index: ServiceReachState, identity: RoleHolder, knownVersion: number | undefined): ServiceListState {
  const fingerprint = index.seq === knownVersion ? undefined : index.fingerprint(identity);
  return { version: index.seq, fingerprint, newestChangeAt: index.newestChangeAt };
}

/**
 * The engine over its store.
 *
 * @example const page = await engine.related('identity', id, 'service', { limit: '100' }, 'Dial');
 */
export function createPolicyEngine(deps: {
  store: PolicyEngineStore;
  reach: ServiceReach;
  /** Whether other controllers may write the store (PostgreSQL): service updates then read the log on each poll. */
  sharedStore?: boolean;
}): PolicyEngine {
  const { store, reach: serviceReach } = deps;
  const strictUpdates = deps.sharedStore ?? true;

  async function entity(target: RoleTarget, id: string): Promise<RoleEntity> {
    const found = await store.entity(target, id);
    if (!found) throw new ApiError('NOT_FOUND', { message: `No ${LABELS[target]} has the id '${id}'`, cause: { field: 'id', value: id } });
    return found;
  }

  async function policiesSelecting<P extends PolicyType>(policyType: P, side: PolicySide, holder: RoleHolder, type?: ServicePolicyType): Promise<PolicyOfType[P][]> {
    const candidates = await store.candidates(policyType, side, holder);
    return candidates.filter((policy) => (type === undefined || (policy as ServicePolicy).type === type) && policySelects(policy, side, holder));
  }

  const page = <T>(query: ListQuery, fields: string[], result: { items: T[]; totalCount: number }): ListPage<T> => ({
    items: result.items,
    pagination: { limit: query.limit, offset: query.offset, totalCount: result.totalCount },
    filterableFields: fields,
  });

  /** The membership on `to` of the entity `holder` of type `from`. */
  async function reach(from: RoleTarget, holder: RoleHolder, to: RoleTarget, type?: ServicePolicyType): Promise<Membership> {
    const { policyType } = relation(from, to);
    return membershipOf(await policiesSelecting(policyType, from, holder, type), to);
  }

  return {
    entity,
    policiesSelecting,
    async related(from, id, to, params, type) {
      const query = parseListParams(params, ROLE_ENTITY_FIELDS);
      const order = indexedOrder(query);
      if (from === 'identity' && to === 'service' && order) {
        const index = await serviceReach.current();
        const found = index.page(await entity(from, id), type, order.order, order.descending, query.offset, query.limit);
        // The index's own objects, read-only to everyone: no copy per request.
        const items: RoleEntity[] = found.items.map(({ service }) => service);
        return page(query, Object.keys(ROLE_ENTITY_FIELDS), { items, totalCount: found.totalCount });
      }
      const membership = await reach(from, await entity(from, id), to, type);
      return page(query, Object.keys(ROLE_ENTITY_FIELDS), await store.listEntities(to, query, [membership]));
    },
    async visibleServices(identity, params, options) {
      const query = parseListParams(params, options.fields);
      const index = await serviceReach.current();
      const order = indexedOrder(query);
      let ids: string[];
      let totalCount: number;
      if (!options.everyService && options.within.length === 0 && order) {
        const found = index.page(identity, undefined, order.order, order.descending, query.offset, query.limit);
        ids = found.items.map((item) => item.service.id);
        totalCount = found.totalCount;
        // (The page's services come from the same index below.)
      } else {
        const within = options.everyService ? options.within : [await reach('identity', identity, 'service'), ...options.within];
        const result = await store.listEntities('service', query, within, options.fields);
        ids = result.items.map((item) => item.id);
        totalCount = result.totalCount;
      }
      const grants = index.grants(identity, ids);
      // A service the store listed but the index does not hold yet (created a moment ago) waits for the next page.
      const items = ids.flatMap((id) => {
        const service = index.serviceById(id);
        return service ? [{ service, grants: grants.get(id) ?? [] }] : [];
      });
      return page(query, Object.keys(options.fields), { items, totalCount });
    },
    async visibleService(identity, serviceId, everyService) {
      const index = await serviceReach.current();
      const service = index.serviceById(serviceId);
      const grants = index.grants(identity, [serviceId]).get(serviceId) ?? [];
      return service && (grants.length > 0 || everyService) ? { service, grants } : undefined;
    },
    async commonRouters(identity, service, query) {
      const order = indexedOrder(query);
      if (!order) return undefined;
      const index = await serviceReach.current();
      return index.routers.common(identity, service, order.order, order.descending, query.offset, query.limit);
    },
    async postureChecks(ids) {
      const index = await serviceReach.current();
      return ids.flatMap((id) => index.contents.postureCheck(id) ?? []);
    },
    async serviceListState(identity, knownVersion, options) {
      // Strict on a shared store: every controller must answer the same time for the same store, or a client
      // polling through a load balancer could see it move back. A controller alone on its store knows its changes
      // at commit (and another process's, such as the CLI's, within the feed's bound), so it answers from memory.
      return listStateOf(await serviceReach.current({ strict: strictUpdates || options?.strict === true }), identity, knownVersion);
    },
    serviceListStateFromMemory(identity, knownVersion) {
      const index = strictUpdates ? undefined : serviceReach.currentFromMemory();
      return index && listStateOf(index, identity, knownVersion);
    },
    async policiesOf(target, id, policyType, params) {
      const query = parseListParams(params, store.policyFields(policyType));
      const policies = await policiesSelecting(policyType, target, await entity(target, id));
      return page(query, Object.keys(store.policyFields(policyType)), await store.listPolicies(policyType, query, policies.map((p) => p.id)));
    },
    async members(policyType, policyId, side, params) {
      const query = parseListParams(params, ROLE_ENTITY_FIELDS);
      const policy = await store.policy(policyType, policyId);
      if (!policy) throw new ApiError('NOT_FOUND', { message: `No ${POLICY_LABELS[policyType]} has the id '${policyId}'`, cause: { field: 'id', value: policyId } });
      return page(query, Object.keys(ROLE_ENTITY_FIELDS), await store.listEntities(side, query, [membershipOf([policy], side)]));
    },
    async access(identityId, serviceId, type) {
      const identity = await entity('identity', identityId);
      const index = await serviceReach.current();
      // The index says which policies grant it; the store gives them whole, and their checks, in one read each.
      if (index.serviceById(serviceId)) {
        const grants = (index.grants(identity, [serviceId]).get(serviceId) ?? []).filter((grant) => grant.type === type);
        if (grants.length === 0) return { allowed: false, policies: [] };
        const { items: policies } = await store.listPolicies('service-policy', everything(), grants.map((grant) => grant.id));
        const checkIds = new Map(policies.map((policy) => [policy.id, index.postureCheckIds(policy.id)]));
        const wanted = [...new Set([...checkIds.values()].flat())];
        const checks = wanted.length === 0 ? [] : (await store.listEntities('posture-check', everything(), [{ all: false, ids: wanted, anyOf: [], allOf: [] }])).items;
        const withChecks = policies.map((policy) => ({ policy, postureChecks: checks.filter((check) => checkIds.get(policy.id)?.includes(check.id)) }));
        return { allowed: withChecks.length > 0, policies: withChecks };
      }
      // Not in the index (no such service, or created a moment ago): the store decides, and answers 404 for none.
      const service = await entity('service', serviceId);
      const policies = (await policiesSelecting('service-policy', 'identity', identity, type)).filter((policy) => policySelects(policy, 'service', service));
      const withChecks = [];
      for (const policy of policies) {
        const checks = await store.listEntities('posture-check', everything(), [membershipOf([policy], 'posture-check')]);
        withChecks.push({ policy, postureChecks: checks.items });
      }
      return { allowed: policies.length > 0, policies: withChecks };
    },
    async routers(identityId, serviceId, limit) {
      const [identity, service] = [await entity('identity', identityId), await entity('service', serviceId)];
      const byIdentity = await reach('identity', identity, 'edge-router');
      const byService = await reach('service', service, 'edge-router');
      const common = await store.listEntities('edge-router', { ...everything(), limit }, [byIdentity, byService]);
      return {
        identityCount: await store.countEntities('edge-router', [byIdentity]),
        serviceCount: await store.countEntities('edge-router', [byService]),
        commonCount: common.totalCount,
        common: common.items,
      };
    },
  };
}

/**
 * The in-memory order that reads out `query`'s page, when there is one: no filter, and the lists' default sort
 * (`createdAt, id`) or `name` either way (names are unique, so reversing the order is the descending sort).
 */
function indexedOrder(query: ListQuery): { order: ReachOrder; descending: boolean } | undefined {
  if (query.where !== undefined) return undefined;
  const [first, second, ...rest] = query.sort;
  if (rest.length > 0 || second?.field !== 'id' || second.direction !== 'asc') return undefined;
  if (first?.field === 'createdAt' && first.direction === 'asc') return { order: 'createdAt', descending: false };
  if (first?.field === 'name') return { order: 'name', descending: first.direction === 'desc' };
  return undefined;
}

/** The first page of the largest size, by name: for answers the server reads whole (posture checks of a policy). */
function everything(): ListQuery {
  return parseListParams({ limit: -1, sort: 'name' }, ROLE_ENTITY_FIELDS);
}

