/**
 * OIDC tokens signed with the controller's server key (spec: OIDC tokens; reference facts §6, Signing): the access
 * token (a JWT, RFC 9068 shape plus the `z_` claims), the ID token (OpenID Connect Core 1.0 §2), and verification
 * of access tokens presented back to the controller.
 */
import { compactSigner, isCanonicalSignature } from '../../crypto/jws.js';
import { decodeJwt, decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK, type JWTPayload, type JWTVerifyOptions, type KeyObject, type CryptoKey as JoseKey } from 'jose';
import { OIDC_CLIENT_ID, type OidcSession } from '../../domain/oidc.js';
import type { Identity } from '../../domain/identity.js';
import { newUuid } from '../../shared/random.js';
import type { Jwks, ServerSigningKey } from '../enrollment/enrollment-jwt.js';
import type { PublishedKeys } from './oidc-signing-keys.js';
import { NO_EXTENSION, type CertExtensionFlags } from '../../domain/authenticator.js';

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
  /** The login certificate is one the controller issued, so it can be extended (reference `z_ice`). */
  z_ice: boolean;
  /** The authenticator of the login, when it names one (reference `z_authid`, omitted when empty). */
  z_authid?: string;
  /** An administrator asked for the login certificate's extension, and for a new key (reference `z_cer`, `z_ckrr`). */
  z_cer?: boolean;
  z_ckrr?: boolean;
  /**
   * Lowercase hex SHA-1 fingerprints of the certificates the session may present to an edge router: its identity's
   * certificate authenticators and the session's unexpired ephemeral certificates when the token is signed
   * (reference `z_cfs`; a router checks the TLS client certificate against it offline).
   */
  z_cfs: string[];
}

/** Why a presented token was refused: the two Bearer errors of spec Errors, rules 2 and 3. */
export class TokenRejected extends Error {
  constructor(readonly reason: 'expired' | 'invalid', message: string) {
    super(message);
    this.name = 'TokenRejected';
  }
}

export interface OidcTokenSigner {
  /**
   * `cert`: the session's certificate extension flags when the token is signed (all false when not given);
   * `certFingerprints`: the `z_cfs` claim (empty when not given).
   */
  signAccess(input: {
    issuer: string;
    identity: Identity;
    session: OidcSession;
    cert?: CertExtensionFlags;
    certFingerprints?: readonly string[];
    now: Date;
  }): Promise<{ token: string; expiresAt: Date }>;
  signId(input: { issuer: string; identity: Identity; session: OidcSession; nonce: string | null; now: Date }): Promise<string>;
  /**
   * Verifies signature (a key of any controller sharing the store), `iss` (an issuer of any of them), `aud` and times
   * against `now`; returns the claims (any token type).
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
   * Verifies a token `signOther` signed: the controllers' keys only, each with its own algorithm (`none` and others
   * refused), the `typ` and audience given, the issuer given or one of another controller, and times against `now`.
   * Throws TokenRejected (`expired` or `invalid`).
   */
  verifyOther(token: string, now: Date, expected: { typ: string; issuer: string; audience: string }): Promise<JWTPayload>;
  /** The current and the retired keys still published at `now` of every controller sharing the store, ours first. */
  jwks(now: Date): Promise<Jwks>;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** A `kid` as every controller names its key: the lowercase hex SHA-1 of its server certificate. */
const KID = /^[0-9a-f]{40}$/;
/** The JWS algorithms a controller's key may have (enrollment-jwt.ts, jwsAlgorithm); others never make the store be read. */
const KEY_ALGORITHMS = new Set(['ES256', 'ES384', 'ES512', 'RS256', 'EdDSA']);

export function createOidcTokenSigner(options: {
  signingKey: ServerSigningKey;
  accessTokenDurationMs: number;
  idTokenDurationMs: number;
  /** The keys, and the issuers, of every controller sharing the store, this one's first (oidc-signing-keys.ts). */
  keys: PublishedKeys;
}): OidcTokenSigner {
  const { signingKey, keys } = options;
  const { alg, kid } = signingKey;
  const sign = compactSigner(signingKey.key, alg);
  // Bounded by the keys ever published in the store: only keys read from it are imported, never a presented one.
  const imported = new Map<string, Promise<KeyObject | JoseKey | Uint8Array>>();
  const importOnce = (jwk: JWK) => {
    const key = imported.get(jwk.kid as string) ?? importJWK(jwk, jwk.alg);
    imported.set(jwk.kid as string, key);
    return key;
  };

  /**
   * Verifies a token against the keys of the controllers sharing the store, turning every refusal into TokenRejected.
   * Only a well-formed token (a JWS naming a kid of our form, one of the algorithms our keys have, and an issuer) may
   * make the key set re-read the store (at most once a second, oidc-signing-keys.ts). `issuerAccepted` decides on an
   * `iss`, given whether some controller sharing the store signs for it.
   */
  async function verifyOurs(
    token: string,
    now: Date,
    issuerAccepted: (iss: string, known: boolean) => boolean,
    options: Omit<JWTVerifyOptions, 'algorithms' | 'currentDate' | 'issuer'>,
  ): Promise<JWTPayload> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let iss: unknown;
    try {
      header = decodeProtectedHeader(token);
      iss = decodeJwt(token).iss;
    } catch {
      throw new TokenRejected('invalid', 'token is invalid');
    }
    if (typeof header.kid !== 'string' || typeof header.alg !== 'string' || typeof iss !== 'string') throw new TokenRejected('invalid', 'token is invalid');
    const found = await keys.resolve(header.kid, iss, now, KID.test(header.kid) && KEY_ALGORITHMS.has(header.alg));
    // Only the controllers' own keys: an unknown kid is refused rather than fetched from anywhere, and each key
    // verifies only the algorithm it was published with.
    if (!found) throw new TokenRejected('invalid', 'unknown key id');
    const jwk = found.key.publicJwk;
    if (header.alg !== jwk.alg) throw new TokenRejected('invalid', 'algorithm does not match the key');
    if (!issuerAccepted(iss, found.issuerKnown)) throw new TokenRejected('invalid', 'token is invalid');
    // Our signers emit low-S ECDSA signatures only; the high-S twin of one is another token string for the same claims,
    // which would slip past anything keyed by the string (the verified-token cache, a deny list). Decision 0060.
    if (!isCanonicalSignature(token, header.alg)) throw new TokenRejected('invalid', 'token is invalid');
    try {
      // The algorithm list pins the key's own algorithm: `none` and HS256-with-the-public-key are refused.
      const { payload } = await jwtVerify(token, await importOnce(jwk), { ...options, algorithms: [jwk.alg as string], currentDate: now });
      return payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new TokenRejected('expired', 'token expired');
      throw new TokenRejected('invalid', 'token is invalid');
    }
  }

