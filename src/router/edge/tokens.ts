/**
 * Checks the tokens an SDK shows the router, offline, with the trust state the controller pushed (decision 0066):
 * the API-session JWT of a Hello or UpdateToken (an OIDC access token) and the session JWTs in Connect, Bind and
 * Unbind bodies. Keys are found by `kid` among the pushed JWKs only, each verifying only its own algorithm; the issuer
 * must be one the controller signs for. Nothing here touches the network: a legacy `svc-session` token is not a JWT,
 * and the edge listener asks the controller about it (ApiSessionCheck).
 */
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload } from 'jose';
import type { TrustStore } from '../state/trust.js';

/** Audiences an access token may carry: svc's own OIDC client id, and those the public SDKs' tokens name upstream. */
export const ACCESS_TOKEN_AUDIENCES = ['svc', 'openziti', 'native'];
/** The audience and JWS type of session tokens (src/services/edge-sessions/session-tokens.ts signs them). */
export const SESSION_TOKEN_AUDIENCE = 'svc-edge-router';
export const SESSION_TOKEN_TYPE = 'service-session+jwt';

/** A token refused: `expired` or `invalid`, with a short reason for the router's log (never the token itself). */
export class EdgeTokenError extends Error {
  override readonly name = 'EdgeTokenError';
  constructor(
    readonly kind: 'expired' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

export interface AccessTokenClaims {
  identityId: string;
  apiSessionId: string;
  /** ms since the epoch */
  expiresAt: number;
  issuedAt: number;
  /** Fingerprints (lowercase hex SHA-1) of the certificates the token is bound to (`z_cfs`). */
  fingerprints: string[];
}

export interface SessionTokenClaims {
  sessionId: string;
  serviceId: string;
  type: 'Dial' | 'Bind';
  identityId: string;
  apiSessionId: string;
  expiresAt: number;
}

/** True when `token` has the shape of a JWT (the SDKs' test: it starts with `ey`). */
export const looksLikeJwt = (token: string): boolean => token.startsWith('ey') && token.split('.').length === 3;

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

export interface EdgeTokens {
  access(token: string, now: number): Promise<AccessTokenClaims>;
  session(token: string, now: number): Promise<SessionTokenClaims>;
}

export function createEdgeTokens(trust: TrustStore): EdgeTokens {
  // Imported keys by kid, dropped when the controller pushes a new trust state (a rotated-out key stops verifying).
  let imported = new Map<string, ReturnType<typeof importJWK>>();
  trust.subscribe(() => {
    imported = new Map();
  });

  async function verify(token: string, now: number, expected: { audience: string[]; typ?: string }): Promise<JWTPayload> {
    const state = trust.current;
    if (!state) throw new EdgeTokenError('invalid', 'the router has no trust state from a controller yet');
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new EdgeTokenError('invalid', 'not a JWT');
    }
    if (!text(header.kid) || !text(header.alg)) throw new EdgeTokenError('invalid', 'the token names no key');
    const jwk = trust.key(header.kid);
    if (!jwk) throw new EdgeTokenError('invalid', `unknown key id ${header.kid.slice(0, 64)}`);
    if (header.alg !== jwk.alg) throw new EdgeTokenError('invalid', 'the algorithm does not match the key');
    let key = imported.get(header.kid);
    if (!key) {
      key = importJWK(jwk as Parameters<typeof importJWK>[0], jwk.alg as string);
      imported.set(header.kid, key);
    }
    try {
      const { payload } = await jwtVerify(token, await key, {
        algorithms: [jwk.alg as string],
        audience: expected.audience,
        issuer: state.issuers,
        currentDate: new Date(now),
        ...(expected.typ ? { typ: expected.typ } : {}),
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new EdgeTokenError('expired', 'the token expired');
      throw new EdgeTokenError('invalid', `the token is invalid (${(error as Error).message})`);
    }
  }

  return {
    async access(token, now) {
      const claims = await verify(token, now, { audience: ACCESS_TOKEN_AUDIENCES });
      if (claims.z_t !== 'a' || !text(claims.sub) || !text(claims.z_asid) || typeof claims.exp !== 'number') {
        throw new EdgeTokenError('invalid', 'not an access token');
      }
      const fingerprints = Array.isArray(claims.z_cfs) ? claims.z_cfs.filter(text).map((f) => f.toLowerCase()) : [];
      return {
        identityId: claims.sub,
        apiSessionId: claims.z_asid,
        expiresAt: claims.exp * 1000,
        issuedAt: typeof claims.iat === 'number' ? claims.iat * 1000 : 0,
        fingerprints,
      };
    },
    async session(token, now) {
      const claims = await verify(token, now, { audience: [SESSION_TOKEN_AUDIENCE], typ: SESSION_TOKEN_TYPE });
      if (
        claims.z_t !== 's' ||
        !text(claims.jti) ||
        !text(claims.sub) ||
        !text(claims.z_iid) ||
        !text(claims.z_asid) ||
        (claims.z_st !== 'Dial' && claims.z_st !== 'Bind') ||
        typeof claims.exp !== 'number'
      ) {
        throw new EdgeTokenError('invalid', 'not a session token');
      }
      return {
        sessionId: claims.jti,
        serviceId: claims.sub,
        type: claims.z_st,
        identityId: claims.z_iid,
        apiSessionId: claims.z_asid,
        expiresAt: claims.exp * 1000,
      };
    },
  };
}
