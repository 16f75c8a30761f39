/**
 * The dial decision a router asks for when an SDK dials a service, or a proxy-mode tunnel listener opens a
 * connection (issues 42 and 43; docs/control-protocol.md "DialRequest"; decision 0070): decided again at every dial,
 * so a policy, attribute or posture change takes effect at the next one without a sweep. The identity must have Dial
 * access and, as `POST /sessions` decides it (session-access.ts, the one evaluator), every posture check of at least
 * one granting policy must pass for the API session named. The terminator is one of the service's on an online
 * router reachable from the asking router over usable links (policy/router-paths.ts), chosen by precedence and then
 * the service's terminator strategy (policy/terminator-strategy.ts) with the path's cost added for `smartrouting` and
 * `ha`. The circuit is recorded before it is answered.
 */
import type { DialAnswer, DialRequest } from '../../control-protocol/bodies.js';
import { DEFAULT_TERMINATOR_STRATEGY } from '../../domain/service.js';
import type { Circuit } from '../../domain/fabric.js';
import type { Terminator } from '../../domain/terminator.js';
import { postureStateOf, type PostureState } from '../../domain/posture-response.js';
import { ApiError } from '../../errors/api-error.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { cheapestPaths, type RouterPath, type RoutingGraph } from '../../policy/router-paths.js';
import { chooseTerminator } from '../../policy/terminator-strategy.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
import { judgePrincipal } from '../authentication/principal.js';
import type { PolicyEngine } from '../authorization/engine.js';
import type { TerminatorService } from '../authorization/terminators.js';
import type { SessionAccess } from '../edge-sessions/session-access.js';
import type { PostureService } from '../posture/index.js';
import { RouterRequestError } from './router-request-error.js';
import type { SdkSessions } from './sdk-sessions.js';

export type SdkDial = (router: { id: string }, request: DialRequest) => Promise<DialAnswer>;

/** The posture of a dial that names no API session: nothing reported, so every check fails closed. */
const NOTHING_REPORTED: PostureState = postureStateOf([], null, false);

