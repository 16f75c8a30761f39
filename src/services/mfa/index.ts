/**
 * The MFA domain's builder (issue 5): TOTP enrollments sealed at rest under the secrets key, the MFA service with the
 * lockout of `edge.totp`, and answering a legacy session's TOTP auth query. Each change commits with its audit
 * entry, written on the change's own transaction (decision 0020).
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Database } from '../../persistence/database.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import { createMfaRepository, type MfaRepository } from '../../persistence/repositories/mfa.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { SecurityEvents } from '../audit/security-events.js';
import type { ApiSessionService } from '../sessions/api-sessions.js';
import type { PostureService } from '../posture/index.js';
import { createMfaService, type MfaService } from './mfa.js';
import { createSessionMfaService, type SessionMfaService } from './session-mfa.js';

export interface MfaDomain {
  records: MfaRepository;
  mfa: MfaService;
  sessionMfa: SessionMfaService;
}

export function buildMfaDomain(
  database: Database,
  deps: {
    secrets: SecretBox;
    clock: Clock;
    events: Pick<SecurityEvents, 'totpLocked'>;
    apiSessions: ApiSessionService;
    /** Told when a session answers TOTP (MFA posture checks); absent in builders that need no posture. */
    posture?: Pick<PostureService, 'mfaAnswered'>;
    /** `edge.totp`; absent without an edge section (the defaults apply). */
    totp: { hostname: string; maxAttempts: number; lockoutMs: number } | undefined;
  },
): MfaDomain {
  const records = createMfaRepository(database, deps.secrets);
  const { totp } = deps;
  const mfa = createMfaService({
    mfa: records,
    identities: createIdentityRepository(database),
    changes: auditedChanges(database, deps.clock, (store) => createMfaRepository(store, deps.secrets)),
    clock: deps.clock,
    issuer: totp?.hostname ?? 'svc',
    events: deps.events,
    ...(totp ? { maxFailedCodes: totp.maxAttempts, lockoutMs: totp.lockoutMs } : {}),
  });
  return { records, mfa, sessionMfa: createSessionMfaService({ mfa, apiSessions: deps.apiSessions, ...(deps.posture ? { posture: deps.posture } : {}) }) };
}
