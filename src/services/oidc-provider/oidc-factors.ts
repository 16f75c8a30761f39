/**
 * The secondary factors of an OIDC login (spec: OIDC authorization request states, TOTP enrollment inside the
 * OIDC flow): answering TOTP, and enrolling TOTP without leaving the login when the policy requires it of an
 * identity that has none. Works only on partially authenticated requests; when the last outstanding factor is
 * answered the request goes on to the callback that issues the code, exactly as a primary login with nothing outstanding does.
 */
import type { OutstandingFactor } from '../../domain/auth-policy.js';
import type { Identity } from '../../domain/identity.js';
import type { OidcAuthRequest } from '../../domain/oidc.js';
import { OAuthError } from '../../errors/oauth-error.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { OidcRepository } from '../../persistence/repositories/oidc.js';
import type { Clock } from '../../shared/clock.js';
import type { AuthenticationRequest } from '../authentication/authentication.js';
import { createPrincipalLoader } from '../authentication/principal.js';
import type { ExtJwtAuthenticator } from '../external-jwt/ext-jwt-auth.js';
import type { MfaService, MfaStatus } from '../mfa/mfa.js';
import { callbackLocation, type LoginOutcome, type OidcProviderService } from './oidc-provider.js';

export interface OidcFactorService {
  /**
   * A login POST (`/login/password|username|cert|ext-jwt`): the primary credential, and a secondary external JWT
   * among the Bearer values when the policy requires one. On a request that is partially authenticated and owes the
   * secondary JWT, a POST carrying Bearer values (or any POST to `/login/ext-jwt`) answers that JWT instead: valid
   * -> the factor is answered; missing, expired or invalid -> 401 with the `svc-secondary-ext-jwt` challenge.
   */
  login(authRequestId: string | undefined, credentials: AuthenticationRequest): Promise<LoginOutcome>;
  /**
   * `POST /oidc/login/totp`: a TOTP or recovery code answers the TOTP factor. This and the three enrollment steps
   * need a partially authenticated request with TOTP outstanding (invalid_request otherwise).
   */
  answerTotp(authRequestId: string | undefined, code: string | undefined): Promise<LoginOutcome>;
  /** `POST /oidc/login/totp/enroll`: starts an enrollment for the request's identity; the request stays as it is. */
  startTotpEnrollment(authRequestId: string | undefined): Promise<MfaStatus>;
  /** The TOTP enrollment this login started and has not verified yet (its QR code and codes shown again). */
  pendingTotpEnrollment(authRequestId: string | undefined): Promise<MfaStatus>;
  /** `POST /oidc/login/totp/enroll/verify`: completes the enrollment, which also answers the TOTP factor. */
  verifyTotpEnrollment(authRequestId: string | undefined, code: string | undefined): Promise<LoginOutcome>;
  /** `DELETE /oidc/login/totp/enroll`: abandons a pending enrollment (a verified one needs a code). */
  cancelTotpEnrollment(authRequestId: string | undefined): Promise<void>;
  /** Records `kind` as answered (amr `amr`); issues the code when nothing else is outstanding. */
  answered(request: OidcAuthRequest, kind: OutstandingFactor['kind'], amr: string): Promise<LoginOutcome>;
}