export function createSdkDial(deps: {
  sessions: Pick<SdkSessions, 'byId'>;
  identities: Pick<IdentityRepository, 'findById'>;
  access: Pick<SessionAccess, 'refusal'>;
  engine: Pick<PolicyEngine, 'visibleService' | 'entity'>;
  posture: Pick<PostureService, 'stateOf'>;
  terminators: Pick<TerminatorService, 'listForService'>;
  /** A service's id by its name (a dial may name the service either way). */
  serviceIdByName: (name: string) => Promise<string | undefined>;
  /** The routing graph (links.ts: read at most once a second, or now when `fresh`). */
  graph: (options?: { fresh?: boolean }) => Promise<RoutingGraph>;
  /** Records the circuit the answer opens. */
  record: (circuit: Circuit) => Promise<void>;
  /** A number in [0, 1): shared/random.ts's randomUnit in the controller. */
  random: () => number;
  clock: Clock;
}): SdkDial {
  /** The dialing identity, with the posture of its API session when the request names one. */
  async function dialer(request: DialRequest) {
    const { identityId, apiSessionId } = request;
    if (apiSessionId !== undefined) {
      const found = await deps.sessions.byId(apiSessionId, identityId);
      if (found.identity.id !== identityId) throw new RouterRequestError('NOT_ALLOWED', `API session '${apiSessionId}' is not a session of identity '${identityId}'`);
      return { identity: found.identity, state: () => deps.posture.stateOf(found), postureOf: `API session '${apiSessionId}'` };
    }
    const principal = judgePrincipal(await deps.identities.findById(identityId), undefined, deps.clock.now());
    if (!principal.ok) throw new RouterRequestError(principal.reason === 'missing' ? 'NOT_FOUND' : 'NOT_ALLOWED', `Identity '${identityId}': ${principal.description}`);
    return { identity: principal.identity, state: async () => NOTHING_REPORTED, postureOf: 'a dial naming no API session' };
  }

  async function serviceExists(serviceId: string): Promise<boolean> {
    return deps.engine.entity('service', serviceId).then(
      () => true,
      (error: unknown) => {
        if (error instanceof ApiError && error.code === 'NOT_FOUND') return false;
        throw error;
      },
    );
  }

  /** The terminators among `wanted` on online routers (how many) and those with a path from `routerId`. */
  function routesIn(graph: RoutingGraph, routerId: string, wanted: Terminator[]) {
    // The asking router is online: it asks over its channel (its presence row may not be written yet).
    const online = wanted.filter((t) => t.routerId === routerId || graph.routers.get(t.routerId)?.online === true);
    const paths = cheapestPaths(graph, routerId);
    const found = online.flatMap((terminator) => {
      const route = paths.get(terminator.routerId);
      return route ? [{ terminator, route }] : [];
    });
    return { online: online.length, found };
  }

  /** The service's id: exactly one of `serviceId` and `serviceName`. */
  async function serviceIdOf(request: DialRequest): Promise<string> {
    if ((request.serviceId === undefined) === (request.serviceName === undefined)) {
      throw new RouterRequestError('BAD_MESSAGE', 'DialRequest body: exactly one of serviceId and serviceName must be given');
    }
    if (request.serviceId !== undefined) return request.serviceId;
    const id = await deps.serviceIdByName(request.serviceName as string);
    if (id === undefined) throw new RouterRequestError('NOT_FOUND', `No service has the name '${request.serviceName}'`);
    return id;
  }

  /** The terminators the dial may go to, each with its path; NOT_FOUND saying why there is none. */
  async function reachable(routerId: string, serviceId: string, request: DialRequest, all: Terminator[]): Promise<Array<{ terminator: Terminator; route: RouterPath }>> {
    const excluded = new Set(request.exclude ?? []);
    const wanted = all.filter((t) => !excluded.has(t.id) && (request.instanceId === undefined || t.identity === request.instanceId));
    if (all.length === 0) throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' has no terminator: nothing hosts it`);
    if (wanted.length === 0) {
      const which = request.instanceId !== undefined ? `of instance '${request.instanceId}'` : 'besides those excluded';
      throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' has no terminator ${which}`);
    }
    // A graph up to a second old serves a dial that finds a way; a refusal reads the graph again first (a router
    // that came online within that second would otherwise be refused).
    const cached = routesIn(await deps.graph(), routerId, wanted);
    const { online, found } = cached.found.length > 0 ? cached : routesIn(await deps.graph({ fresh: true }), routerId, wanted);
    if (online === 0) throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' has terminators only on routers that are offline`);
    if (found.length === 0) throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' is hosted only on routers this router has no usable path to (no links up between them)`);
    return found;
  }

  return async function dial(router, request) {
    const { identityId } = request;
    const serviceId = await serviceIdOf(request);
    // Read beside the decision: most dials are allowed, and the candidates are needed then.
    const candidates = deps.terminators.listForService(serviceId);
    candidates.catch(() => undefined);
    const { identity, state, postureOf } = await dialer(request);
    const refusal = await deps.access.refusal({ identity }, serviceId, 'Dial', state);
    if (refusal?.reason === 'policy') {
      if (!(await serviceExists(serviceId))) throw new RouterRequestError('NOT_FOUND', `No service has the id '${serviceId}'`);
      throw new RouterRequestError('NOT_ALLOWED', `Identity '${identityId}' may not dial service '${serviceId}': no service policy grants Dial`);
    }
    if (refusal?.reason === 'posture') {
      const failed = refusal.failed.map((check) => `${check.id} (${check.queryType})`).join(', ');
      throw new RouterRequestError('NOT_ALLOWED', `Identity '${identityId}' may not dial service '${serviceId}': posture checks fail for ${postureOf}: ${failed}`);
    }
    const granted = await deps.engine.visibleService(identity, serviceId, false);
    if (!granted) throw new RouterRequestError('NOT_FOUND', `No service has the id '${serviceId}'`);
    const strategy = granted.service.terminatorStrategy ?? DEFAULT_TERMINATOR_STRATEGY;
    const options = await reachable(router.id, serviceId, request, await candidates);
    // The path's cost counts where the strategy ranks by cost; `weighted` and `random` spread load whatever the path.
    const byPath = strategy !== 'weighted' && strategy !== 'random';
    const chosen = chooseTerminator(
      options.map((option) => ({ ...option, precedence: option.terminator.precedence, cost: option.terminator.cost + (byPath ? option.route.cost : 0) })),
      strategy,
      deps.random,
    );
    if (!chosen) throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' has no terminator this router can reach`);
    const { terminator, route } = chosen;
    const circuitId = newEntityId();
    await deps.record({
      id: circuitId,
      serviceId,
      identityId,
      apiSessionId: request.apiSessionId ?? null,
      terminatorId: terminator.id,
      ingressRouterId: router.id,
      egressRouterId: terminator.routerId,
      path: route.path,
      links: route.links,
      createdAt: deps.clock.now(),
    });
    return {
      circuitId,
      serviceId,
      serviceName: granted.service.name,
      encryptionRequired: granted.service.encryptionRequired,
      terminator: { id: terminator.id, routerId: terminator.routerId, binding: terminator.binding, address: terminator.address, instanceId: terminator.identity },
      path: route.path,
      links: route.links,
    } satisfies DialAnswer;
  };
}
