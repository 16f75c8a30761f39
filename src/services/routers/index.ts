/**
 * The routers domain's builders: an edge router's own certificate operations (enrollment with its one-time token,
 * certificate extension), its presence (online status, what its hello reported), and what the control plane asks of
 * the store (buildRouterControl). Router administration stays in ../authorization (edge-routers.ts).
 */
import type { StatusEvents } from '../status-events/status-events.js';
import type { Database } from '../../persistence/database.js';
import { createRouterCertificateRepository } from '../../persistence/repositories/router-certificates.js';
import { createRouterPresenceRepository } from '../../persistence/repositories/router-presence.js';
import { certificateAltNames } from '../../pki/csr-names.js';
import type { LoadedCertificateAuthority, x509 } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { ControllerMetrics } from '../metrics/controller-metrics.js';
import { createRouterPresence, type RegisteringRouterPresence } from './presence.js';
import { hostKey } from './router-csrs.js';
import { createRouterEnrollmentService, type RouterEnrollmentService } from './router-enrollment.js';
import { createRouterControlService, type RouterControlService } from './router-control.js';
import type { RevocationSources } from './revocation-watch.js';
import { createApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import { createOidcRepository, type OidcRepository } from '../../persistence/repositories/oidc.js';
import { createIdentityRepository, type IdentityRepository } from '../../persistence/repositories/identities.js';
import { createCertificateFingerprintRepository } from '../../persistence/repositories/certificate-fingerprints.js';
import { createSdkSessions } from './sdk-sessions.js';
import { createSdkDial } from './sdk-dial.js';
import { createHostedTerminatorCheck, type HostedTerminatorCheck } from './hosted-terminators.js';
import { createEdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import { createSessionAccess } from '../edge-sessions/session-access.js';
import type { PostureService } from '../posture/index.js';
import { randomUnit } from '../../shared/random.js';
import { createLinkRepository } from '../../persistence/repositories/links.js';
import { createCircuitRepository } from '../../persistence/repositories/circuits.js';
import { createServiceRepository } from '../../persistence/repositories/services.js';
import { createHostConfigRepository } from '../../persistence/repositories/host-configs.js';
import { createLinkService } from './links.js';
import { createHostedServices } from './hosted-services.js';
import type { RouterPresence } from './presence.js';
import { recordChange } from '../../persistence/repositories/authorization-changes.js';
import { createEdgeConnections, queuedChanges, type EdgeConnections } from './edge-connections.js';

export type { RouterEnrollmentService } from './router-enrollment.js';
export type { RouterControlService } from './router-control.js';
export { watchRevocations, type RevocationSources } from './revocation-watch.js';
export type { RegisteringRouterPresence, RouterHello, RouterPresence, RouterStatusReader } from './presence.js';
export { UnknownRouterError } from './presence.js';
export type { EdgeConnections } from './edge-connections.js';
export { InvalidHelloError } from './hello-check.js';

/**
 * `serverCertificates`: the controller's own server certificates (every listener's), whose names no router may
 * hold; `extraHosts`: further names of the controller (its advertised API address); `allowLocalNames`:
 * `edge.enrollment.edgeRouter.allowLocalNames` (decision 0056).
 */
export function buildRouterEnrollment(
  database: Database,
  settings: {
    clock: Clock;
    signingCa: LoadedCertificateAuthority | undefined;
    caPems: readonly string[];
    serverCertificates: readonly x509.X509Certificate[];
    extraHosts: readonly string[];
    allowLocalNames: boolean;
  },
): RouterEnrollmentService {
  const names = [...settings.extraHosts, ...settings.serverCertificates.flatMap((cert) => {
    const { dns, ip } = certificateAltNames(cert);
    return [...dns, ...ip];
  })];
  return createRouterEnrollmentService({
    routers: createRouterCertificateRepository(database),
    changes: auditedChanges(database, settings.clock, createRouterCertificateRepository),
    signingCa: settings.signingCa,
    caPems: settings.caPems,
    serverNames: { controllerHosts: new Set(names.map(hostKey)), allowLocalNames: settings.allowLocalNames },
    clock: settings.clock,
  });
}

/**
 * What the control plane needs of the store (decision 0062): routers by certificate and id, the trust state, router
 * terminators and dial decisions, and the revocation sources the change feed is classified with.
 */
export function buildRouterControl(
  database: Database,
  deps: Omit<Parameters<typeof createRouterControlService>[0], 'routers' | 'sessions' | 'activity' | 'dial' | 'links' | 'circuits' | 'hostedServices'> & {
    /** Routers' presence: path choice reads every router's status from it (one query). */
    presence: Pick<RouterPresence, 'routingRouters'>;
    /** The posture evaluator's state of an API session (the posture domain's). */
    posture: Pick<PostureService, 'stateOf'>;
    /** Legacy session activity (the sessions domain's): what routers report, and what this controller saw unwritten. */
    activity: { seen(sessionId: string, at: Date): void; pending(sessionId: string): Date | undefined };
    /** The legacy API sessions' inactivity timeout (`edge.api.sessionTimeout`). */
    sessionTimeoutMs: number;
    /**
     * The authentication cache's identities and OIDC sessions (auth-lookups.ts), current within the change feed's
     * bound: dials read them as `POST /sessions` does; without them, the store.
     */
    cached?: { identities: Pick<IdentityRepository, 'findById'>; oidc: Pick<OidcRepository, 'findSession'> };
  },
): { service: RouterControlService; sources: RevocationSources; hosted: HostedTerminatorCheck } {
  const routers = createRouterCertificateRepository(database);
  const apiSessions = createApiSessionRepository(database);
  const oidc = createOidcRepository(database);
  const identities = createIdentityRepository(database);
  const sessionDeps = {
    apiSessions,
    oidc,
    identities,
    fingerprints: createCertificateFingerprintRepository(database),
    activity: deps.activity,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    clock: deps.clock,
  };
  // A router's ApiSessionCheck (once per SDK channel) reads the store; dials read what request authentication reads.
  const sessions = createSdkSessions(sessionDeps);
  const dialIdentities = deps.cached?.identities ?? identities;
  const links = createLinkService({ links: createLinkRepository(database), routers: deps.presence, clock: deps.clock });
  const circuits = createCircuitRepository(database);
  const services = createServiceRepository(database);
  const edgeRouters = createEdgeRouterRepository(database);
  const dial = createSdkDial({
    sessions: createSdkSessions({ ...sessionDeps, identities: dialIdentities, oidc: deps.cached?.oidc ?? oidc }),
    identities: dialIdentities,
    access: createSessionAccess({ engine: deps.engine, routers: edgeRouters, clock: deps.clock }),
    engine: deps.engine,
    posture: deps.posture,
    terminators: deps.terminators,
    serviceIdByName: async (name) => (await services.findByName(name))?.id,
    graph: () => links.graph(),
    record: (circuit) => circuits.insert(circuit),
    random: randomUnit,
    clock: deps.clock,
  });
  const hostedServices = createHostedServices({
    engine: deps.engine,
    hostConfigs: createHostConfigRepository(database),
    tunnelerEnabled: async (routerId) => (await edgeRouters.findById(routerId))?.isTunnelerEnabled === true,
  });
  return {
    service: createRouterControlService({ ...deps, routers, sessions, dial, links, circuits, hostedServices }),
    hosted: createHostedTerminatorCheck({ terminators: deps.terminators, engine: deps.engine }),
    sources: {
      apiSessionLive: async (id) => (await apiSessions.findById(id)) !== undefined,
      oidcSessionLive: async (id) => {
        const session = await oidc.findSession(id);
        return session !== undefined && session.revokedAt === null;
      },
      async identityState(id) {
        const identity = await identities.findById(id);
        if (!identity) return 'deleted';
        const disabledNow = identity.disabled && (identity.disabledUntil === null || identity.disabledUntil.getTime() > deps.clock.now().getTime());
        return disabledNow ? 'disabled' : 'active';
      },
    },
  };
}

/**
 * Router presence at this controller (seam 5): built before the controller registers, since the domains that show
 * routers read their status from it; `registerAs` (or `controllerId` here) names the registered controller before
 * the control plane reports channels. `metrics` hears how many are up here.
 */
export function buildRouterPresence(
  database: Database,
  deps: { clock: Clock; controllerId?: string; metrics?: Pick<ControllerMetrics, 'setRoutersOnline'>; statusEvents?: StatusEvents },
): RegisteringRouterPresence {
  const { metrics, statusEvents } = deps;
  const presence = createRouterPresence({
    presence: createRouterPresenceRepository(database),
    clock: deps.clock,
    ...(metrics ? { onChange: (count: number) => metrics.setRoutersOnline(count) } : {}),
    ...(statusEvents
      ? { onRouter: (id: string, isOnline: boolean, version?: string) => statusEvents.publish({ kind: 'router', id, isOnline, ...(version ? { version } : {}), at: deps.clock.now() }) }
      : {}),
  });
  if (deps.controllerId !== undefined) presence.registerAs(deps.controllerId);
  return presence;
}

/**
 * The identities with SDK channels at the routers connected here (issue 45; decision 0083). Each identity whose
 * connected state flips is written as an `identity-presence` change, so every controller's status stream (this one's
 * at commit) reads it again.
 */
export function buildEdgeConnections(database: Database, deps: { onError(error: unknown): void }): EdgeConnections {
  const note = queuedChanges((identityId) => recordChange(database, 'identity-presence', identityId), deps.onError);
  return createEdgeConnections({ onChange: (identityId) => note(identityId) });
}
