/**
 * What the controller decides for routers on its control channels (decision 0062), apart from the wire: which router
 * a client certificate is, whether it may stay connected, the trust material it checks tokens with, terminators it
 * creates for the services it hosts (and those it keeps after a reconnect), the dial decision (sdk-dial.ts) and who
 * is behind an SDK's Hello (sdk-sessions.ts). The control plane (src/control-plane/) is the adapter;
 * this module knows nothing of channels or TLS.
 */
import type { Actor } from '../../domain/audit.js';
import type { TerminatorPrecedence } from '../../domain/terminator.js';
import type {
  ApiSessionCheck,
  ApiSessionCheckAnswer,
  CircuitsEnded,
  CreateTerminator,
  DialAnswer,
  DialRequest,
  HostedServicesAnswer,
  HostedServicesRequest,
  IdentityConnections,
  LinkReport,
  TerminatorAnswer,
  TrustState,
  UpdateTerminator,
} from '../../control-protocol/bodies.js';
import type { CircuitRepository } from '../../persistence/repositories/circuits.js';
import { ApiError } from '../../errors/api-error.js';
import type { Clock } from '../../shared/clock.js';
import type { PolicyEngine } from '../authorization/engine.js';
import type { TerminatorService } from '../authorization/terminators.js';
import { RouterRequestError } from './router-request-error.js';
import type { SdkDial } from './sdk-dial.js';
import type { HostedServices } from './hosted-services.js';
import type { EdgeConnections } from './edge-connections.js';
import type { LinkService } from './links.js';
import type { SdkSessions } from './sdk-sessions.js';

/** A router as the control plane sees it: who it is and whether it may be connected. */
export interface RouterStanding {
  id: string;
  name: string;
  disabled: boolean;
  /** The fingerprint of its current client certificate; null while an enrollment is pending (re-enrolled). */
  fingerprint: string | null;
}

export { RouterRequestError } from './router-request-error.js';

export interface RouterControlService {
  /** The router whose current client certificate has this fingerprint (lowercase hex SHA-1 of the DER). */
  identify(fingerprint: string): Promise<RouterStanding | undefined>;
  /** The router's standing now; undefined once deleted. */
  standing(routerId: string): Promise<RouterStanding | undefined>;
  /** The keys and CAs routers check tokens and client certificates with. */
  trustState(): Promise<TrustState>;
  createTerminator(router: RouterStanding, input: CreateTerminator): Promise<TerminatorAnswer>;
  updateTerminator(router: RouterStanding, input: UpdateTerminator): Promise<TerminatorAnswer>;
  /** Deletes the router's own terminators among `ids` (others' are refused by name). */
  deleteTerminators(router: RouterStanding, ids: readonly string[]): Promise<void>;
  /** Deletes the router's SDK-bound terminators whose id is not in `keep` (after a reconnect); how many went. */
  reconcileTerminators(router: RouterStanding, keep: readonly string[]): Promise<number>;
  /** Whether the identity (and API session) may dial the service now, the terminator chosen and the path to it (sdk-dial.ts). */
  dial(router: RouterStanding, request: DialRequest): Promise<DialAnswer>;
  /** The API session behind an SDK's Hello at a router, and whether its client certificate is the session's. */
  checkApiSession(input: ApiSessionCheck): Promise<ApiSessionCheckAnswer>;
  /** Legacy API sessions in use through a router's SDK channels: their inactivity timer restarts. */
  recordActivity(apiSessionIds: readonly string[]): void;
  /** The links the router dialed, whole (LinkReport): stored as they are; answers how many were kept. */
  reportLinks(router: RouterStanding, report: LinkReport): Promise<number>;
  /** Identities whose SDK channels at the router opened or closed (edge-connections.ts); how many ids were dropped for the bound. */
  reportIdentities(router: RouterStanding, report: IdentityConnections): number;
  /** The router's control channel closed here (now): the links and identity connections it reported until now go. */
  disconnected(router: RouterStanding): Promise<void>;
  /** Circuits that began at the router ended (ids of other routers' circuits are ignored); how many were forgotten. */
  circuitsEnded(router: RouterStanding, ended: CircuitsEnded): Promise<number>;
  /** The router's circuits not in `keep` are forgotten (after a reconnect); how many went. */
  reconcileCircuits(router: RouterStanding, keep: readonly string[]): Promise<number>;
  /** A page of the services the router's own identity may host (hosted-services.ts). */
  hostedServices(router: RouterStanding, request: HostedServicesRequest): Promise<HostedServicesAnswer>;
}

/** The audit trail's actor for what a router does itself. */
export const routerActor = (router: { name: string }): Actor => ({ id: null, name: `edge-router ${router.name}` });

function notFoundOrRethrow(error: unknown): never {
  if (error instanceof ApiError && (error.code === 'NOT_FOUND' || error.code === 'REFERENCED_ENTITY_NOT_FOUND')) {
    throw new RouterRequestError('NOT_FOUND', error.message);
  }
  if (error instanceof ApiError && error.code === 'COULD_NOT_VALIDATE') throw new RouterRequestError('BAD_MESSAGE', error.message);
  throw error;
}

