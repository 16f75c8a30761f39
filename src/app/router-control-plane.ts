/**
 * Composes the controller's control plane for routers (issue 41; decision 0062): the TLS listener on `ctrl.listener`,
 * the router control service over the store, the revocation watch on the change feed, and the timers that keep the
 * trust state and the endpoints routers hold current. Kept apart from controller.ts, which only calls it.
 */
import type { Logger } from 'pino';
import { startControlPlane, type ControlPlane } from '../control-plane/control-plane.js';
import type { ControlPlaneMetrics } from '../control-plane/metrics.js';
import type { Database } from '../persistence/database.js';
import type { IdentityRepository } from '../persistence/repositories/identities.js';
import type { OidcRepository } from '../persistence/repositories/oidc.js';
import type { ChangeFeed } from '../services/change-feed/change-feed.js';
import type { ControllerService } from '../services/controllers/controllers.js';
import { buildRouterControl, watchRevocations } from '../services/routers/index.js';
import type { EdgeConnections } from '../services/routers/index.js';
import type { RouterPresence } from '../services/routers/presence.js';
import type { Services } from '../services/services.js';
import { startPeriodic } from '../shared/periodic.js';
import type { Clock } from '../shared/clock.js';

/** How often the signing keys and the list of controllers are read again, to follow rotations and membership. */
const REFRESH_INTERVAL_MS = 10_000;
/**
 * How often the online routers are read again for the Peers push: routers connected to other controllers of the
 * store are seen within this (those here at once). One query for all routers; a router is sent only what changed.
 */
const PEERS_POLL_MS = 2_000;

export interface RouterControlPlane {
  readonly plane: ControlPlane;
  /** Tells the plane the CAs changed (the CA watch calls it with the new set). */
  casChanged(pems: string[]): void;
  close(): Promise<void>;
}

export async function startRouterControlPlane(deps: {
  database: Database;
  listen: { host: string; port: number };
  tls: { key: string; cert: string; ca: readonly string[] };
  controller: { id: string; name: string };
  apiOrigin: string;
  /** The `iss` values the controllers sharing the store sign tokens with. */
  issuers: readonly string[];
  services: Services;
  controllers: ControllerService;
  presence: RouterPresence;
  /** Identities with SDK channels at the routers connected here: what routers report in IdentityConnections. */
  connections: EdgeConnections;
  feed: ChangeFeed;
  activity: { seen(sessionId: string, at: Date): void; pending(sessionId: string): Date | undefined };
  /** The legacy API sessions' inactivity timeout. */
  sessionTimeoutMs: number;
  /** The authentication cache's identities and OIDC sessions, which dial decisions read. */
  cached: { identities: Pick<IdentityRepository, 'findById'>; oidc: Pick<OidcRepository, 'findSession'> };
  metrics: ControlPlaneMetrics;
  log: Logger;
  clock: Clock;
}): Promise<RouterControlPlane> {
  const { services, log } = deps;
  let clientCas = [...deps.tls.ca];
  const { service, sources, hosted } = buildRouterControl(deps.database, {
    clock: deps.clock,
    presence: deps.presence,
    terminators: services.authorization.terminators,
    engine: services.authorization.engine,
    posture: services.posture,
    ...(services.oidc ? { jwks: async () => ({ keys: (await services.oidc!.jwks()).keys as unknown as Record<string, unknown>[] }) } : {}),
    issuers: deps.issuers,
    clientCaPems: async () => clientCas,
    activity: deps.activity,
    connections: deps.connections,
    sessionTimeoutMs: deps.sessionTimeoutMs,
    cached: deps.cached,
  });

  async function endpoints() {
    const page = await deps.controllers.list({ filter: 'isOnline = true', limit: '500' });
    const ctrl = page.items.map((c) => c.ctrlAddress).filter((address): address is string => typeof address === 'string');
    return { ctrl: ctrl.length > 0 ? ctrl : [], api: deps.apiOrigin };
  }

  const plane = await startControlPlane({
    listen: deps.listen,
    tls: deps.tls,
    controller: deps.controller,
    service,
    presence: deps.presence,
    endpoints,
    metrics: deps.metrics,
    log,
  });
  const warn = (what: string) => (error: unknown) => log.warn({ err: error }, `${what}; routers keep what they have`);
  const stopWatch = watchRevocations({
    feed: deps.feed,
    sources,
    clock: deps.clock,
    listener: {
      revocations: (items) => plane.revoke(items),
      routerChanged: (id) => void plane.recheck(id).catch(warn('a router standing could not be read')),
      trustChanged: () => void plane.refreshTrust().catch(warn('the trust state could not be read')),
      hostsMayHaveLostAccess: (hostId) => void hosted.recheck(hostId).catch(warn('the SDK-bound terminators could not be checked again')),
    },
    onError: warn('a revocation could not be classified'),
  });
  const refresh = startPeriodic(
    async () => {
      await plane.refreshTrust();
      await plane.refreshEndpoints();
    },
    { intervalMs: REFRESH_INTERVAL_MS, onError: warn('the trust state or endpoints could not be read') },
  );
  const peers = startPeriodic(() => plane.refreshPeers(), { intervalMs: PEERS_POLL_MS, onError: warn('the online routers could not be read for the peers push') });
  log.info({ address: `tls:${plane.address.host}:${plane.address.port}` }, `routers connect to tls:${plane.address.host}:${plane.address.port}`);

  return {
    plane,
    casChanged(pems) {
      clientCas = pems;
      void plane.refreshTrust().catch(warn('the trust state could not be read'));
    },
    async close() {
      stopWatch();
      await refresh.stop();
      await peers.stop();
      await plane.close();
    },
  };
}
