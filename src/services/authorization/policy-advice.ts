/**
 * "Why can't X reach S?" (`GET /identities/{id}/policy-advice/{serviceId}`; reference `policyAdvice`): whether the
 * identity may dial and bind the service, the edge routers each may use and those they share, and, our addition,
 * the reasons in plain words, naming the policies, posture checks and sides involved. Every fact comes from the
 * policy engine; this module only words them.
 */
import type { ServicePolicyType } from '../../domain/policy.js';
import type { RouterStatus } from '../../domain/edge-router.js';
import type { RouterStatusReader } from '../routers/presence.js';
import type { AccessDecision, PolicyEngine, RoleEntity } from './engine.js';

/** At most this many common routers are listed (all are counted). */
export const MAX_ADVISED_ROUTERS = 500;

export interface PolicyAdvice {
  identity: RoleEntity;
  service: RoleEntity;
  dial: AccessDecision;
  bind: AccessDecision;
  identityRouterCount: number;
  serviceRouterCount: number;
  commonRouterCount: number;
  commonRouters: { router: RoleEntity; isOnline: boolean }[];
  reasons: string[];
}

export interface PolicyAdviceService {
  /** 404 NOT_FOUND when either the identity or the service does not exist. */
  advise(identityId: string, serviceId: string): Promise<PolicyAdvice>;
}

const quoted = (names: readonly string[]) => names.map((name) => `'${name}'`).join(', ');

/**
 * @param status routers' online status, asked once for all the common routers listed; without it every router
 * reads offline, and the reasons say so.
 */
export function createPolicyAdviceService(deps: { engine: PolicyEngine; status?: RouterStatusReader }): PolicyAdviceService {
  const { engine, status } = deps;

  /** Why `type` is allowed or not, and which posture checks stand in the way. */
  async function accessReasons(identity: RoleEntity, service: RoleEntity, type: ServicePolicyType, decision: AccessDecision): Promise<string[]> {
    const who = `identity '${identity.name}'`;
    const what = `service '${service.name}'`;
    if (!decision.allowed) {
      const forIdentity = await engine.policiesSelecting('service-policy', 'identity', identity, type);
      if (forIdentity.length === 0) return [`No ${type} service policy selects ${who}, so it may not ${type.toLowerCase()} ${what}.`];
      const forService = await engine.policiesSelecting('service-policy', 'service', service, type);
      const serviceSide = forService.length === 0 ? `no ${type} policy selects ${what} at all` : `${what} is selected only by ${quoted(forService.map((p) => p.name))}`;
      return [`${type} service policies ${quoted(forIdentity.map((p) => p.name))} select ${who} but not ${what} (${serviceSide}).`];
    }
    const free = decision.policies.filter((entry) => entry.postureChecks.length === 0);
    if (free.length > 0) return [`${type} is allowed by ${quoted(decision.policies.map((entry) => entry.policy.name))}; ${quoted(free.map((e) => e.policy.name))} require no posture check.`];
    return decision.policies.map(
      (entry) => `${type} through policy '${entry.policy.name}' requires the posture checks ${quoted(entry.postureChecks.map((check) => check.name))} to pass.`,
    );
  }

  function routerReasons(advice: Omit<PolicyAdvice, 'reasons'>): string[] {
    const who = `identity '${advice.identity.name}'`;
    const what = `service '${advice.service.name}'`;
    const reasons: string[] = [];
    if (advice.identityRouterCount === 0) reasons.push(`No edge router policy gives ${who} an edge router.`);
    if (advice.serviceRouterCount === 0) reasons.push(`No service edge router policy gives ${what} an edge router.`);
    if (reasons.length > 0) return reasons;
    if (advice.commonRouterCount === 0) {
      return [
        `${who} may use ${advice.identityRouterCount} edge router(s) and ${what} ${advice.serviceRouterCount}, but none is in both: ` +
          'an edge router policy and a service edge router policy must select the same router.',
      ];
    }
    if (!advice.commonRouters.some((entry) => entry.isOnline)) {
      return [
        `${advice.commonRouterCount} edge router(s) serve both, but no common router is online (a router is online while its control channel to a controller is up).`,
      ];
    }
    return [];
  }

  return {
    async advise(identityId, serviceId) {
      const [identity, service] = [await engine.entity('identity', identityId), await engine.entity('service', serviceId)];
      const dial = await engine.access(identityId, serviceId, 'Dial');
      const bind = await engine.access(identityId, serviceId, 'Bind');
      const routers = await engine.routers(identityId, serviceId, MAX_ADVISED_ROUTERS);
      const online = status ? await status.statusOf(routers.common.map((router) => router.id)) : new Map<string, RouterStatus>();
      const advice = {
        identity,
        service,
        dial,
        bind,
        identityRouterCount: routers.identityCount,
        serviceRouterCount: routers.serviceCount,
        commonRouterCount: routers.commonCount,
        commonRouters: routers.common.map((router) => ({ router, isOnline: online.get(router.id)?.isOnline ?? false })),
      };
      const reasons = [
        ...(await accessReasons(identity, service, 'Dial', dial)),
        ...(await accessReasons(identity, service, 'Bind', bind)),
        ...routerReasons(advice),
      ];
      return { ...advice, reasons };
    },
  };
}
