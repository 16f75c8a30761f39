/**
 * Verifies a JWT against one external JWT signer and finds the identity it names (reference facts §7, Ext-JWT
 * primary auth), for ext-jwt logins, the per-request secondary factor and the management `check` diagnostic.
 * Each refusal names the first check that failed, in plain words an operator can act on, and whether the token was
 * merely expired (spec: Unauthorized responses, error `expired`) or otherwise invalid.
 *
 * Order of checks: signer enabled, token shape, algorithm (asymmetric only), key (the certificate, or the JWKS key
 * with the token's `kid`, re-fetching the JWKS once per interval for an unknown `kid`), signature, `exp` and `nbf`
 * (with CLOCK_SKEW_MS of tolerance, and `exp` required), `iss` equal to the signer's issuer, `aud` containing its
 * audience, the `claimsProperty` claim, then the identity (found by id or externalId, and not disabled).
 */
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, errors, type JWK, type JWTPayload } from 'jose';
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import type { Identity } from '../../domain/identity.js';
import { ApiError } from '../../errors/api-error.js';
import type { ExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { decidePrincipal } from '../../policy/principal.js';
import type { Clock } from '../../shared/clock.js';
import { JwksFetchError, type JwksFetcher } from './jwks-fetcher.js';

export type ExtJwtCheck =
  | 'signer-disabled'
  | 'key-unavailable'
  | 'algorithm'
  | 'kid-not-found'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not-yet-valid'
  | 'malformed'
  | 'claim-missing'
  | 'no-identity'
  | 'identity-disabled';

/** The first check a token failed: which, in plain words, and the WWW-Authenticate `error` it maps to. */
export type ExtJwtFailure = { check: ExtJwtCheck; message: string; error: 'invalid' | 'expired' };

export type ExtJwtResult =
  | { ok: true; signer: ExternalJwtSigner; identity: Identity; claims: JWTPayload }
  | { ok: false; signer?: ExternalJwtSigner; failure: ExtJwtFailure };

export interface ExternalJwtVerifier {
  /**
   * Checks `token` against one signer: signature (asymmetric algorithms only: RS/PS/ES/EdDSA; `none` and HS* are
   * refused), exp and nbf with CLOCK_SKEW_MS of tolerance, iss equal to signer.issuer, aud containing
   * signer.audience, then the claimsProperty claim (`/sub` or `sub`) matched to the identity's id or externalId.
   * Returns the identity or the first failing check. An unknown signer id fails as `signer-disabled`.
   */
  check(signerId: string, token: string): Promise<ExtJwtResult>;
  /** The enabled signers whose issuer equals the token's (unverified) `iss`, or all enabled signers when it has none/unknown — the candidates for a primary login. */
  candidates(token: string): Promise<ExternalJwtSigner[]>;
}

/** How far `exp` and `nbf` may be off, for clocks of the provider and the controller that disagree a little. */
export const CLOCK_SKEW_MS = 30_000;
/** Longer tokens are refused before any parsing (JWTs of real providers are a few KiB). */
export const MAX_TOKEN_LENGTH = 16_384;
/** At most this many keys of a JWKS are tried for a token without `kid`. */
const MAX_KEYS_TRIED = 10;

/** Signature algorithms accepted: asymmetric only, so a public key can never double as an HMAC secret. */
export const EXT_JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
type Algorithm = (typeof EXT_JWT_ALGORITHMS)[number];

const CURVES: Record<string, { jwk: string; node: string }> = {
  ES256: { jwk: 'P-256', node: 'prime256v1' },
  ES384: { jwk: 'P-384', node: 'secp384r1' },
  ES512: { jwk: 'P-521', node: 'secp521r1' },
};

const failure = (check: ExtJwtCheck, message: string, error: 'invalid' | 'expired' = 'invalid'): ExtJwtFailure => ({ check, message, error });

/** A key in words, e.g. `an EC prime256v1 key`, `a 2048-bit RSA key`. */
function describeKey(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec') return `an EC ${details.namedCurve ?? ''} key`;
  if (key.asymmetricKeyType?.startsWith('rsa')) return `a ${details.modulusLength ?? '?'}-bit ${key.asymmetricKeyType.toUpperCase()} key`;
  return `an ${key.asymmetricKeyType ?? 'unknown'} key`;
}

/** Why `key` cannot verify `alg`, or undefined when it can. */
export function keyMismatch(alg: Algorithm, key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  let fits: boolean;
  if (alg.startsWith('RS')) fits = type === 'rsa';
  else if (alg.startsWith('PS')) fits = type === 'rsa' || type === 'rsa-pss';
  else if (alg.startsWith('ES')) fits = type === 'ec' && details.namedCurve === CURVES[alg]?.node;
  else fits = type === 'ed25519';
  if (!fits) return `the token is signed with ${alg} but the signer's key is ${describeKey(key)}`;
  if (type?.startsWith('rsa') && (details.modulusLength ?? 0) < 2048) return `the signer's key is ${describeKey(key)}; RSA keys must have at least 2048 bits`;
  return undefined;
}

/** Whether a JWK of a key set may verify `alg`: right type and curve, and not restricted to another use. */
function jwkFits(jwk: JWK, alg: Algorithm): boolean {
  if (jwk.alg !== undefined && jwk.alg !== alg && !(alg === 'Ed25519' && jwk.alg === 'EdDSA') && !(alg === 'EdDSA' && jwk.alg === 'Ed25519')) return false;
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  if (jwk.key_ops !== undefined && !jwk.key_ops.includes('verify')) return false;
  if (alg.startsWith('RS') || alg.startsWith('PS')) return jwk.kty === 'RSA';
  if (alg.startsWith('ES')) return jwk.kty === 'EC' && jwk.crv === CURVES[alg]?.jwk;
  return jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
}

/** The value at a claimsProperty: a JSON pointer (RFC 6901) such as `/sub`, or a top-level name such as `sub`. */
export function claimAt(claims: JWTPayload, property: string): unknown {
  const pointer = property.startsWith('/') ? property : `/${property}`;
  let value: unknown = claims;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The time claims: exp required, both numeric; skew tolerated either way. */
function timeFailure(claims: JWTPayload, now: Date): ExtJwtFailure | undefined {
  const skew = `allowed clock skew ${CLOCK_SKEW_MS / 1000}s`;
  const nowText = `now is ${now.toISOString()}`;
  // Date.UTC's range (±8.64e12 s): beyond it (or Infinity from `1e999`) a time claim means nothing.
  const inRange = (value: number) => Number.isFinite(value) && Math.abs(value) <= 8.64e12;
  if (typeof claims.exp !== 'number' || !inRange(claims.exp)) return failure('malformed', 'the token has no usable numeric exp (expiry) claim; tokens that never expire are refused');
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || !inRange(claims.nbf))) return failure('malformed', 'the token has an unusable nbf claim');
  if (claims.exp * 1000 + CLOCK_SKEW_MS <= now.getTime()) {
    return failure('expired', `the token expired at ${iso(claims.exp)} (exp ${claims.exp}); ${nowText}, ${skew}`, 'expired');
  }
  if (typeof claims.nbf === 'number' && claims.nbf * 1000 - CLOCK_SKEW_MS > now.getTime()) {
    return failure('not-yet-valid', `the token is not valid before ${iso(claims.nbf)} (nbf ${claims.nbf}); ${nowText}, ${skew}`);
  }
  return undefined;
}

