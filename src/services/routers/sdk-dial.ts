/**
 * The dial decision a router asks for when an SDK dials a service (issue 42; docs/control-protocol.md "DialRequest"):
 * decided again at every dial, so a policy, attribute or posture change takes effect at the next one without a
 * sweep. The identity must have Dial access and, as `POST /sessions` decides it (session-access.ts, the one
 * evaluator), every posture check of at least one granting policy must pass for the API session named. The
 * terminator is one on the asking router (links between routers come with issue 43), chosen by the service's
 * terminator strategy (policy/terminator-strategy.ts).
 */
import type { DialAnswer, DialRequest } from '../../control-protocol/bodies.js';
import { DEFAULT_TERMINATOR_STRATEGY } from '../../domain/service.js';
import { postureStateOf, type PostureState } from '../../domain/posture-response.js';
import { ApiError } from '../../errors/api-error.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
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
  terminators: Pick<TerminatorService, 'listOnRouter'>;
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

  return async function dial(router, request) {
    const { identityId } = request;
    const serviceId = request.serviceId;
    if (serviceId === undefined) throw new RouterRequestError('BAD_MESSAGE', 'DialRequest: body.serviceId is required');
    // Read beside the decision: most dials are allowed, and the candidates are needed then.
    const candidates = deps.terminators.listOnRouter(serviceId, router.id);
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
    const strategy = granted?.service.terminatorStrategy ?? DEFAULT_TERMINATOR_STRATEGY;
    const chosen = chooseTerminator(await candidates, strategy, deps.random);
    if (!chosen) throw new RouterRequestError('NOT_FOUND', `Service '${serviceId}' has no terminator on this router: nothing hosts it here`);
    return {
      circuitId: newEntityId(),
      serviceId,
      serviceName: granted?.service.name ?? serviceId,
      encryptionRequired: granted?.service.encryptionRequired ?? false,
      terminator: { id: chosen.id, routerId: chosen.routerId, binding: chosen.binding, address: chosen.address, instanceId: chosen.identity },
      path: [router.id],
      links: [],
    };
  };
}
