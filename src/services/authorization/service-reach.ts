/**
 * Keeps this controller's in-memory service reach index (policy/service-reach-state.ts; decision 0028) as current
 * as the store, for every controller sharing it.
 *
 * Before each answer the index reads the change log after the last change it applied (one indexed read) and
 * re-reads just the services and service policies those changes name, so a change costs work in proportion to what
 * it touched, and is in the next answer on every controller. It rebuilds from the whole store when it starts, when
 * it has fallen behind what the log keeps (a gap in the numbers), or after a bulk load ('*').
 *
 * Answers that arrive while the log is being read wait for the read that starts after them: one that began earlier
 * might have missed a change committed just before the answer was asked for.
 */
import type { AuthorizationChange } from '../../persistence/repositories/authorization-changes.js';
import type { ServiceReachSource } from '../../persistence/repositories/service-reach-source.js';
import { ServiceReachState } from '../../policy/service-reach-state.js';

/** More changes than this at once are applied by rebuilding instead. */
const MAX_CHANGES = 1_000;

export interface ServiceReach {
  /** The index with every change committed before the call. */
  current(): Promise<ServiceReachState>;
}

export function createServiceReach(deps: { source: ServiceReachSource }): ServiceReach {
  const { source } = deps;
  let state: ServiceReachState | undefined;
  let running: Promise<ServiceReachState> | undefined;
  let queued: Promise<ServiceReachState> | undefined;

  async function rebuild(): Promise<ServiceReachState> {
    // The mark is read first: a change committed while the rows are read is applied again later, which is harmless.
    const newest = await source.changes.latest();
    const [services, policies, configs, configTypes, checks] = await Promise.all([
      source.services(),
      source.servicePolicies(),
      source.configs(),
      source.configTypes(),
      source.postureChecks(),
    ]);
    const built = ServiceReachState.build(newest.seq, services, policies);
    for (const config of configs) built.contents.putConfig(config);
    for (const type of configTypes) built.contents.putConfigType(type);
    for (const check of checks) built.contents.putPostureCheck(check);
    built.newestChangeAt = newest.changedAt;
    return built;
  }

  async function sync(): Promise<ServiceReachState> {
    if (!state) return (state = await rebuild());
    const changes = await source.changes.since(state.seq, MAX_CHANGES + 1);
    if (changes.length === 0) return state;
    const gap = (changes[0]?.seq ?? 0) !== state.seq + 1;
    if (gap || changes.length > MAX_CHANGES || changes.some((change) => change.entityType === '*')) return (state = await rebuild());
    const named = (type: string) => changes.filter((change) => change.entityType === type).map((change) => change.entityId);
    const [serviceIds, policyIds, configIds, typeIds, checkIds] = ['service', 'service-policy', 'config', 'config-type', 'posture-check'].map(named) as [string[], string[], string[], string[], string[]];
    const [services, policies, configs, types, checks] = await Promise.all([
      source.services(serviceIds),
      source.servicePolicies(policyIds),
      source.configs(configIds),
      source.configTypes(typeIds),
      source.postureChecks(checkIds),
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
    const newest = changes[changes.length - 1] as AuthorizationChange;
    current.seq = newest.seq;
    current.newestChangeAt = Math.max(current.newestChangeAt, newest.changedAt);
    return current;
  }

  function current(): Promise<ServiceReachState> {
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

  return { current };
}
