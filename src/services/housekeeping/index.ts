/**
 * Housekeeping of the store (issues 15 and 40): what no request removes by itself, removed in the background on every
 * controller (the deletes are idempotent and re-check their condition, so several controllers sweeping the same store
 * do no harm):
 * - OIDC authorization requests past their expiry (a login used to delete them itself, a statement on every login);
 * - the client sessions and posture reports of OIDC sessions that have ended: revoked, or with every token expired.
 *   An OIDC session's row stays after its tokens expire, and its client sessions would otherwise stay with it;
 * - legacy API sessions past their inactivity timeout (decision 0058), with their client sessions, ephemeral
 *   certificates and posture reports. A request presenting one deletes it too; one never presented again stayed;
 * - ephemeral certificates past their validity, which nothing accepts any more;
 * - circuits whose first router has been offline for over a minute (issue 43): a router that comes back reconciles
 *   its circuits itself (ReconcileCircuits), but one that never does would leave them listed for ever;
 * - the used states of external-IdP sign-ins (decision 0084) once their auth request has expired: a callback of an
 *   expired flow is refused for its expiry, so the table holds only the sign-ins of the last few minutes.
 * Each sweep does a bounded amount of work in short transactions; what is left goes at the next one. Another
 * controller's activity reaches the store at most ten seconds late, which the grace below covers; this controller's
 * own is written first.
 */
