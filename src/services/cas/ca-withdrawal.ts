/**
 * Withdrawing a CA's trust ends what it granted (issue 40; decision 0057): a CA deleted, or saved with certificate
 * logins off, ends in the same transaction every API session (legacy and OIDC) whose login chain reached it, and the
 * ephemeral certificates minted from them, as an administrator revoking each would. New logins through it are refused
 * already (ca-trust.ts); this ends the ones it let in before.
 */
import type { CaRepository } from '../../persistence/repositories/cas.js';

/** Ends the sessions whose login reached the CA `caId` (persistence/repositories/ca-sessions.ts). */
export type EndSessionsOfCa = (caId: string) => Promise<unknown>;

/** `records` whose update (logins turned off) and delete also end the sessions the CA let in. */
export function withdrawingTrust<R extends Pick<CaRepository, 'update' | 'delete'>>(records: R, endSessions: EndSessionsOfCa): R {
  return {
    ...records,
    async update(ca) {
      const result = await records.update(ca);
      if (!ca.isAuthEnabled) await endSessions(ca.id);
      return result;
    },
    async delete(id) {
      await endSessions(id);
      return records.delete(id);
    },
  };
}
