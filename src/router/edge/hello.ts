/**
 * Who an SDK's Hello speaks for (facts §4): header 1002 holds its API-session token. An OIDC access JWT is checked
 * offline (signature by `kid`, issuer, audience, `z_t` = `a`, `exp`), and the client certificate must be one the
 * token names in `z_cfs`; a certificate the token does not name (an ephemeral one made after it was signed) is asked
 * about at the controller. A legacy `svc-session` token is not a JWT: the controller says which session it is, over
 * the mutual-TLS control channel. Revoked sessions and identities are refused from the pushed revocations.
 */
import { ApiSessionCheckAnswerSchema } from '../../control-protocol/bodies.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import { limitInFlight } from '../../shared/in-turn.js';
import type { ControlClient } from '../control/control-client.js';
import type { RevocationState } from '../state/revocations.js';
import { EdgeError, type EdgeErrorCode } from '../../channel/edge-protocol.js';
import type { ChannelSession } from './sdk-channel.js';
import { EdgeTokenError, looksLikeJwt, type EdgeTokens } from './tokens.js';

/** A Hello or UpdateToken refused: the code goes in headers 1014/1033, the sentence in the body. */
export class EdgeRefusal extends Error {
  override readonly name = 'EdgeRefusal';
  constructor(
    readonly code: EdgeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface SessionChecker {
  /** The API session a token proves for a client certificate; EdgeRefusal when it proves none. */
  check(token: string, fingerprint: string, now: number): Promise<ChannelSession>;
  /** The same session, from a fresh access token (UpdateToken): it must name the same API session. */
  refresh(current: ChannelSession, token: string, fingerprint: string, now: number): Promise<ChannelSession>;
}

const CHECK_TIMEOUT_MS = 10_000;
/**
 * ApiSessionChecks a router has in flight at once. The controller answers at most 64 requests in flight per router
 * and refuses the rest as UNAVAILABLE; a burst of legacy Hellos (a fleet reconnecting) waits here in order instead.
 */
const MAX_CHECKS_IN_FLIGHT = 32;


export function createSessionChecker(deps: { tokens: EdgeTokens; control: Pick<ControlClient, 'request' | 'connected'>; revocations: RevocationState }): SessionChecker {
  const { tokens, control, revocations } = deps;

  const inTurn = limitInFlight(MAX_CHECKS_IN_FLIGHT);
  async function ask(body: { legacyToken?: string; apiSessionId?: string; fingerprint: string }) {
    if (!control.connected) throw new EdgeRefusal(EdgeError.Internal, 'the router cannot reach a controller to check this API session; try again');
    try {
      return await inTurn(() => control.request(ControlType.ApiSessionCheck, body, ApiSessionCheckAnswerSchema, CHECK_TIMEOUT_MS));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'NOT_FOUND') throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the API session is not valid (ended, expired or unknown)');
      throw new EdgeRefusal(EdgeError.Internal, `the controller could not check the API session: ${(error as Error).message}`);
    }
  }

  function notRevoked(session: ChannelSession, now: number): ChannelSession {
    if (revocations.isSessionRevoked(session.apiSessionId, now)) throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the API session has ended');
    if (revocations.identityRevokedSince(session.identityId, session.createdAt)) throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the identity was disabled or deleted');
    return session;
  }

  async function fromJwt(token: string, fingerprint: string, now: number): Promise<ChannelSession> {
    let claims;
    try {
      claims = await tokens.access(token, now);
    } catch (error) {
      if (error instanceof EdgeTokenError) throw new EdgeRefusal(EdgeError.InvalidApiSession, `the API session token is ${error.kind === 'expired' ? 'expired' : `not valid: ${error.message}`}`);
      throw error;
    }
    let identityName = '';
    let createdAt = claims.issuedAt;
    if (!claims.fingerprints.includes(fingerprint)) {
      // Not named by the token: the controller knows whether it is an ephemeral certificate of this session.
      const answer = await ask({ apiSessionId: claims.apiSessionId, fingerprint });
      if (!answer.certificateBound || answer.identityId !== claims.identityId) {
        throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the client certificate does not belong to the API session of the token');
      }
      identityName = answer.identityName;
      createdAt = answer.createdAt;
    }
    return notRevoked({ apiSessionId: claims.apiSessionId, identityId: claims.identityId, identityName, legacy: false, createdAt, expiresAt: claims.expiresAt }, now);
  }

  return {
    async check(token, fingerprint, now) {
      if (token === '') throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the Hello carries no API session token (header 1002)');
      if (looksLikeJwt(token)) return fromJwt(token, fingerprint, now);
      const answer = await ask({ legacyToken: token, fingerprint });
      if (!answer.certificateBound) throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the client certificate does not belong to the API session');
      return notRevoked(
        { apiSessionId: answer.apiSessionId, identityId: answer.identityId, identityName: answer.identityName, legacy: true, createdAt: answer.createdAt, expiresAt: undefined },
        now,
      );
    },
    async refresh(current, token, fingerprint, now) {
      if (current.legacy) throw new EdgeRefusal(EdgeError.InvalidApiSessionType, 'a legacy API session has no token to update');
      if (!looksLikeJwt(token)) throw new EdgeRefusal(EdgeError.InvalidApiSessionType, 'the new token is not a JWT');
      const next = await fromJwt(token, fingerprint, now);
      if (next.apiSessionId !== current.apiSessionId) throw new EdgeRefusal(EdgeError.InvalidApiSession, 'the new token belongs to another API session');
      return { ...next, identityName: next.identityName || current.identityName, createdAt: current.createdAt };
    },
  };
}
