/**
 * What a client may do with a service, for the client API's sessions (issue 15, items 2 and 3;
 * docs/decisions/0031-edge-sessions.md), asked of the one policy engine (decision 0025) and the one posture evaluator
 * (decision 0029):
 * - whether the caller may see the service at all (an administrator sees every service, anyone else those a Dial or
 *   Bind policy gives it), asked as the client's `GET /services/{id}` asks it; otherwise 404, worded alike for a
 *   service that does not exist;
 * - whether it may open a session of a type: some service policy of that type selects both the identity and the
 *   service, and every posture check of at least one such policy passes for this API session (facts §A3 "Posture
 *   gating": any policy, all of its checks); otherwise 403 saying which of the two failed and, for posture, which checks;
 * - the edge routers it may reach the service through: those the identity's edge router policies and the service's
 *   service edge router policies both select.
 */
import type { EdgeRouter } from '../../domain/edge-router.js';
import type { PostureState } from '../../domain/posture-response.js';
import type { ServicePolicyType } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { ListQuery } from '../../persistence/query/list-query.js';
import type { EdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import type { RouterStatusReader } from '../routers/presence.js';
import { routersWithStatus } from '../routers/with-router-status.js';
import { withinEvery } from '../../persistence/repositories/edge-sessions.js';
import type { RoleHolder } from '../../policy/roles.js';
import type { Clock } from '../../shared/clock.js';
import type { AuthContext } from '../authentication/request-auth.js';
import { membershipOf, type PolicyEngine } from '../authorization/engine.js';
import { evaluateCheck } from '../posture/index.js';

/** The caller as these questions need it. */
export type Caller = Pick<AuthContext, 'kind' | 'session' | 'identity'>;

/** A service as sessions need it: what policies match, and its name for the session's view. */
export type NamedHolder = RoleHolder & { name: string };

/** Why a session of a type is refused, or nothing when it is allowed. */
export type Refusal = { reason: 'policy' } | { reason: 'posture'; failed: Array<{ id: string; queryType: string }> };

export interface SessionAccess {
  /** The service when the caller may see it; 404 NOT_FOUND otherwise, as for an id of nothing. */
  visibleService(caller: Caller, serviceId: string): Promise<RoleHolder>;
  /**
   * The service as the engine sees it, or undefined when it is gone: from the in-memory index, else (created a moment
   * ago on another controller) from the store.
   */
  service(caller: Caller, serviceId: string): Promise<NamedHolder | undefined>;
  /**
   * Why the caller may not open (or keep) a session of `type` for the service, or undefined when it may. `state` is
   * the API session's posture, read once per request by the caller of this (`posture.stateOf`).
   */
  refusal(caller: Pick<Caller, 'identity'>, serviceId: string, type: ServicePolicyType, state: () => Promise<PostureState>): Promise<Refusal | undefined>;
  /** A page of the edge routers the caller may reach the service through, under `query`. */
  routers(caller: Caller, service: RoleHolder, query: ListQuery): Promise<{ items: EdgeRouter[]; totalCount: number }>;
}

/** The refusal as the 403 a client sees: what failed, never which policies exist. */
export function refusalError(refusal: Refusal, serviceId: string, type: ServicePolicyType): ApiError {
  if (refusal.reason === 'policy') {
    return new ApiError('FORBIDDEN', {
      message: `No service policy lets this identity ${type} the service '${serviceId}'`,
      cause: { field: 'type', reason: `no service policy grants ${type}`, value: type },
    });
  }
  const named = refusal.failed.map((check) => `${check.id} (${check.queryType})`).join(', ');
  return new ApiError('FORBIDDEN', {
    message: `The posture checks required to ${type} the service '${serviceId}' do not pass for this API session: ${named}`,
    cause: { field: 'serviceId', reason: 'posture checks fail', value: serviceId, postureChecks: refusal.failed },
  });
}

export function createSessionAccess(deps: {
  engine: Pick<PolicyEngine, 'entity' | 'policiesSelecting' | 'visibleService' | 'postureChecks' | 'commonRouters'>;
  routers: Pick<EdgeRouterRepository, 'list'>;
  clock: Clock;
  /** Routers' online status; without it every router reads as never connected. */
  status?: RouterStatusReader;
}): SessionAccess {
  const { engine, routers, clock, status } = deps;

  // The words of the client's `GET /services/{id}` (client-services.ts), for an id of nothing and an unseen service alike.
  const notFound = (serviceId: string) =>
    new ApiError('NOT_FOUND', { message: `No service the caller may see has the id '${serviceId}'`, cause: { field: 'id', value: serviceId } });

  async function service(caller: Caller, serviceId: string): Promise<NamedHolder | undefined> {
    const kept = await engine.visibleService(caller.identity, serviceId, true);
    if (kept) return kept.service;
    return engine.entity('service', serviceId).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    });
  }

  return {
    service,
    async visibleService(caller, serviceId) {
      // The one definition of "may see", the client's service list's (decision 0032): nothing about existence leaks.
      const visible = await engine.visibleService(caller.identity, serviceId, caller.identity.isAdmin);
      if (!visible) throw notFound(serviceId);
      return visible.service;
    },

    async refusal(caller, serviceId, type, state) {
      // The grants, and the checks their policies name, from the engine's in-memory index (the caller's identity is
      // the authentication's copy, kept current by the change feed).
      const visible = await engine.visibleService(caller.identity, serviceId, false);
      const granting = (visible?.grants ?? []).filter((grant) => grant.type === type);
      if (granting.length === 0) return { reason: 'policy' };
      // A policy without checks passes; then nothing needs reading.
      if (granting.some((grant) => grant.postureCheckIds.length === 0)) return undefined;
      const ids = [...new Set(granting.flatMap((grant) => grant.postureCheckIds))];
      const checks = new Map((await engine.postureChecks(ids)).map((check) => [check.id, check]));
      const posture = await state();
      const now = clock.now();
      const outcomes = new Map<string, boolean>();
      for (const id of ids) {
        const check = checks.get(id);
        // A check deleted since the index named it fails closed; the next request no longer sees it.
        outcomes.set(id, check !== undefined && evaluateCheck(check, posture, now).isPassing);
      }
      if (granting.some((grant) => grant.postureCheckIds.every((id) => outcomes.get(id) === true))) return undefined;
      const failed = ids.filter((id) => outcomes.get(id) !== true).map((id) => ({ id, queryType: checks.get(id)?.typeId ?? 'UNKNOWN' }));
      return { reason: 'posture', failed };
    },

    async routers(caller, service, query) {
      const page = await commonRouters(caller, service, query);
      // One presence read for the page, whichever way its routers were found (decision 0064).
      return status ? { ...page, items: await routersWithStatus(page.items, status) } : page;
    },
  };

  async function commonRouters(caller: Caller, service: RoleHolder, query: ListQuery): Promise<{ items: EdgeRouter[]; totalCount: number }> {
    const kept = await engine.commonRouters(caller.identity, service, query);
    if (kept) return kept;
    const byIdentity = await engine.policiesSelecting('edge-router-policy', 'identity', caller.identity);
    if (byIdentity.length === 0) return { items: [], totalCount: 0 };
    const byService = await engine.policiesSelecting('service-edge-router-policy', 'service', service);
    if (byService.length === 0) return { items: [], totalCount: 0 };
    // Both memberships as one SQL condition over the router table, ANDed with the client's filter by the list.
    return routers.list(query, withinEvery('edge-router', [membershipOf(byIdentity, 'edge-router'), membershipOf(byService, 'edge-router')]));
  }
}
