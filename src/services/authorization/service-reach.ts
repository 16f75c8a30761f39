/**
 * Keeps this controller's in-memory service reach index (policy/service-reach-state.ts; decision 0028) as current
 * as the store, for every controller sharing it.
 *
 * The index reads the change log after the last change it applied and re-reads just the services and service
 * policies those changes name, so a change costs work in proportion to what it touched. With the change feed
 * (decision 0035) it reads the log only when the feed has told of a change to what it holds (at commit on this
 * controller, within the feed's bound from the others) or when the feed is not fresh; without one, before each answer. It rebuilds from the whole store when it starts, when
 * it has fallen behind what the log keeps (a gap in the numbers), or after a bulk load ('*').
 *
 * Answers that arrive while the log is being read wait for the read that starts after them: one that began earlier
 * might have missed a change committed just before the answer was asked for.
 */
import type { AuthorizationChange, ChangedEntity } from '../../persistence/repositories/authorization-changes.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import type { ServiceReachSource } from '../../persistence/repositories/service-reach-source.js';
import { RouterReachState } from '../../policy/router-reach-state.js';
import { ServiceReachState } from '../../policy/service-reach-state.js';

/** More changes than this at once are applied by rebuilding instead. */
const MAX_CHANGES = 1_000;
/** The entities a client's service list shows: their newest change dates the list's (service updates). */
const LISTED: ReadonlySet<ChangedEntity> = new Set(['service', 'service-policy', 'config', 'config-type', 'posture-check', '*']);
/**
 * The entities the index holds: those listed, and the edge routers and router policies that say which routers a
 * client reaches a service through (the log also carries the authentication cache's).
 */
const FOLLOWED = ['service', 'service-policy', 'config', 'config-type', 'posture-check', 'edge-router', 'edge-router-policy', 'service-edge-router-policy'] as const;
const INDEXED: ReadonlySet<ChangedEntity> = new Set([...FOLLOWED, '*']);

export interface ServiceReach {
  /**
   * The index with every change committed on this controller before the call, and those of other controllers
   * within the change feed's bound; `strict`: also every change any controller committed before the call (one read
   * of the log), for answers that must agree between controllers whichever one is asked (service updates).
   */
  current(options?: { strict?: boolean }): Promise<ServiceReachState>;
  /** The index at once when `current()` would answer it without reading the log; else undefined. */
  currentFromMemory(): ServiceReachState | undefined;
}

