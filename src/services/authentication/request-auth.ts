/**
 * Decides who is calling from the credentials a request carries (spec: Authentication, Credential forms, and
 * Errors, Unauthorized responses). Knows nothing of HTTP: it is given the `svc-session` header value and the
 * Bearer tokens, and returns the caller or throws UNAUTHORIZED with the WWW-Authenticate challenges to send.
 */
import { ApiError, type AuthChallenge } from '../../errors/api-error.js';
import { hashToken } from '../../crypto/secrets.js';
import type { ApiSession, Identity } from '../../domain/identity.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import type { AccessTokenVerifier, VerifiedAccessToken } from '../oidc-provider/oidc-access-tokens.js';
import { TokenRejected } from '../oidc-provider/oidc-tokens.js';
import type { SessionActivity } from '../sessions/session-activity.js';
import type { ExtJwtAuthenticator } from '../external-jwt/ext-jwt-auth.js';
import type { MemoryLookup, SessionLookup } from './auth-lookups.js';
import type { PresentedClientCertificate } from './authentication.js';
import { createPrincipalLoader, judgePrincipal } from './principal.js';

/**
 * Who is calling. A legacy session token and an OIDC access token both yield an API session view: for OIDC the
 * session id is the token's `z_asid` and the expiry is the token's `exp` (spec: Response headers).
 */
export interface AuthContext {
  kind: 'legacy' | 'oidc';
  /** The credential that named the session (legacy token or access token): the session view's `token`. */
  token: string;
  session: ApiSession;
  identity: Identity;
  expiresAt: Date;
  /** True while the session still has auth queries to answer (legacy partial authentication). */
  partial: boolean;
}

export interface PresentedCredentials {
  sessionToken: string | undefined;
  bearerTokens: string[];
  /**
   * The TLS client certificate, when one was presented and the request carries no token: an ephemeral certificate
   * may then name a session (decision 0038).
   */
  clientCertificate?: PresentedClientCertificate;
  /** A legacy session named by its token's SHA-256 instead of the token (set from an ephemeral certificate). */
  sessionTokenHash?: string;
  /** The SHA-256 of `sessionToken`, when the caller has it already (the token its connection sent before). */
  knownSessionTokenHash?: string;
}

export interface RequestAuthenticator {
  authenticate(credentials: PresentedCredentials): Promise<AuthContext>;
  /**
   * The caller at once, when every fact the decision needs is kept in memory and the decision accepts it; else
   * undefined, and `authenticate` decides (decision 0041). Never refuses: every refusal, with its challenge, and every
   * credential that needs the store or a signature checked, is `authenticate`'s. Marks the session's activity as
   * `authenticate` does.
   */
  authenticateFromMemory(credentials: PresentedCredentials): AuthContext | undefined;
}

const NO_TOKEN = 'no matching token was provided';

/** Rule 1: no supported token at all -> challenges for both the legacy and the OIDC realm. */
export function missingCredentialsError(): ApiError {
  return new ApiError('UNAUTHORIZED', {
    challenges: [
      { scheme: 'svc-session', realm: 'svc-session', error: 'missing', description: NO_TOKEN },
      { scheme: 'Bearer', realm: 'svc-oidc', error: 'missing', description: NO_TOKEN },
    ],
  });
}

function unauthorized(challenge: AuthChallenge, message?: string): ApiError {
  return new ApiError('UNAUTHORIZED', { challenges: [challenge], ...(message ? { message } : {}) });
}

