/**
 * Security events leave a trace (issue 12, point 6): one module that every part reporting one calls, so the log line
 * (JSON, field `securityEvent`, never a secret) and, for a change of state, the audit entry are written the same way
 * everywhere. The metrics' login and lockout counters hang off the same calls (issue 17, decision 0033).
 *
 * Events: a password or TOTP lockout (state: logged and audited), a refused login (logged with method and reason; not
 * audited, since anyone can cause any number of them), a server error answered (logged by the HTTP layer through
 * `serverError`), and changes of trust anchors such as external JWT signers (their services audit them; the log line
 * is written here).
 */
import { SYSTEM_ACTOR, type Actor } from '../../domain/audit.js';
import type { AuditService } from './audit.js';
import type { ControllerMetrics } from '../metrics/index.js';

/** The part of a pino logger the events use. */
export interface EventLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface SecurityEvents {
  /** Wrong passwords started a lockout of password logins for one authenticator and scope. */
  passwordLocked(event: { identity: { id: string; name: string }; authenticatorId: string; scope: string; attempts: number; until: Date }): Promise<void>;
  /** Wrong TOTP codes locked an identity's TOTP checks. */
  totpLocked(event: { identity: { id: string; name: string }; until: Date }): Promise<void>;
  /** A login was refused: the method, the reason in words, and the identity when one was found. */
  loginRefused(event: { method: string; reason: string; ipAddress: string | null; identityId?: string }): void;
  /** A primary login succeeded; counted only (no log line: it is the ordinary case, and the session records it). */
  loginSucceeded(event: { method: string }): void;
  /** An answer with a 5xx status: the request id ties it to the error logged with it. */
  serverError(event: { requestId: string; method: string; path: string; status: number }): void;
  /** A trust anchor (external JWT signer, later CAs) was created, changed or deleted by `actor`. */
  trustChanged(event: { actor: Actor; entityType: string; entityId: string; action: string }): void;
}

export function createSecurityEvents(deps: {
  log: EventLog;
  audit: Pick<AuditService, 'record'>;
  /** Absent where events are built inside a unit of work for its audit entries only. */
  metrics?: Pick<ControllerMetrics, 'authentication' | 'lockout'>;
}): SecurityEvents {
  const { log, audit, metrics } = deps;
  return {
    async passwordLocked({ identity, authenticatorId, scope, attempts, until }) {
      metrics?.lockout('password');
      const details = { authenticatorId, scope, attempts, lockedUntil: until.toISOString() };
      log.warn({ securityEvent: 'password-lockout', identityId: identity.id, identityName: identity.name, ...details }, 'password logins locked out after failed attempts');
      await audit.record(SYSTEM_ACTOR, 'lockout', 'identity', identity.id, { method: 'updb', ...details });
    },
    async totpLocked({ identity, until }) {
      metrics?.lockout('totp');
      const details = { lockedUntil: until.toISOString() };
      log.warn({ securityEvent: 'totp-lockout', identityId: identity.id, identityName: identity.name, ...details }, 'TOTP checks locked out after invalid codes');
      await audit.record(SYSTEM_ACTOR, 'lockout', 'identity', identity.id, { method: 'totp', ...details });
    },
    loginRefused({ method, reason, ipAddress, identityId }) {
      metrics?.authentication(method, 'failure');
      log.info({ securityEvent: 'login-refused', method, reason, ipAddress, ...(identityId ? { identityId } : {}) }, 'login refused');
    },
    loginSucceeded({ method }) {
      metrics?.authentication(method, 'success');
    },
    serverError({ requestId, method, path, status }) {
      log.error({ securityEvent: 'server-error', requestId, method, path, status }, 'answered with a server error');
    },
    trustChanged({ actor, entityType, entityId, action }) {
      log.warn({ securityEvent: 'trust-changed', actorId: actor.id, actorName: actor.name, entityType, entityId, action }, 'a trust anchor changed');
    },
  };
}