  return {
    async signAccess({ issuer, identity, session, cert = NO_EXTENSION, certFingerprints = [], now }) {
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
        // A snapshot for the SDK when the token is signed; the controller itself reads the flags from the store
        // (GET /current-api-session), so a request-extend shows there before the next token (decision 0038).
        z_ice: cert.isCertExtendable,
        ...(session.authenticatorId ? { z_authid: session.authenticatorId } : {}),
        z_cer: cert.isCertExtendRequested,
        z_ckrr: cert.isCertKeyRollRequested,
        z_cfs: [...certFingerprints],
      };
      // RFC 9068 §2.1: `typ: at+jwt` keeps an access token from being taken for an ID token and vice versa.
      const token = await sign(
        { alg, kid, typ: 'at+jwt' },
        { ...claims, iss: issuer, sub: identity.id, aud: [OIDC_CLIENT_ID], iat, nbf: iat, exp, jti: newUuid() },
      );
      return { token, expiresAt: new Date(exp * 1000) };
    },
    async signId({ issuer, identity, session, nonce, now }) {
      const iat = seconds(now);
      // OpenID Connect Core 1.0 §2; `sid` (Front-Channel Logout 1.0 §3) names the session so that an
      // id_token_hint at end_session can end it.
      return sign(
        { alg, kid, typ: 'JWT' },
        {
          auth_time: seconds(session.authTime),
          ...(nonce !== null ? { nonce } : {}),
          amr: session.amr,
          azp: session.clientId,
          name: identity.name,
          sid: session.id,
          iss: issuer,
          sub: identity.id,
          aud: [OIDC_CLIENT_ID],
          iat,
          exp: iat + Math.floor(options.idTokenDurationMs / 1000),
        },
      );
    },
    async verify(token, now, verifyOptions = {}) {
      // Any issuer of any controller sharing the store: a session started at one controller keeps that issuer in the
      // tokens every other one signs for it (the client checks `iss` against where it logged in).
      return verifyOurs(token, now, (_iss, known) => known, {
        audience: OIDC_CLIENT_ID,
        ...(verifyOptions.allowExpired ? { clockTolerance: Number.MAX_SAFE_INTEGER } : {}),
      });
    },
    async signOther(claims, typ) {
      return sign({ alg, kid, typ }, claims);
    },
    async verifyOther(token, now, expected) {
      return verifyOurs(token, now, (iss, known) => iss === expected.issuer || known, { audience: expected.audience, typ: expected.typ });
    },
    jwks: async (now) => ({ keys: (await keys.list(now)).map((key) => ({ ...key.publicJwk })) }),
  };
}

/** True when verified claims are those of an access token (`z_t` = `a`, spec: OIDC tokens). */
export function isAccessTokenClaims(claims: JWTPayload): claims is AccessTokenClaims {
  return claims.z_t === 'a' && typeof claims.sub === 'string' && typeof claims.z_asid === 'string' && typeof claims.exp === 'number';
}