export function createServiceReach(deps: { source: ServiceReachSource; feed?: ChangeFeed }): ServiceReach {
  const { source, feed } = deps;
  let state: ServiceReachState | undefined;
  let running: Promise<ServiceReachState> | undefined;
  let queued: Promise<ServiceReachState> | undefined;
  // Changes to indexed entities the feed has told of, and how many of them the last read of the log began after.
  let told = 0;
  let applied = -1;
  feed?.subscribe((event) => {
    if (event.kind === 'changes' && !event.changes.some((change) => INDEXED.has(change.entityType))) {
      // Nothing the index holds changed up to `through`, and every change it was told of is applied: it is current up
      // to there. Moving its mark keeps it inside what the log keeps while other changes (logins, logouts) fill it.
      if (state && event.through !== undefined && !running && applied === told) state.seq = Math.max(state.seq, event.through);
      return;
    }
    told++;
    // Followed at once, so the index never falls further behind than the log keeps; a failure is retried on demand.
    void current().catch(() => undefined);
  });

  async function rebuild(): Promise<ServiceReachState> {
    // The mark is read first: a change committed while the rows are read is applied again later, which is harmless.
    const newest = await source.changes.latest();
    const [services, policies, configs, configTypes, checks, routers, routerPolicies, serviceRouterPolicies] = await Promise.all([
      source.services(),
      source.servicePolicies(),
      source.configs(),
      source.configTypes(),
      source.postureChecks(),
      source.edgeRouters(),
      source.edgeRouterPolicies(),
      source.serviceEdgeRouterPolicies(),
    ]);
    const built = ServiceReachState.build(newest.seq, services, policies);
    built.routers = RouterReachState.build(routers, routerPolicies, serviceRouterPolicies);
    for (const config of configs) built.contents.putConfig(config);
    for (const type of configTypes) built.contents.putConfigType(type);
    for (const check of checks) built.contents.putPostureCheck(check);
    built.newestChangeAt = newest.changedAt;
    return built;
  }

  async function sync(): Promise<ServiceReachState> {
    const begun = told;
    const synced = await read();
    applied = begun;
    return synced;
  }

  async function read(): Promise<ServiceReachState> {
    if (!state) return (state = await rebuild());
    const changes = await source.changes.since(state.seq, MAX_CHANGES + 1, [...INDEXED]);
    const first = changes[0];
    if (!first) return state;
    const rebuilds = changes.length > MAX_CHANGES || changes.some((change) => change.entityType === '*');
    if (rebuilds || (await source.changes.missedAfter(state.seq, first))) return (state = await rebuild());
    const named = (type: string) => changes.filter((change) => change.entityType === type).map((change) => change.entityId);
    // In FOLLOWED's order.
    const [serviceIds, policyIds, configIds, typeIds, checkIds, routerIds, routerPolicyIds, serviceRouterPolicyIds] = FOLLOWED.map(named) as [
      string[],
      string[],
      string[],
      string[],
      string[],
      string[],
      string[],
      string[],
    ];
    const [services, policies, configs, types, checks, routers, routerPolicies, serviceRouterPolicies] = await Promise.all([
      source.services(serviceIds),
      source.servicePolicies(policyIds),
      source.configs(configIds),
      source.configTypes(typeIds),
      source.postureChecks(checkIds),
      source.edgeRouters(routerIds),
      source.edgeRouterPolicies(routerPolicyIds),
      source.serviceEdgeRouterPolicies(serviceRouterPolicyIds),
    ]);
    // Applied without a pause, so no answer sees half of it: gone ones removed, current ones put back.
    const current = state;
    for (const id of serviceIds) current.removeService(id);
    for (const service of services) current.putService(service);
    for (const id of policyIds) current.removePolicy(id);
    for (const policy of policies) current.putPolicy(policy);
    const { contents } = current;
    for (const id of configIds) contents.removeConfig(id);
    for (const config of configs) contents.putConfig(config);
    for (const id of typeIds) contents.removeConfigType(id);
    for (const type of types) contents.putConfigType(type);
    for (const id of checkIds) contents.removePostureCheck(id);
    for (const check of checks) contents.putPostureCheck(check);
    const reach = current.routers;
    for (const id of routerIds) reach.removeRouter(id);
    for (const router of routers) reach.putRouter(router);
    for (const id of routerPolicyIds) reach.removeEdgeRouterPolicy(id);
    for (const policy of routerPolicies) reach.putEdgeRouterPolicy(policy);
    for (const id of serviceRouterPolicyIds) reach.removeServiceEdgeRouterPolicy(id);
    for (const policy of serviceRouterPolicies) reach.putServiceEdgeRouterPolicy(policy);
    current.seq = (changes[changes.length - 1] as AuthorizationChange).seq;
    for (const change of changes) if (LISTED.has(change.entityType)) current.newestChangeAt = Math.max(current.newestChangeAt, change.changedAt);
    return current;
  }

  /** Nothing the index holds has changed since the last read of the log began: no read needed. */
  const upToDate = () => (state && !running && feed?.fresh() && applied === told ? state : undefined);

  function current(options?: { strict?: boolean }): Promise<ServiceReachState> {
    const known = options?.strict ? undefined : upToDate();
    if (known) return Promise.resolve(known);
    if (!running) {
      running = sync().finally(() => (running = undefined));
      return running;
    }
    // One read after the running one serves everyone who asked meanwhile.
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return current();
      });
    return queued;
  }

  return { current, currentFromMemory: upToDate };
}
