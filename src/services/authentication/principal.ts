/**
 * Loads the caller behind a credential and decides whether it may act now (decision 0019): the identity by id, with
 * the facts of the session that named it, handed to the pure `decidePrincipal`. Every protocol that lets an
 * identity act goes through here (legacy session tokens, access tokens, OIDC logins and refreshes, the login
 * methods) and maps a refusal to its own error shape; none repeats the check.
 */
import type { Identity } from '../../domain/identity.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { decidePrincipal, type PrincipalRefusalReason, type SessionFacts } from '../../policy/principal.js';
import type { Clock } from '../../shared/clock.js';

/** The identity when it may act; else why not (`description` in words, fit for a log line or a challenge). */
export type LoadedPrincipal = { ok: true; identity: Identity } | { ok: false; reason: PrincipalRefusalReason; description: string };

export interface PrincipalLoader {
  /**
   * The identity `identityId` if it may act at `now` (default: the clock's now), given the facts of the session
   * that named it (`null`: the credential named a session that does not exist; absent: a login, no session).
   */
  load(identityId: string, options?: { session?: SessionFacts | null; now?: Date }): Promise<LoadedPrincipal>;
}

/** The verdict on `identity` (undefined: none has the id) named by a credential with the facts of `session`, at `now`. */
export function judgePrincipal(identity: Identity | undefined, session: SessionFacts | null | undefined, now: Date): LoadedPrincipal {
  const verdict = decidePrincipal({ session, identity }, now);
  return verdict.ok ? { ok: true, identity: identity as Identity } : verdict;
}

/** @example const principal = await createPrincipalLoader({ identities, clock }).load(session.identityId, { session: { expiresAt } }); */
export function createPrincipalLoader(deps: { identities: Pick<IdentityRepository, 'findById'>; clock: Clock }): PrincipalLoader {
  return {
    async load(identityId, options = {}) {
      const now = options.now ?? deps.clock.now();
      return judgePrincipal(await deps.identities.findById(identityId), options.session, now);
    },
  };
}