function issuerAudienceFailure(claims: JWTPayload, signer: ExternalJwtSigner): ExtJwtFailure | undefined {
  if (claims.iss !== signer.issuer) {
    const seen = claims.iss === undefined ? 'the token has no iss' : `the token's iss is ${JSON.stringify(claims.iss)}`;
    return failure('issuer', `issuer mismatch: ${seen}, the signer expects ${JSON.stringify(signer.issuer)}`);
  }
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!audiences.includes(signer.audience)) {
    const seen = claims.aud === undefined ? 'the token has no aud' : `the token's aud is ${JSON.stringify(claims.aud)}`;
    return failure('audience', `audience mismatch: ${seen}, which does not contain the signer's audience ${JSON.stringify(signer.audience)}`);
  }
  return undefined;
}

export interface ExternalJwtVerifierDeps {
  signers: Pick<ExternalJwtSignerRepository, 'findById' | 'listEnabled'>;
  identities: Pick<IdentityRepository, 'findById' | 'findByExternalId'>;
  fetcher: Pick<JwksFetcher, 'keys' | 'refresh'>;
  clock: Clock;
}

/**
 * @example
 * const result = await verifier.check(signerId, bearerToken);
 * if (!result.ok) throw extJwtChallengeError('svc-primary-ext-jwt', result.failure.error, [signer], result.failure.message);
 */