export function createRouterControlService(deps: {
  routers: {
    findByFingerprint(fingerprint: string): Promise<RouterStanding | undefined>;
    findById(id: string): Promise<RouterStanding | undefined>;
  };
  terminators: TerminatorService;
  engine: PolicyEngine;
  /** Public JWKS of the OIDC signing keys (absent without an edge section). */
  jwks?: () => Promise<{ keys: Record<string, unknown>[] }>;
  issuers: readonly string[];
  /** Every CA a client certificate may chain to: the controller's own and the verified third-party CAs. */
  clientCaPems: () => Promise<string[]>;
  activity: { seen(sessionId: string, at: Date): void };
  /** The API sessions of SDKs (sdk-sessions.ts). */
  sessions: SdkSessions;
  /** The dial decision (sdk-dial.ts). */
  dial: SdkDial;
  links: LinkService;
  /** Identities with SDK channels at the routers connected here (edge-connections.ts). */
  connections: Pick<EdgeConnections, 'report' | 'routerGone'>;
  circuits: Pick<CircuitRepository, 'deleteOf' | 'keepOnly'>;
  hostedServices: HostedServices;
  clock: Clock;
}): RouterControlService {
  const { terminators } = deps;

  async function ownTerminator(router: RouterStanding, id: string) {
    const terminator = await terminators.get(id).catch(notFoundOrRethrow);
    // Another router's terminator reads as absent: a router learns nothing of the rest of the network this way.
    if (terminator.routerId !== router.id) throw new RouterRequestError('NOT_FOUND', `No terminator of this router has the id '${id}'`);
    return terminator;
  }

  const answer = (t: { id: string; serviceId: string; binding: string; address: string; cost: number; precedence: TerminatorPrecedence }): TerminatorAnswer => ({
    id: t.id,
    serviceId: t.serviceId,
    binding: t.binding,
    address: t.address,
    cost: t.cost,
    precedence: t.precedence,
  });

  return {
    identify: (fingerprint) => deps.routers.findByFingerprint(fingerprint),
    standing: (routerId) => deps.routers.findById(routerId),
    async trustState() {
      const [jwks, cas] = await Promise.all([deps.jwks ? deps.jwks() : Promise.resolve({ keys: [] }), deps.clientCaPems()]);
      return { jwks: { keys: jwks.keys }, cas, issuers: [...deps.issuers] };
    },
    async createTerminator(router, input) {
      if (input.hostId !== undefined) {
        const access = await deps.engine.access(input.hostId, input.serviceId, 'Bind').catch(notFoundOrRethrow);
        if (!access.allowed) throw new RouterRequestError('NOT_ALLOWED', `Identity '${input.hostId}' may not bind service '${input.serviceId}'`);
      }
      const created = await terminators
        .create(routerActor(router), {
          service: input.serviceId,
          router: router.id,
          binding: input.binding,
          address: input.address,
          ...(input.instanceId !== undefined ? { identity: input.instanceId } : {}),
          ...(input.hostId !== undefined ? { hostId: input.hostId } : {}),
          ...(input.cost !== undefined ? { cost: input.cost } : {}),
          ...(input.precedence !== undefined ? { precedence: input.precedence } : {}),
        })
        .catch(notFoundOrRethrow);
      return answer(created);
    },
    async updateTerminator(router, input) {
      await ownTerminator(router, input.id);
      const updated = await terminators
        .patch(routerActor(router), input.id, {
          ...(input.cost !== undefined ? { cost: input.cost } : {}),
          ...(input.precedence !== undefined ? { precedence: input.precedence } : {}),
        })
        .catch(notFoundOrRethrow);
      return answer(updated);
    },
    async deleteTerminators(router, ids) {
      for (const id of ids) await ownTerminator(router, id);
      for (const id of ids) await terminators.delete(routerActor(router), id, { byItsRouter: true }).catch(notFoundOrRethrow);
    },
    async reconcileTerminators(router, keep) {
      const kept = new Set(keep);
      const stale = (await terminators.listHosted({ routerId: router.id })).filter((terminator) => !kept.has(terminator.id));
      let removed = 0;
      for (const terminator of stale) {
        // Gone meanwhile (an administrator, the host's lost access): nothing left to remove.
        const deleted = await terminators.delete(routerActor(router), terminator.id, { byItsRouter: true }).then(
          () => true,
          (error: unknown) => {
            if (error instanceof ApiError && error.code === 'NOT_FOUND') return false;
            throw error;
          },
        );
        if (deleted) removed++;
      }
      return removed;
    },
    dial: (router, request) => deps.dial(router, request),
    checkApiSession: (input) => deps.sessions.check(input),
    recordActivity(apiSessionIds) {
      const now = deps.clock.now();
      for (const id of apiSessionIds) deps.activity.seen(id, now);
    },
    reportLinks: (router, report) => deps.links.report(router.id, report),
    reportIdentities: (router, report) => deps.connections.report(router.id, report),
    disconnected(router) {
      // At once, before any await: a reconnect's whole set, heard after this, must not be cleared by it.
      deps.connections.routerGone(router.id);
      return deps.links.forget(router.id, deps.clock.now());
    },
    circuitsEnded: (router, ended) => deps.circuits.deleteOf(router.id, ended.circuits.map((circuit) => circuit.id)),
    reconcileCircuits: (router, keep) => deps.circuits.keepOnly(router.id, keep),
    hostedServices: (router, request) => deps.hostedServices(router, request),
  };
}
