/**
 * External JWTs as credentials (spec: Authentication Policy settings, Unauthorized responses; issue 6): the primary
 * `ext-jwt` login, where a Bearer JWT of an enabled signer names the identity, and the secondary requirement, where
 * a policy demands a valid JWT of one signer, for the same identity, beside the primary credential.
 *
 * Refusals are 401 with one WWW-Authenticate challenge in realm `svc-primary-ext-jwt` or `svc-secondary-ext-jwt`,
 * error `missing`, `invalid` or `expired`, and the `id` and `issuer` of the signer(s) that were tried, so a client can
 * tell which provider to ask. The description names the first failed check, except that checks about identities
 * are worded alike, so an answer does not tell which identities exist or are disabled.
 */
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import type { Identity } from '../../domain/identity.js';
import type { ExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import { hashToken } from '../../crypto/secrets.js';
import type { Clock } from '../../shared/clock.js';
import { createLru } from '../../shared/lru.js';
import { CLOCK_SKEW_MS, extJwtChallengeError, type ExtJwtCheck, type ExtJwtFailure, type ExternalJwtVerifier } from './external-jwt.js';

export type ExtJwtRealm = 'svc-primary-ext-jwt' | 'svc-secondary-ext-jwt';

export interface ExtJwtAuthenticator {
  /** The identity and signer of the first Bearer value that is a valid JWT of an enabled signer. */
  primary(tokens: readonly string[]): Promise<{ identity: Identity; signer: ExternalJwtSigner }>;
  /** Passes when one of `tokens` is a valid JWT of signer `signerId` naming `identity`. */
  secondary(signerId: string, identity: Identity, tokens: readonly string[]): Promise<void>;
  /** The 401 of `realm` for a signer refused for a reason outside the token (e.g. the auth policy). */
  refused(realm: ExtJwtRealm, signers: ExternalJwtSigner[], description: string): Error;
}

/**
 * What an unauthenticated caller is told of a failed check: the check in fixed words where the full message would
 * show internals (the JWKS URL, fetch errors, key details) or which identities exist; the full message otherwise
 * (it compares the token's own claims with public settings). Operators get every detail from `ext-jwt check`.
 */
const FIXED_WORDS: Partial<Record<ExtJwtCheck, string>> = {
  'key-unavailable': "the signer's keys are unavailable",
  'kid-not-found': "no key of the signer has the token's kid",
  algorithm: 'the token is not signed with an accepted asymmetric algorithm',
  signature: "the signature does not verify with the signer's keys",
  malformed: 'the token is malformed or lacks a usable exp claim',
  'no-identity': 'the token does not name an identity that may log in',
  'identity-disabled': 'the token does not name an identity that may log in',
};

function described(failure: ExtJwtFailure): string {
  return FIXED_WORDS[failure.check] ?? failure.message;
}

/**
 * A secondary JWT verified once is trusted again, for the same signer and identity, until its expiry but for at most
 * this long, so a disabled signer or a withdrawn key takes effect within it.
 */
const RECHECK_MS = 30_000;
const VERIFIED_CACHE_SIZE = 10_000;

export function createExtJwtAuthenticator(deps: {
  verifier: ExternalJwtVerifier;
  signers: Pick<ExternalJwtSignerRepository, 'findById' | 'listEnabled'>;
  clock: Clock;
}): ExtJwtAuthenticator {
  const { verifier } = deps;
  const verified = createLru<string, { identityId: string; validUntil: number; checkedAt: number }>(VERIFIED_CACHE_SIZE);

  return {
    async primary(tokens) {
      if (tokens.length === 0) {
        throw extJwtChallengeError('svc-primary-ext-jwt', 'missing', await deps.signers.listEnabled(), 'no Bearer token was provided');
      }
      let first: { failure: ExtJwtFailure; signers: ExternalJwtSigner[] } | undefined;
      for (const token of tokens) {
        const candidates = await verifier.candidates(token);
        for (const signer of candidates) {
          const result = await verifier.check(signer.id, token);
          if (result.ok) return { identity: result.identity, signer: result.signer };
          first ??= { failure: result.failure, signers: candidates };
        }
      }
      if (!first) throw extJwtChallengeError('svc-primary-ext-jwt', 'invalid', [], 'no external JWT signer is enabled');
      throw extJwtChallengeError('svc-primary-ext-jwt', first.failure.error, first.signers, described(first.failure));
    },

    async secondary(signerId, identity, tokens) {
      const now = deps.clock.now().getTime();
      const keys = tokens.map((token) => `${signerId}:${hashToken(token)}`);
      // A JWT verified moments ago is still good until its expiry: skip the signature and the lookups.
      for (const key of keys) {
        const seen = verified.get(key);
        if (seen && seen.identityId === identity.id && now < seen.validUntil && now - seen.checkedAt < RECHECK_MS) return;
      }
      const named = async () => {
        const signer = await deps.signers.findById(signerId);
        return signer ? [signer] : [];
      };
      if (tokens.length === 0) {
        throw extJwtChallengeError('svc-secondary-ext-jwt', 'missing', await named(), 'a Bearer JWT of the signer the auth policy requires must accompany every request');
      }
      let failure: ExtJwtFailure | undefined;
      for (const [index, token] of tokens.entries()) {
        const result = await verifier.check(signerId, token);
        if (result.ok && result.identity.id === identity.id) {
          const exp = typeof result.claims.exp === 'number' ? result.claims.exp * 1000 + CLOCK_SKEW_MS : now;
          verified.set(keys[index] as string, { identityId: identity.id, validUntil: exp, checkedAt: now });
          return;
        }
        failure ??= result.ok ? { check: 'no-identity', message: '', error: 'invalid' } : result.failure;
      }
      const problem = failure as ExtJwtFailure;
      throw extJwtChallengeError('svc-secondary-ext-jwt', problem.error, await named(), problem.check === 'no-identity' ? 'the token does not name the identity of this session' : described(problem));
    },

    refused(realm, signers, description) {
      return extJwtChallengeError(realm, 'invalid', signers, description);
    },
  };
}
