/**
 * The token of a client API session (issue 15, item 3; docs/decisions/0031-edge-sessions.md): a JWT the controller
 * signs with its current key, the one the OIDC provider signs access tokens with and publishes at `/oidc/keys`, so an
 * edge router can check it without the store. It names the session (`jti`), the service (`sub`, as the reference
 * does), the type, the identity and the API session. Its issuer is the edge API's address and its audience the edge
 * routers, so it is never taken for an access token (those carry the `/oidc` issuer and the client id, and `z_t: a`).
 * Signed afresh on every read of its session, so a client renews it by reading the session again.
 */
import type { JWTPayload } from 'jose';
import type { EdgeSession } from '../../domain/edge-session.js';
import type { ServicePolicyType } from '../../domain/policy.js';
import { TokenRejected, type OidcTokenSigner } from '../oidc-provider/oidc-tokens.js';

/** Who a session token is for: the edge routers that carry the session's traffic. */
export const SESSION_TOKEN_AUDIENCE = 'svc-edge-router';
/** The JWS `typ` of a session token (RFC 8725 §3.11: explicit typing keeps one kind of token from passing as another). */
export const SESSION_TOKEN_TYPE = 'service-session+jwt';

/** The claims of a session token. */
export interface SessionTokenClaims {
  /** The session id. */
  jti: string;
  /** The service id. */
  sub: string;
  iss: string;
  exp: number;
  /** `s`: a session token (access tokens carry `a`). */
  z_t: 's';
  /** Dial or Bind. */
  z_st: ServicePolicyType;
  /** The identity id. */
  z_iid: string;
  /** The API session id. */
  z_asid: string;
  /** True when the API session is a legacy one (`svc-session`), false for OIDC. */
  z_leg: boolean;
}

export interface SessionTokens {
  /** The session's token, signed at `now`, valid until `expiresAt`. */
  sign(session: EdgeSession, now: Date, expiresAt: Date): Promise<string>;
  /** The claims of a token this controller signed for a session; throws TokenRejected (`expired` or `invalid`). */
  verify(token: string, now: Date): Promise<SessionTokenClaims>;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

function isSessionTokenClaims(claims: JWTPayload): claims is JWTPayload & SessionTokenClaims {
  const text = (value: unknown) => typeof value === 'string' && value !== '';
  return (
    claims.z_t === 's' &&
    text(claims.jti) &&
    text(claims.sub) &&
    text(claims.z_iid) &&
    text(claims.z_asid) &&
    (claims.z_st === 'Dial' || claims.z_st === 'Bind') &&
    typeof claims.z_leg === 'boolean' &&
    typeof claims.exp === 'number'
  );
}

/**
 * Session tokens over the controller's signer, issued as `issuer` (https://<edge.api.address>).
 *
 * @example const token = await sessionTokens.sign(session, clock.now(), new Date(clock.now().getTime() + 1_800_000));
 */
export function createSessionTokens(deps: { signer: Pick<OidcTokenSigner, 'signOther' | 'verifyOther'>; issuer: string }): SessionTokens {
  const { signer, issuer } = deps;
  return {
    async sign(session, now, expiresAt) {
      const iat = seconds(now);
      const claims = {
        iss: issuer,
        sub: session.serviceId,
        aud: [SESSION_TOKEN_AUDIENCE],
        iat,
        nbf: iat,
        exp: seconds(expiresAt),
        jti: session.id,
        z_t: 's',
        z_st: session.type,
        z_iid: session.identityId,
        z_asid: session.apiSessionId,
        z_leg: session.apiSessionKind === 'legacy',
      };
      return signer.signOther(claims, SESSION_TOKEN_TYPE);
    },
    async verify(token, now) {
      const claims = await signer.verifyOther(token, now, { typ: SESSION_TOKEN_TYPE, issuer, audience: SESSION_TOKEN_AUDIENCE });
      if (!isSessionTokenClaims(claims)) throw new TokenRejected('invalid', 'not a session token');
      return claims;
    },
  };
}
