/**
 * OIDC tokens signed with the controller's server key (spec: OIDC tokens; reference facts §6, Signing): the access
 * token (a JWT, RFC 9068 shape plus the `z_` claims), the ID token (OpenID Connect Core 1.0 §2), and verification
 * of access tokens presented back to the controller.
 */
import { errors, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload, type JWTVerifyOptions, type KeyObject, type CryptoKey as JoseKey } from 'jose';
import { OIDC_CLIENT_ID, type OidcSession } from '../../domain/oidc.js';
import type { Identity } from '../../domain/identity.js';
import { newUuid } from '../../shared/random.js';
import type { Jwks, ServerSigningKey } from '../enrollment/enrollment-jwt.js';
import type { RetiredSigningKey } from './oidc-signing-keys.js';

/** The claims of an access token this controller issued. */
export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  amr: string[];
  client_id: string;
  z_asid: string;
  z_ia: boolean;
  z_ct: string[];
  z_t: 'a';
  z_ice: boolean;
}

/** Why a presented token was refused: the two Bearer errors of spec Errors, rules 2 and 3. */
export class TokenRejected extends Error {
  constructor(readonly reason: 'expired' | 'invalid', message: string) {
    super(message);
    this.name = 'TokenRejected';
  }
}

export interface OidcTokenSigner {
  signAccess(input: { issuer: string; identity: Identity; session: OidcSession; now: Date }): Promise<{ token: string; expiresAt: Date }>;
  signId(input: { issuer: string; identity: Identity; session: OidcSession; nonce: string | null; now: Date }): Promise<string>;
  /**
   * Verifies signature, `iss` (one of `issuers`), `aud` and times against `now`; returns the claims (any token type).
   * `allowExpired` skips the time checks, for hints that may legitimately be old (RP-Initiated Logout 1.0 §2).
   */
  verify(token: string, now: Date, options?: { allowExpired?: boolean }): Promise<JWTPayload>;
  /**
   * Signs `claims` with the current key: tokens other parts of the controller issue under its keys, so that whoever
   * reads `/oidc/keys` can check them (client API session tokens, docs/decisions/0031-edge-sessions.md). The caller
   * sets every claim (`iss`, `aud`, `exp`, ...); `typ` names the kind of token (RFC 8725 §3.11).
   */
  signOther(claims: JWTPayload, typ: string): Promise<string>;
  /**
   * Verifies a token `signOther` signed: our keys only, each with its own algorithm (`none` and others refused), the
   * `typ`, issuer and audience given, and times against `now`. Throws TokenRejected (`expired` or `invalid`).
   */
  verifyOther(token: string, now: Date, expected: { typ: string; issuer: string; audience: string }): Promise<JWTPayload>;
  /** The current key and the retired keys still published at `now`. */
  jwks(now: Date): Jwks;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function createOidcTokenSigner(options: {
  signingKey: ServerSigningKey;
  issuers: readonly string[];
  accessTokenDurationMs: number;
  idTokenDurationMs: number;
  /** Keys this provider signed with before the current one (oidc-signing-keys.ts); they verify until publishUntil. */
  retiredKeys?: readonly RetiredSigningKey[];
}): OidcTokenSigner {
  const { signingKey, issuers } = options;
  const { alg, kid } = signingKey;
  const retiredKeys = (options.retiredKeys ?? []).filter((key) => key.kid !== kid && typeof key.publicJwk.alg === 'string');
  const algorithms = [...new Set([alg, ...retiredKeys.map((key) => key.publicJwk.alg as string)])];
  const imported = new Map<string, Promise<KeyObject | JoseKey | Uint8Array>>();
  const importOnce = (jwk: JWK) => {
    const key = imported.get(jwk.kid as string) ?? importJWK(jwk, jwk.alg);
    imported.set(jwk.kid as string, key);
    return key;
  };
  const publishedRetired = (now: Date) => retiredKeys.filter((key) => key.publishUntil.getTime() > now.getTime());

  /** Our verification key for a JWS header: the current key, or a retired one still published at `now`. */
  function keyFor(header: { kid?: string; alg?: string }, now: Date) {
    const jwk = header.kid === kid ? signingKey.publicJwk : publishedRetired(now).find((key) => key.kid === header.kid)?.publicJwk;
    // Only our own keys: an unknown kid is refused rather than looked up anywhere, and each key verifies only
    // the algorithm it was published with.
    if (!jwk) throw new TokenRejected('invalid', 'unknown key id');
    if (header.alg !== jwk.alg) throw new TokenRejected('invalid', 'algorithm does not match the key');
    return importOnce(jwk);
  }

  /** Verifies a token against our keys under `options`, turning every refusal into TokenRejected. */
  async function verifyOurs(token: string, now: Date, options: Omit<JWTVerifyOptions, 'algorithms' | 'currentDate'>): Promise<JWTPayload> {
    try {
      // The algorithm list pins ES256 (or our keys' algorithms): `none` and HS256-with-the-public-key are refused.
      const { payload } = await jwtVerify(token, async (header) => keyFor(header, now), { ...options, algorithms, currentDate: now });
      return payload;
    } catch (error) {
      if (error instanceof TokenRejected) throw error;
      if (error instanceof errors.JWTExpired) throw new TokenRejected('expired', 'token expired');
      throw new TokenRejected('invalid', 'token is invalid');
    }
  }

  return {
    async signAccess({ issuer, identity, session, now }) {
      const iat = seconds(now);
      const exp = iat + Math.floor(options.accessTokenDurationMs / 1000);
      const claims = {
        amr: session.amr,
        client_id: session.clientId,
        z_asid: session.id,
        z_ia: identity.isAdmin,
        // The config types the login asked for (spec: custom access token claims).
        z_ct: session.configTypes,
        z_t: 'a',
        z_ice: false,
      };
      // RFC 9068 §2.1: `typ: at+jwt` keeps an access token from being taken for an ID token and vice versa.
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(identity.id)
        .setAudience([OIDC_CLIENT_ID])
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(exp)
        .setJti(newUuid())
        .sign(signingKey.key);
      return { token, expiresAt: new Date(exp * 1000) };
    },
    async signId({ issuer, identity, session, nonce, now }) {
      const iat = seconds(now);
      // OpenID Connect Core 1.0 §2; `sid` (Front-Channel Logout 1.0 §3) names the session so that an
      // id_token_hint at end_session can end it.
      return new SignJWT({
        auth_time: seconds(session.authTime),
        ...(nonce !== null ? { nonce } : {}),
        amr: session.amr,
        azp: session.clientId,
        name: identity.name,
        sid: session.id,
      })
        .setProtectedHeader({ alg, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(identity.id)
        .setAudience([OIDC_CLIENT_ID])
        .setIssuedAt(iat)
        .setExpirationTime(iat + Math.floor(options.idTokenDurationMs / 1000))
        .sign(signingKey.key);
    },
    async verify(token, now, verifyOptions = {}) {
      return verifyOurs(token, now, {
        issuer: [...issuers],
        audience: OIDC_CLIENT_ID,
        ...(verifyOptions.allowExpired ? { clockTolerance: Number.MAX_SAFE_INTEGER } : {}),
      });
    },
    async signOther(claims, typ) {
      return new SignJWT(claims).setProtectedHeader({ alg, kid, typ }).sign(signingKey.key);
    },
    async verifyOther(token, now, expected) {
      return verifyOurs(token, now, { issuer: expected.issuer, audience: expected.audience, typ: expected.typ });
    },
    jwks: (now) => ({ keys: [{ ...signingKey.publicJwk }, ...publishedRetired(now).map((key) => ({ ...key.publicJwk }))] }),
  };
}

/** True when verified claims are those of an access token (`z_t` = `a`, spec: OIDC tokens). */
export function isAccessTokenClaims(claims: JWTPayload): claims is AccessTokenClaims {
  return claims.z_t === 'a' && typeof claims.sub === 'string' && typeof claims.z_asid === 'string' && typeof claims.exp === 'number';
}