export function createRequestAuthenticator(deps: {
  apiSessions: SessionLookup & MemoryLookup<ApiSession>;
  identities: Pick<IdentityRepository, 'findById'> & MemoryLookup<Identity>;
  activity: SessionActivity;
  clock: Clock;
  sessionTimeoutMs: number;
  /** Absent when the controller has no edge section (no OIDC provider): every Bearer token is then invalid. */
  accessTokens?: AccessTokenVerifier;
  /**
   * The secondary external JWT requirement (spec: `secondary.requireExtJwt`): the signer an identity's policy
   * requires, and the check of the request's other Bearer values against it. Absent: nothing is required.
   */
  secondary?: {
    requiredSigner(identity: Identity): Promise<string | null>;
    /** The same answer when the identity's auth policy is kept in memory; undefined when it is not. */
    requiredSignerFromMemory(identity: Identity): string | null | undefined;
    check: ExtJwtAuthenticator['secondary'];
  };
}): RequestAuthenticator {
  const { apiSessions, identities, activity, clock, sessionTimeoutMs, accessTokens } = deps;
  const principals = createPrincipalLoader({ identities, clock });

  /** Every request re-checks the secondary JWT, so one that expires stops the next call (issue 6). */
  async function withSecondary(context: AuthContext, otherBearerTokens: string[]): Promise<AuthContext> {
    const signerId = deps.secondary ? await deps.secondary.requiredSigner(context.identity) : null;
    if (signerId && deps.secondary) await deps.secondary.check(signerId, context.identity, otherBearerTokens);
    return context;
  }
  const invalidToken = (description = 'token is invalid') =>
    unauthorized({ scheme: 'svc-session', realm: 'svc-session', error: 'invalid', description });

  /** What the decision knows of a legacy session: it ends `sessionTimeoutMs` after its latest activity, stored or remembered. */
  const sessionFacts = (session: ApiSession) => {
    const remembered = activity.pending(session.id);
    const lastActivity = remembered && remembered > session.lastActivityAt ? remembered : session.lastActivityAt;
    return { expiresAt: new Date(lastActivity.getTime() + sessionTimeoutMs) };
  };
  const principalOf = (session: ApiSession, now: Date) => principals.load(session.identityId, { session: sessionFacts(session), now });

  /** An accepted legacy session: its activity is marked now, and its expiry moves with it. */
  const legacyContext = (token: string, session: ApiSession, identity: Identity, now: Date): AuthContext => {
    activity.seen(session.id, now);
    session.lastActivityAt = now;
    return { kind: 'legacy', token, session, identity, expiresAt: new Date(now.getTime() + sessionTimeoutMs), partial: session.outstanding.length > 0 };
  };

  /** `token` is what the session view shows: the token presented, or '' when only its hash was (decision 0038). */
  async function fromSessionToken(token: string, tokenHash = hashToken(token)): Promise<AuthContext> {
    let session = await apiSessions.findByTokenHash(tokenHash);
    if (!session) throw invalidToken();
    const now = clock.now();
    let principal = await principalOf(session, now);
    if (!principal.ok && principal.reason === 'expired') {
      // A kept copy knows only this controller's activity; another controller may have seen the session since and
      // written that to the store. The store decides before the session is ended.
      session = await apiSessions.findByTokenHash(tokenHash, { fromStore: true });
      if (!session) throw invalidToken();
      principal = await principalOf(session, now);
    }
    if (!principal.ok && principal.reason === 'expired') {
      activity.forget(session.id);
      await apiSessions.delete(session.id);
      throw unauthorized({ scheme: 'svc-session', realm: 'svc-session', error: 'expired', description: 'token expired' });
    }
    // A disabled identity's sessions stop working at once (they resume if it is enabled before they time out); a
    // session whose identity is gone is simply invalid.
    if (!principal.ok) throw invalidToken(principal.reason === 'disabled' ? principal.description : undefined);
    return legacyContext(token, session, principal.identity, now);
  }

  /** The view of the OIDC session behind an accepted access token. */
  const oidcContext = (token: string, { claims, session, identity, expiresAt }: VerifiedAccessToken): AuthContext => {
    const view: ApiSession = {
      id: session.id,
      identityId: identity.id,
      authMethod: claims.amr[0] ?? 'oidc',
      // As the session recorded them at its login (migration 0021): the certificate extension flags of the view
      // are read from this authenticator, so an administrator's request-extend shows on the next request.
      authenticatorId: session.authenticatorId ?? '',
      ipAddress: session.ipAddress ?? null,
      // What the login asked for, as the provider put it in the token (`z_ct`).
      configTypes: Array.isArray(claims.z_ct) ? claims.z_ct.filter((type): type is string => typeof type === 'string') : [],
      createdAt: session.createdAt,
      lastActivityAt: clock.now(),
      // An OIDC session exists only once every factor was answered (spec: OIDC authorization request states).
      outstanding: [],
      mfaRequired: claims.amr.includes('totp'),
    };
    return { kind: 'oidc', token, session: view, identity, expiresAt, partial: false };
  };

  /** Whether `identity`'s auth policy is kept in memory and requires no secondary JWT (else `authenticate` decides). */
  const noSecondaryKnown = (identity: Identity) => !deps.secondary || deps.secondary.requiredSignerFromMemory(identity) === null;

  /** A legacy session whose row and identity are kept in memory and which the decision accepts. */
  function legacyFromMemory(token: string, tokenHash = hashToken(token)): AuthContext | undefined {
    const session = apiSessions.peek(tokenHash);
    const identity = session && deps.identities.peek(session.identityId);
    if (session === undefined || identity === undefined) return undefined;
    const now = clock.now();
    if (!judgePrincipal(identity, sessionFacts(session), now).ok) return undefined;
    // Judged before its activity is marked: a policy requiring a secondary JWT leaves the whole request to `authenticate`.
    return noSecondaryKnown(identity) ? legacyContext(token, session, identity, now) : undefined;
  }

  /**
   * The first Bearer value that is a valid access token (others may be external JWTs). When none is, rule 2 or 3:
   * `expired` when some token was ours and only past its expiry, else `invalid`.
   */
  async function fromBearerTokens(tokens: string[]): Promise<{ context: AuthContext; token: string }> {
    let expired = false;
    for (const token of tokens) {
      if (!accessTokens) break;
      try {
        return { context: oidcContext(token, await accessTokens.verify(token)), token };
      } catch (error) {
        if (!(error instanceof TokenRejected)) throw error;
        if (error.reason === 'expired') expired = true;
      }
    }
    if (expired) throw unauthorized({ scheme: 'Bearer', realm: 'svc-oidc', error: 'expired', description: 'token expired' });
    throw unauthorized({ scheme: 'Bearer', realm: 'svc-oidc', error: 'invalid', description: 'token is invalid' });
  }

  return {
    authenticateFromMemory({ sessionToken, bearerTokens, knownSessionTokenHash }) {
      if (sessionToken !== undefined && sessionToken !== '') return legacyFromMemory(sessionToken, knownSessionTokenHash);
      // Only a lone access token: with more Bearer values, which one is the access token is `authenticate`'s to find.
      if (bearerTokens.length !== 1 || !accessTokens) return undefined;
      const token = bearerTokens[0] as string;
      const verified = accessTokens.verifyFromMemory(token);
      return verified && noSecondaryKnown(verified.identity) ? oidcContext(token, verified) : undefined;
    },

    async authenticate({ sessionToken, bearerTokens, sessionTokenHash, knownSessionTokenHash }) {
      // The reference gives the legacy header precedence: with it present, Bearer values are external JWTs.
      if (sessionToken !== undefined && sessionToken !== '') return withSecondary(await fromSessionToken(sessionToken, knownSessionTokenHash), bearerTokens);
      if (bearerTokens.length > 0) {
        const { context, token } = await fromBearerTokens(bearerTokens);
        return withSecondary(context, bearerTokens.filter((other) => other !== token));
      }
      if (sessionTokenHash !== undefined) return withSecondary(await fromSessionToken('', sessionTokenHash), bearerTokens);
      throw missingCredentialsError();
    },
  };
}
