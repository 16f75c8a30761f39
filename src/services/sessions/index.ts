/**
 * The sessions domain's builder: legacy API sessions in the store, their activity kept in memory and written in
 * batches far more often than a session can time out, whether identities have a live session of either kind, and the
 * config types a session asked for at login (resolved to ids); and administrators' view of the sessions of both kinds.
 */
import type { Database } from '../../persistence/database.js';
import { createApiSessionRepository, type ApiSessionRepository } from '../../persistence/repositories/api-sessions.js';
import { createSessionPresenceRepository, type SessionPresenceRepository } from '../../persistence/repositories/session-presence.js';
import type { Clock } from '../../shared/clock.js';
import type { EventLog } from '../audit/security-events.js';
import { createApiSessionService, type ApiSessionService } from './api-sessions.js';
import { createSessionConfigTypes, type SessionConfigTypes } from './config-types.js';
import { createConfigTypeRepository } from '../../persistence/repositories/config-types.js';
import { createSessionActivity, type SessionActivity } from './session-activity.js';
import type { CertExtensionFlags } from '../../domain/authenticator.js';
import type { ApiSession } from '../../domain/identity.js';
import { createApiSessionListingRepository } from '../../persistence/repositories/api-session-listing.js';
import { createOidcRepository } from '../../persistence/repositories/oidc.js';
import type { AuditService } from '../audit/audit.js';
import { createApiSessionAdministration, type ApiSessionAdministration } from './api-session-admin.js';

export interface SessionsDomain {
  records: ApiSessionRepository;
  activity: SessionActivity;
  service: ApiSessionService;
  /** The config types of a session: resolved at login (legacy and OIDC), read by the services list. */
  configTypes: SessionConfigTypes;
  /** What an identity's `hasApiSession` is decided from (decision 0010). */
  presence: { presence: SessionPresenceRepository; legacyTimeoutMs: number; accessTokenLifetimeMs: number };
}

export function buildSessionsDomain(
  database: Database,
  deps: { clock: Clock; log: EventLog; sessionTimeoutMs: number; accessTokenLifetimeMs: number },
): SessionsDomain {
  const records = createApiSessionRepository(database);
  const activity = createSessionActivity({
    apiSessions: records,
    flushIntervalMs: Math.min(10_000, Math.floor(deps.sessionTimeoutMs / 10)),
    onError: (error) => deps.log.error({ err: error }, 'could not record session activity; will retry'),
  });
  const configTypes = createSessionConfigTypes({ configTypes: createConfigTypeRepository(database) });
  return {
    records,
    activity,
    service: createApiSessionService({ apiSessions: records, activity, clock: deps.clock, configTypes }),
    configTypes,
    presence: { presence: createSessionPresenceRepository(database), legacyTimeoutMs: deps.sessionTimeoutMs, accessTokenLifetimeMs: deps.accessTokenLifetimeMs },
  };
}

/**
 * `/api-sessions` over both kinds (decision 0031). OIDC sessions end through the provider's `endSessionById` (as
 * `/oidc/end_session`); without an OIDC provider (no edge section) sessions a former configuration opened end through
 * the same store call the provider makes.
 */
export function buildApiSessionAdministration(
  database: Database,
  deps: {
    sessions: SessionsDomain;
    clock: Clock;
    audit: Pick<AuditService, 'record'>;
    oidc: { endSessionById(id: string): Promise<void> } | undefined;
    certFlags: { flagsOfMany(sessions: readonly ApiSession[]): Promise<CertExtensionFlags[]> };
  },
): ApiSessionAdministration {
  const { sessions, clock, oidc } = deps;
  const oidcStore = createOidcRepository(database);
  return createApiSessionAdministration({
    apiSessions: sessions.records,
    listing: createApiSessionListingRepository(database),
    activity: sessions.activity,
    audit: deps.audit,
    clock,
    accessTokenLifetimeMs: sessions.presence.accessTokenLifetimeMs,
    endOidcSession: oidc ? (id) => oidc.endSessionById(id) : (id) => oidcStore.revokeSession(id, clock.now()),
    certFlags: (listed) => deps.certFlags.flagsOfMany(listed),
  });
}