import type { Database } from '../../persistence/database.js';
import { createSessionCertificateRepository, type SessionCertificateRepository } from '../../persistence/repositories/api-session-certificates.js';
import { createApiSessionRepository, type ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import { createEdgeSessionRepository, type EdgeSessionRepository } from '../../persistence/repositories/edge-sessions.js';
import { createOidcRepository, type OidcRepository } from '../../persistence/repositories/oidc.js';
import { createCircuitRepository, type CircuitRepository } from '../../persistence/repositories/circuits.js';
import { createUsedIdpStateRepository, type UsedIdpStateRepository } from '../../persistence/repositories/used-idp-states.js';
import type { Clock } from '../../shared/clock.js';
import { ONLINE_WITHIN_MS } from '../controllers/heartbeat.js';
import type { SessionActivity } from '../sessions/session-activity.js';

/** How often each controller sweeps. */
export const SWEEP_INTERVAL_MS = 30_000;
/** The most ended OIDC sessions one sweep clears. */
const SESSIONS_PER_SWEEP = 1_000;
/**
 * Legacy API sessions deleted per transaction, and transactions per sweep: each transaction is short (a session
 * holds a bounded number of rows, decision 0058), and a backlog of a million goes in about fifty minutes.
 */
const LEGACY_SESSIONS_PER_BATCH = 200;
const LEGACY_BATCHES_PER_SWEEP = 50;
/** Expired ephemeral certificates deleted per statement, and statements per sweep. */
const CERTIFICATES_PER_BATCH = 1_000;
const CERTIFICATE_BATCHES_PER_SWEEP = 10;
/** Used external-IdP states deleted per statement, and statements per sweep. */
const IDP_STATES_PER_BATCH = 1_000;
const IDP_STATE_BATCHES_PER_SWEEP = 10;
/**
 * How long past its timeout a legacy session is left before the sweep takes it. A controller writes the activity it
 * saw at most ten seconds late (sessions/session-activity.ts), so a session another controller still serves has a
 * recent time in the store well within this.
 */
export const LEGACY_SWEEP_GRACE_MS = 60_000;
/** How long a circuit's first router may be offline before the sweep forgets the circuit. */
export const CIRCUIT_OFFLINE_GRACE_MS = 60_000;

/** What one sweep removed. */
export interface SweepResult {
  /** Client sessions of ended OIDC sessions. */
  clientSessions: number;
  /** Legacy API sessions past their timeout (their client sessions, certificates and reports went with them). */
  legacySessions: number;
  /** Ephemeral certificates past their validity. */
  certificates: number;
  /** Circuits whose first router was offline for over CIRCUIT_OFFLINE_GRACE_MS. */
  circuits: number;
  /** Used external-IdP sign-in states whose auth request has expired. */
  idpStates: number;
}

export interface Housekeeping {
  /** One sweep; what it removed. */
  sweep(): Promise<SweepResult>;
}

/** Runs `batch` until it removes fewer than `size` or `most` batches have run; the total removed. */
async function inBatches(batch: () => Promise<number>, size: number, most: number): Promise<number> {
  let total = 0;
  for (let round = 0; round < most; round++) {
    const removed = await batch();
    total += removed;
    if (removed < size) break;
  }
  return total;
}

export function createHousekeeping(deps: {
  oidc: Pick<OidcRepository, 'deleteExpiredAuthRequests'>;
  edgeSessions: Pick<EdgeSessionRepository, 'deleteOfEndedOidcSessions'>;
  apiSessions: Pick<ApiSessionRepository, 'deleteInactiveBefore'>;
  certificates: Pick<SessionCertificateRepository, 'deleteExpired'>;
  circuits: Pick<CircuitRepository, 'deleteOfOfflineIngress'>;
  idpStates: Pick<UsedIdpStateRepository, 'deleteExpired'>;
  /** This controller's legacy session activity, written before the sweep judges what is stale. */
  activity?: Pick<SessionActivity, 'flush'>;
  clock: Clock;
  /** How long an access token lives: a session's last one may be used that long after its last refresh token. */
  accessTokenLifetimeMs: number;
  /** How long a legacy API session lives without activity (the edge API's `sessionTimeout`). */
  sessionTimeoutMs: number;
}): Housekeeping {
  return {
    async sweep() {
      // The activity this controller remembers goes to the store first: the sweep judges the stored times only.
      await deps.activity?.flush();
      const now = deps.clock.now();
      await deps.oidc.deleteExpiredAuthRequests(now);
      const cutoff = new Date(now.getTime() - deps.accessTokenLifetimeMs);
      const clientSessions = await deps.edgeSessions.deleteOfEndedOidcSessions(cutoff, SESSIONS_PER_SWEEP);
      const inactiveSince = new Date(now.getTime() - deps.sessionTimeoutMs - LEGACY_SWEEP_GRACE_MS);
      const legacySessions = await inBatches(() => deps.apiSessions.deleteInactiveBefore(inactiveSince, LEGACY_SESSIONS_PER_BATCH), LEGACY_SESSIONS_PER_BATCH, LEGACY_BATCHES_PER_SWEEP);
      const certificates = await inBatches(() => deps.certificates.deleteExpired(now, CERTIFICATES_PER_BATCH), CERTIFICATES_PER_BATCH, CERTIFICATE_BATCHES_PER_SWEEP);
      // Offline since before the grace: the channel closed before it, or the controller's heartbeat stopped before it
      // by more than the time a controller is taken to be alive without one.
      const offlineSince = new Date(now.getTime() - CIRCUIT_OFFLINE_GRACE_MS);
      const circuits = await deps.circuits.deleteOfOfflineIngress(offlineSince, new Date(offlineSince.getTime() - ONLINE_WITHIN_MS));
      const idpStates = await inBatches(() => deps.idpStates.deleteExpired(now, IDP_STATES_PER_BATCH), IDP_STATES_PER_BATCH, IDP_STATE_BATCHES_PER_SWEEP);
      return { clientSessions, legacySessions, certificates, circuits, idpStates };
    },
  };
}

export function buildHousekeeping(
  database: Database,
  deps: { clock: Clock; accessTokenLifetimeMs: number; sessionTimeoutMs: number; activity?: Pick<SessionActivity, 'flush'> },
): Housekeeping {
  return createHousekeeping({
    oidc: createOidcRepository(database),
    edgeSessions: createEdgeSessionRepository(database),
    apiSessions: createApiSessionRepository(database),
    certificates: createSessionCertificateRepository(database),
    circuits: createCircuitRepository(database),
    idpStates: createUsedIdpStateRepository(database),
    ...deps,
  });
}
