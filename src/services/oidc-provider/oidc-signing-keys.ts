/**
 * Key rotation for the OIDC provider: the controller signs with its server certificate's key, so replacing the
 * certificate replaces the key. Tokens signed with the previous key must keep verifying, here and at every relying
 * party reading `/oidc/keys`, until they expire (RFC 7517 §5; OpenID Connect Core 1.0 §10.1.1: a retired key stays
 * in the JWKS while tokens signed by it may still be presented).
 */
import type { JWK } from 'jose';
import type { SigningKeyRepository } from '../../persistence/repositories/signing-keys.js';
import type { ServerSigningKey } from '../enrollment/enrollment-jwt.js';

/** A key no longer used for signing that still verifies tokens until `publishUntil`. */
export interface RetiredSigningKey {
  readonly kid: string;
  readonly publicJwk: JWK;
  readonly publishUntil: Date;
}

/**
 * Registers `signingKey` as the current key at start, retires the keys used before it (published for the longest
 * token lifetime from now, which covers every token they signed, since none was signed after now), and returns the
 * retired keys still published.
 *
 * @example
 * const retired = await publishSigningKey({ keys, signingKey, now: clock.now(), longestTokenLifetimeMs: 30 * 60_000 });
 */
export async function publishSigningKey(input: {
  keys: SigningKeyRepository;
  signingKey: ServerSigningKey;
  now: Date;
  longestTokenLifetimeMs: number;
}): Promise<RetiredSigningKey[]> {
  const { keys, signingKey, now } = input;
  const publishUntil = new Date(now.getTime() + input.longestTokenLifetimeMs);
  const retired = await keys.makeCurrent({ kid: signingKey.kid, publicJwk: signingKey.publicJwk }, now, publishUntil);
  return retired.flatMap((key) => (key.publishUntil ? [{ kid: key.kid, publicJwk: key.publicJwk, publishUntil: key.publishUntil }] : []));
}