export function createOidcFactorService(deps: {
  provider: Pick<OidcProviderService, 'pendingAuthRequest' | 'sealedAuthRequest' | 'login'>;
  extJwt: Pick<ExtJwtAuthenticator, 'secondary'>;
  oidc: OidcRepository;
  identities: Pick<IdentityRepository, 'findById'>;
  mfa: MfaService;
  clock: Clock;
}): OidcFactorService {
  const { oidc, mfa, clock } = deps;
  const principals = createPrincipalLoader({ identities: deps.identities, clock });

  /** The partially authenticated request and its (still active) identity. */
  async function partial(authRequestId: string | undefined): Promise<{ request: OidcAuthRequest; identity: Identity }> {
    const request = await deps.provider.pendingAuthRequest(authRequestId);
    if (request.status !== 'partially_authenticated' || !request.identityId) {
      throw new OAuthError('invalid_request', 'the auth request has no primary login yet; log in with a password, certificate or external JWT first');
    }
    return { request, identity: await activeIdentityOf(request) };
  }

  /** The identity a partially authenticated request belongs to, if it may still log in. */
  async function activeIdentityOf(request: OidcAuthRequest): Promise<Identity> {
    const principal = await principals.load(request.identityId as string);
    // A partial login whose identity went away or was disabled meanwhile ends here (RFC 6749 §4.1.2.1: access_denied).
    if (!principal.ok) throw new OAuthError('access_denied', 'the identity may no longer log in');
    return principal.identity;
  }

  async function answered(request: OidcAuthRequest, kind: OutstandingFactor['kind'], amrValue: string): Promise<LoginOutcome> {
    const outstanding = request.outstanding.filter((factor) => factor.kind !== kind);
    const amr = request.amr.includes(amrValue) ? request.amr : [...request.amr, amrValue];
    const changed = () => new OAuthError('invalid_request', 'the auth request changed while answering; read its auth queries and try again');
    if (outstanding.length > 0) {
      if (!(await oidc.answerFactor(request.id, request.outstanding, { amr, outstanding }))) throw changed();
      return { kind: 'partially_authenticated', request: { ...request, amr, outstanding }, outstanding };
    }
    // The last factor: on to the controller's callback, which issues the code.
    if (!(await oidc.answerFactor(request.id, request.outstanding, { amr, outstanding }))) throw changed();
    return { kind: 'authenticated', location: callbackLocation(request.issuer, request.handle) };
  }

  const owedSigner = (request: OidcAuthRequest) => request.outstanding.find((factor) => factor.kind === 'ext-jwt')?.signerId;

  /** Answers the secondary JWT of a partially authenticated request. */
  async function answerExtJwt(request: OidcAuthRequest, signerId: string, tokens: readonly string[]): Promise<LoginOutcome> {
    await deps.extJwt.secondary(signerId, await activeIdentityOf(request), tokens);
    // Reference AMR value of a secondary external JWT: `ejs:<signer id>`.
    return answered(request, 'ext-jwt', `ejs:${signerId}`);
  }

  const totpOutstanding = (request: OidcAuthRequest) => request.outstanding.some((factor) => factor.kind === 'totp');

  /**
   * The partial request, if TOTP is what it still needs. The enrollment steps change the identity's MFA, which a
   * login that has proven only its primary credential may do solely to answer a TOTP factor it owes: otherwise a
   * password alone (an external JWT still outstanding) could enroll TOTP, locking the owner out of later logins.
   */
  async function owingTotp(authRequestId: string | undefined, options: { enrolling?: boolean } = {}): Promise<{ request: OidcAuthRequest; identity: Identity }> {
    const found = await partial(authRequestId);
    if (!totpOutstanding(found.request)) throw new OAuthError('invalid_request', 'TOTP is not outstanding for this auth request');
    // Enrolling sets the factor every later login needs: only a login that proved everything else may do it, or a
    // password alone could plant an attacker's authenticator on an account that also requires an external JWT.
    if (options.enrolling && owedSigner(found.request)) {
      throw new OAuthError('invalid_request', 'answer the external JWT the auth policy requires (POST /oidc/login/ext-jwt) before enrolling TOTP');
    }
    return found;
  }

  return {
    answered,

    async login(authRequestId, credentials) {
      const tokens = credentials.bearerTokens ?? [];
      // Only a login that may answer an external JWT the request owes needs to know first how the store has it; any
      // other primary login learns that from its own write (provider.login), and most requests are not stored yet.
      const mayAnswerJwt = tokens.length > 0 || credentials.method === 'ext-jwt';
      const request = mayAnswerJwt ? await deps.provider.pendingAuthRequest(authRequestId) : deps.provider.sealedAuthRequest(authRequestId);
      const owed = request.status === 'partially_authenticated' ? owedSigner(request) : undefined;
      if (owed && mayAnswerJwt) return answerExtJwt(request, owed, tokens);
      const outcome = await deps.provider.login(request, credentials);
      const nowOwed = outcome.kind === 'partially_authenticated' ? owedSigner(outcome.request) : undefined;
      if (outcome.kind !== 'partially_authenticated' || !nowOwed || tokens.length === 0) return outcome;
      // The Bearer values may hold the secondary JWT already. If none answers it (one may be the primary JWT just
      // used), the primary login still stands: started -> partially authenticated, 200 with the auth queries.
      try {
        return await answerExtJwt(outcome.request, nowOwed, tokens);
      } catch (error) {
        if (isApiError(error) && error.status === 401) return outcome;
        throw error;
      }
    },

    async answerTotp(authRequestId, code) {
      const { request, identity } = await owingTotp(authRequestId);
      await mfa.answer(identity, code);
      return answered(request, 'totp', 'totp');
    },

    async startTotpEnrollment(authRequestId) {
      const { identity } = await owingTotp(authRequestId, { enrolling: true });
      return mfa.start(identity);
    },

    async pendingTotpEnrollment(authRequestId) {
      const { identity } = await owingTotp(authRequestId, { enrolling: true });
      return mfa.status(identity);
    },

    async verifyTotpEnrollment(authRequestId, code) {
      const { request, identity } = await owingTotp(authRequestId, { enrolling: true });
      await mfa.verify(identity, code);
      return answered(request, 'totp', 'totp');
    },

    async cancelTotpEnrollment(authRequestId) {
      const { identity } = await owingTotp(authRequestId, { enrolling: true });
      // Spec: only an in-progress enrollment is abandoned here. A verified one is removed from a full session with
      // a code, or by an administrator: a login that is only half done must not be able to drop a factor.
      if (await mfa.hasVerified(identity.id)) {
        throw new ApiError('MFA_EXISTS', { message: 'the TOTP enrollment is verified; it can be removed only from a full session (DELETE current-identity/mfa) or by an administrator' });
      }
      await mfa.remove(identity, undefined);
    },

  };
}
