/**
 * May this caller act now? One pure decision from plain facts (decision 0019). The services load the facts
 * (`services/authentication/principal.ts`); each protocol maps a refusal to its own error shape: a 401 challenge in
 * realm `svc-session` or `svc-oidc`, INVALID_AUTH at a login, an OAuth error at the OIDC endpoints.
 */
import type { Identity } from '../domain/identity.js';
import { isIdentityDisabled } from './identity-status.js';

/** The session that names the caller, when the credential stands for one; `null` when no session has it. */
export interface SessionFacts {
  /** Revoked by logout, reuse of a refresh token or an administrator (OIDC sessions). */
  revoked?: boolean;
  /** Past this instant the session no longer counts (legacy: last activity plus the idle timeout). */
  expiresAt?: Date;
  /** False when the session belongs to an identity other than the one the credential names. */
  ownedByIdentity?: boolean;
}

export interface PrincipalFacts {
  /** The identity's status, or undefined (or null) when no identity has the id. */
  identity: Pick<Identity, 'disabled' | 'disabledUntil'> | null | undefined;
  /** Absent when the credential is no session (a login); `null` when it named a session that does not exist. */
  session?: SessionFacts | null;
}

/**
 * Why a caller may not act, in the order the decision checks: the session first (`no-session`, `revoked`,
 * `other-identity`, `expired`), then the identity (`missing`, `disabled`).
 */
export type PrincipalRefusalReason = 'no-session' | 'revoked' | 'other-identity' | 'expired' | 'missing' | 'disabled';

export type PrincipalVerdict = { ok: true } | { ok: false; reason: PrincipalRefusalReason; description: string };

const DESCRIPTIONS: Record<PrincipalRefusalReason, string> = {
  'no-session': 'no session has this token',
  revoked: 'the session has been revoked',
  'other-identity': 'the session belongs to another identity',
  expired: 'the session has expired',
  missing: 'the identity no longer exists',
  disabled: 'the identity is disabled',
};

/**
 * Whether the caller described by `facts` may act at `now`. A disabled identity may not, until an administrator
 * enables it or its `disabledUntil` passes; its sessions stop working meanwhile and resume afterwards.
 *
 * @example decidePrincipal({ identity, session: { expiresAt } }, clock.now()) // { ok: true } or { ok: false, reason: 'expired', … }
 */
export function decidePrincipal(facts: PrincipalFacts, now: Date): PrincipalVerdict {
  const refuse = (reason: PrincipalRefusalReason): PrincipalVerdict => ({ ok: false, reason, description: DESCRIPTIONS[reason] });
  const { session, identity } = facts;
  if (session === null) return refuse('no-session');
  if (session) {
    if (session.revoked) return refuse('revoked');
    if (session.ownedByIdentity === false) return refuse('other-identity');
    if (session.expiresAt && session.expiresAt.getTime() <= now.getTime()) return refuse('expired');
  }
  if (!identity) return refuse('missing');
  if (isIdentityDisabled(identity, now)) return refuse('disabled');
  return { ok: true };
}