export function createExternalJwtVerifier(deps: ExternalJwtVerifierDeps): ExternalJwtVerifier {
  const { signers, identities, fetcher, clock } = deps;

  /** The keys that may verify the token: a list to try, or the failure that leaves none. */
  async function keysFor(signer: ExternalJwtSigner, alg: Algorithm, kid: string | undefined): Promise<KeyObject[] | ExtJwtFailure> {
    if (signer.certPem !== null) {
      if (signer.kid !== null && kid !== undefined && kid !== signer.kid) {
        return failure('kid-not-found', `the token's kid ${JSON.stringify(kid)} is not the signer's kid ${JSON.stringify(signer.kid)}`);
      }
      const key = new X509Certificate(signer.certPem).publicKey;
      const mismatch = keyMismatch(alg, key);
      return mismatch ? failure('algorithm', mismatch) : [key];
    }
    const source = { signerId: signer.id, url: signer.jwksEndpoint as string };
    try {
      let set = await fetcher.keys(source);
      const matching = () => set.keys.filter((k) => (kid === undefined || k.kid === kid) && jwkFits(k, alg));
      let found = matching();
      let refreshed = false;
      if (found.length === 0) {
        ({ keys: set, refreshed } = await fetcher.refresh(source));
        found = matching();
      }
      if (found.length === 0) {
        const named = kid === undefined ? `the token has no kid and no key` : `no key with kid ${JSON.stringify(kid)}`;
        const withKid = kid === undefined ? [] : set.keys.filter((k) => k.kid === kid);
        if (withKid.length > 0) return failure('algorithm', `the key with kid ${JSON.stringify(kid)} cannot verify ${alg} (kty ${withKid[0]?.kty}, alg ${withKid[0]?.alg ?? 'unset'})`);
        const when = refreshed ? 'also after fetching it again' : 'fetched recently (at most once per edge.externalJwt.jwksRefreshInterval)';
        return failure('kid-not-found', `${named} in the signer's JWKS (${source.url}) fits ${alg}, ${when}`);
      }
      const keys: KeyObject[] = [];
      for (const jwk of found.slice(0, MAX_KEYS_TRIED)) {
        const key = createPublicKey({ key: jwk as never, format: 'jwk' });
        const mismatch = keyMismatch(alg, key);
        if (mismatch) return failure('algorithm', mismatch);
        keys.push(key);
      }
      return keys;
    } catch (error) {
      if (error instanceof JwksFetchError) return failure('key-unavailable', `the signer's keys cannot be fetched (${error.reason}): ${error.message}`);
      return failure('key-unavailable', `the signer's JWKS holds a key that cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The signature checked with each key in turn; the claims of the first that verifies. */
  async function verified(token: string, alg: Algorithm, keys: KeyObject[]): Promise<{ claims: JWTPayload } | { failure: ExtJwtFailure }> {
    for (const key of keys) {
      try {
        const { payload } = await compactVerify(token, key, { algorithms: [alg] });
        const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
        if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return { failure: failure('malformed', 'the token payload is not a JSON object') };
        return { claims: claims as JWTPayload };
      } catch (error) {
        if (error instanceof SyntaxError) return { failure: failure('malformed', 'the token payload is not JSON') };
        if (error instanceof errors.JWSSignatureVerificationFailed) continue;
        if (error instanceof errors.JOSEError) return { failure: failure('malformed', `the token is not a valid JWS: ${error.message}`) };
        if (error instanceof TypeError) return { failure: failure('algorithm', `the signer's key cannot verify ${alg}: ${error.message}`) };
        throw error;
      }
    }
    return { failure: failure('signature', `the signature does not verify with the signer's ${keys.length === 1 ? 'key' : `${keys.length} matching keys`}`) };
  }

  async function identityFor(signer: ExternalJwtSigner, claims: JWTPayload): Promise<{ identity: Identity } | { failure: ExtJwtFailure }> {
    const value = claimAt(claims, signer.claimsProperty);
    if (typeof value !== 'string' || value === '') {
      const problem = value === undefined ? 'is missing' : typeof value === 'string' ? 'is empty' : `is a ${Array.isArray(value) ? 'array' : typeof value}, not a string`;
      return { failure: failure('claim-missing', `the claim ${signer.claimsProperty} (the signer's claimsProperty) ${problem}`) };
    }
    const field = signer.useExternalId ? 'externalId' : 'id';
    const identity = signer.useExternalId ? await identities.findByExternalId(value) : await identities.findById(value);
    if (!identity) return { failure: failure('no-identity', `no identity has the ${field} ${JSON.stringify(value)} (claim ${signer.claimsProperty})`) };
    // The one principal check (decision 0019), with this verifier's own failure kind and words.
    if (!decidePrincipal({ identity }, clock.now()).ok) return { failure: failure('identity-disabled', `the identity ${identity.name} (${identity.id}) is disabled`) };
    return { identity };
  }

  return {
    async check(signerId, token) {
      const signer = await signers.findById(signerId);
      if (!signer) return { ok: false, failure: failure('signer-disabled', `no external JWT signer has the id ${JSON.stringify(signerId)}`) };
      const refuse = (f: ExtJwtFailure): ExtJwtResult => ({ ok: false, signer, failure: f });
      if (!signer.enabled) return refuse(failure('signer-disabled', `the external JWT signer ${signer.name} is disabled`));
      if (token.length > MAX_TOKEN_LENGTH) return refuse(failure('malformed', `the token is longer than ${MAX_TOKEN_LENGTH} characters`));
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        if (token.split('.').length !== 3) throw new Error('not three parts');
        header = decodeProtectedHeader(token);
      } catch {
        return refuse(failure('malformed', 'the token is not a compact JWS (three base64url parts with a JSON header)'));
      }
      const alg = header.alg ?? 'none';
      if (!(EXT_JWT_ALGORITHMS as readonly string[]).includes(alg)) {
        return refuse(failure('algorithm', `algorithm ${alg} is refused: only asymmetric signatures (RS*, PS*, ES*, EdDSA) are accepted`));
      }
      const kid = typeof header.kid === 'string' ? header.kid : undefined;
      const keys = await keysFor(signer, alg as Algorithm, kid);
      if (!Array.isArray(keys)) return refuse(keys);
      const signed = await verified(token, alg as Algorithm, keys);
      if ('failure' in signed) return refuse(signed.failure);
      const { claims } = signed;
      const claimsFailure = timeFailure(claims, clock.now()) ?? issuerAudienceFailure(claims, signer);
      if (claimsFailure) return refuse(claimsFailure);
      const found = await identityFor(signer, claims);
      if ('failure' in found) return refuse(found.failure);
      return { ok: true, signer, identity: found.identity, claims };
    },
    async candidates(token) {
      const enabled = await signers.listEnabled();
      let issuer: unknown;
      try {
        issuer = decodeJwt(token).iss;
      } catch {
        return enabled;
      }
      const named = enabled.filter((signer) => signer.issuer === issuer);
      return named.length > 0 ? named : enabled;
    },
  };
}

/**
 * The 401 for an external JWT requirement (spec: Unauthorized responses, rules 4 and 5): one Bearer challenge in
 * `realm`, with the ids and issuers of the signers that would have been accepted, `|`-joined.
 *
 * @example throw extJwtChallengeError('svc-secondary-ext-jwt', 'missing', [signer], 'no token of the required signer was provided');
 */
export function extJwtChallengeError(
  realm: 'svc-primary-ext-jwt' | 'svc-secondary-ext-jwt',
  error: 'missing' | 'invalid' | 'expired',
  signers: ExternalJwtSigner[],
  description: string,
): ApiError {
  const named = signers.length === 0 ? {} : { id: signers.map((s) => s.id).join('|'), issuer: signers.map((s) => s.issuer).join('|') };
  return new ApiError('UNAUTHORIZED', { challenges: [{ scheme: 'Bearer', realm, error, description, ...named }] });
}
