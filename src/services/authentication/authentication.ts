/**
 * Primary authentication of the legacy flow (spec: Legacy flow; reference facts §7): verifies the presented
 * credential with the chosen method, applies the identity's auth policy (method allowed, lockout), and opens an
 * API session. Methods are strategies keyed by name; `ext-jwt` joins them with the external signers (issue 6).
 *
 * Every refusal of a credential is the same 401 INVALID_AUTH, whether the user is unknown, the password wrong, the
 * method disallowed or the identity disabled, so that answers do not tell an attacker which usernames exist.
 *
 * A primary login that succeeds, legacy or OIDC, records the `sdkInfo` and `envInfo` its body carried on the
 * identity (reference facts §7: authentication updates them), where the identity's detail shows them.
 */
import { ApiError } from '../../errors/api-error.js';
import { hashPassword, verifyPassword } from '../../crypto/passwords.js';
import { isApiError } from '../../errors/api-error.js';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from '../../domain/auth-policy.js';
import type { ApiSession, ClientInfo, Identity } from '../../domain/identity.js';
import { isIdentityDisabled } from '../../policy/identity-status.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { CredentialRepository } from '../../persistence/repositories/credentials.js';
import type { PasswordGuard } from './password-guard.js';
import type { SecurityEvents } from '../audit/security-events.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import type { ApiSessionService } from '../sessions/api-sessions.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import type { ExtJwtAuthenticator } from '../external-jwt/ext-jwt-auth.js';
import { outstandingFactors, type OutstandingFactor } from '../../policy/secondary-factors.js';

/** What the TLS layer established about the client certificate (extracted by the HTTP adapter). */
export interface PresentedClientCertificate {
  /** Lowercase hex SHA-1 of the leaf's DER. */
  fingerprint: string;
  /** True when the presented chain verified against the controller's CAs. */
  verified: boolean;
  /** OpenSSL's reason when it did not verify (e.g. `CERT_HAS_EXPIRED`). */
  verificationError: string | undefined;
}

export interface AuthenticationRequest {
  method: string;
  username?: string;
  password?: string;
  clientCertificate?: PresentedClientCertificate;
  /** `Authorization: Bearer` values, in order (method ext-jwt; also a secondary JWT at OIDC logins). */
  bearerTokens?: readonly string[];
  ipAddress: string | null;
  /** What the client says about its SDK and machine; recorded on the identity when the primary login succeeds. */
  sdkInfo?: ClientInfo;
  envInfo?: ClientInfo;
  /** Config types the client wants with its services (names or ids, as given): shown on the session it opens. */
  configTypes?: readonly string[];
}

export interface AuthenticationResult {
  session: ApiSession;
  token: string;
  identity: Identity;
  expiresAt: Date;
}

export interface AuthenticationService {
  authenticate(request: AuthenticationRequest): Promise<AuthenticationResult>;
  /**
   * Checks the primary credential exactly as `authenticate` does (policy, lockout counting, disabled identities, the
   * client info recorded) but opens no legacy API session: the OIDC login uses it and issues its own session
   * (spec: OIDC flow).
   */
  verifyPrimary(request: AuthenticationRequest): Promise<Identity>;
  /** The auth policy an identity is governed by (its own, else the system `default`). */
  policyOf(identity: Identity): Promise<AuthPolicy>;
  /** The secondary factors a login of `identity` must answer after its primary credential, TOTP first. */
  secondaryFactors(identity: Identity): Promise<OutstandingFactor[]>;
}

/** Who a credential proved, and with which authenticator (the session's `authenticatorId`). */
interface PrimaryOutcome {
  identity: Identity;
  authenticatorId: string;
}

type PrimaryMethod = (request: AuthenticationRequest) => Promise<PrimaryOutcome>;

/** Why a login was refused, kept beside the error for the security log; the client is never told. */
const REFUSAL_REASON = Symbol('refusal reason');
const REFUSAL_IDENTITY = Symbol('refused identity');

/** The one answer to every refused credential, remembering the reason and identity for the security log. */
function refuse(reason: string, identityId?: string): ApiError {
  const error = new ApiError('INVALID_AUTH', { message: 'The authentication request failed' });
  Object.assign(error, { [REFUSAL_REASON]: reason, [REFUSAL_IDENTITY]: identityId });
  return error;
}

export interface AuthenticationDeps {
  identities: IdentityRepository;
  credentials: CredentialRepository;
  authPolicies: AuthPolicyRepository;
  apiSessions: ApiSessionService;
  /** Primary and secondary external JWT checks; without it method ext-jwt is not enabled. */
  extJwt?: ExtJwtAuthenticator;
  /** Whether an identity has verified TOTP (then TOTP is required of it whatever its policy says). */
  mfa: Pick<MfaRepository, 'isVerified'>;
  /** Counts password attempts against the policy's lockout. */
  passwords: PasswordGuard;
  events: Pick<SecurityEvents, 'loginRefused'>;
  clock: Clock;
  sessionTimeoutMs: number;
}

export function createAuthenticationService(deps: AuthenticationDeps): AuthenticationService {
  const { identities, credentials, authPolicies, clock } = deps;
  // Verifying against a real hash when the username is unknown keeps the response time the same either way.
  const decoyHash = hashPassword('decoy-password-for-unknown-users');

  async function policyOf(identity: Identity): Promise<AuthPolicy> {
    const policy = await authPolicies.findById(identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID);
    if (!policy) throw new Error(`auth policy ${identity.authPolicyId} of identity ${identity.id} is missing`);
    return policy;
  }

  /** The identity behind a credential, if it exists and may log in now; the reason in words when it may not. */
  async function usableIdentity(identityId: string): Promise<Identity | string> {
    const identity = await identities.findById(identityId);
    if (!identity) return 'the identity of the credential no longer exists';
    return isIdentityDisabled(identity, clock.now()) ? 'the identity is disabled' : identity;
  }

  const password: PrimaryMethod = async ({ username, password: secret, ipAddress }) => {
    if (username === undefined || secret === undefined) {
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: 'method password needs both username and password in the body',
        cause: { field: username === undefined ? 'username' : 'password', reason: 'is required for method password' },
      });
    }
    const credential = await credentials.findPassword(username);
    const identity = credential ? await usableIdentity(credential.identityId) : 'no password authenticator has this username';
    const policy = typeof identity === 'string' ? undefined : await policyOf(identity);
    if (typeof identity === 'string' || !credential || !policy?.primary.updb.allowed) {
      // A refusal before the password is looked at still verifies a hash, so it takes as long as a wrong password.
      await verifyPassword(await decoyHash, secret);
      throw typeof identity === 'string' ? refuse(identity) : refuse('the auth policy does not allow password logins', identity.id);
    }
    const verdict = await deps.passwords.check({
      identity,
      authenticatorId: credential.authenticatorId,
      passwordHash: credential.passwordHash,
      secret,
      rules: policy.primary.updb,
      clientAddress: ipAddress,
    });
    if (!verdict.ok) throw refuse(verdict.lockedUntil ? `password logins are locked out until ${verdict.lockedUntil.toISOString()}` : 'wrong password', identity.id);
    return { identity, authenticatorId: credential.authenticatorId };
  };

  const cert: PrimaryMethod = async ({ clientCertificate }) => {
    if (!clientCertificate) {
      throw new ApiError('INVALID_AUTH', { message: 'method cert needs a client certificate presented in the TLS handshake' });
    }
    const credential = await credentials.findCert(clientCertificate.fingerprint);
    if (!credential) throw refuse('no certificate authenticator has this certificate');
    const identity = await usableIdentity(credential.identityId);
    if (typeof identity === 'string') throw refuse(identity);
    const policy = await policyOf(identity);
    if (!policy.primary.cert.allowed) throw refuse('the auth policy does not allow certificate logins', identity.id);
    // The chain must lead to the controller's CAs; an expired certificate passes only where the policy allows it.
    const expiredButAllowed = clientCertificate.verificationError === 'CERT_HAS_EXPIRED' && policy.primary.cert.allowExpiredCerts;
    if (!clientCertificate.verified && !expiredButAllowed) throw refuse(`the certificate chain did not verify (${clientCertificate.verificationError ?? 'unknown reason'})`, identity.id);
    return { identity, authenticatorId: credential.authenticatorId };
  };

  const extJwt: PrimaryMethod = async ({ bearerTokens }) => {
    const { identity, signer } = await (deps.extJwt as ExtJwtAuthenticator).primary(bearerTokens ?? []);
    const { allowed, allowedSigners } = (await policyOf(identity)).primary.extJwt;
    // Spec: the policy must allow ext-jwt and, when it lists signers, this one. An administrator needs the signer
    // listed by name: "any signer" (an empty list, as in the default policy) would let whoever controls any
    // enabled signer mint an admin login from the admin's id (decision 0015). Same realm as a refused token.
    const listed = allowedSigners.includes(signer.id);
    if (!allowed || (allowedSigners.length > 0 && !listed) || (identity.isAdmin && !listed)) {
      // One wording for both cases, so the answer does not tell a token holder that the identity is an admin.
      throw (deps.extJwt as ExtJwtAuthenticator).refused('svc-primary-ext-jwt', [signer], `the auth policy of the identity does not allow logins with signer ${signer.id}`);
    }
    // No stored authenticator stands for an external JWT; the reference names the signer this way instead.
    return { identity, authenticatorId: `extJwtId:${signer.id}` };
  };

  const methods: Record<string, PrimaryMethod> = { password, cert, ...(deps.extJwt ? { 'ext-jwt': extJwt } : {}) };

  /** The primary credential checked by its method, then the client info of the request recorded on the identity. */
  async function primary(request: AuthenticationRequest): Promise<PrimaryOutcome> {
    const method = methods[request.method];
    if (!method) {
      throw new ApiError('INVALID_AUTH_METHOD', {
        message: `authentication method '${request.method}' is not enabled on this controller (enabled: ${Object.keys(methods).join(', ')})`,
        cause: { field: 'method', reason: 'is not an enabled authentication method', value: request.method },
      });
    }
    let outcome: PrimaryOutcome;
    try {
      outcome = await method(request);
    } catch (error) {
      if (isApiError(error) && error.status === 401) reportRefusal(request, error);
      throw error;
    }
    return { ...outcome, identity: await recordClientInfo(outcome.identity, request) };
  }

  function reportRefusal(request: AuthenticationRequest, error: ApiError): void {
    const marked = error as ApiError & { [REFUSAL_REASON]?: string; [REFUSAL_IDENTITY]?: string };
    deps.events.loginRefused({
      method: request.method,
      reason: marked[REFUSAL_REASON] ?? error.message,
      ipAddress: request.ipAddress,
      ...(marked[REFUSAL_IDENTITY] ? { identityId: marked[REFUSAL_IDENTITY] } : {}),
    });
  }

  /** Writes the `sdkInfo`/`envInfo` a login carried, when they differ from what is stored (most logins repeat them). */
  async function recordClientInfo(identity: Identity, { sdkInfo, envInfo }: AuthenticationRequest): Promise<Identity> {
    const differs = (given: ClientInfo | undefined, stored: ClientInfo) => given !== undefined && JSON.stringify(given) !== JSON.stringify(stored);
    const changes = {
      ...(differs(sdkInfo, identity.sdkInfo) ? { sdkInfo: sdkInfo as ClientInfo } : {}),
      ...(differs(envInfo, identity.envInfo) ? { envInfo: envInfo as ClientInfo } : {}),
    };
    if (Object.keys(changes).length === 0) return identity;
    await identities.recordClientInfo(identity.id, changes);
    return { ...identity, ...changes };
  }

  async function secondaryFactors(identity: Identity): Promise<OutstandingFactor[]> {
    const [policy, hasVerifiedTotp] = await Promise.all([policyOf(identity), deps.mfa.isVerified(identity.id)]);
    return outstandingFactors({ id: identity.id, hasVerifiedTotp }, policy);
  }

  return {
    verifyPrimary: async (request) => (await primary(request)).identity,
    policyOf,
    secondaryFactors,
    async authenticate(request) {
      const { identity, authenticatorId } = await primary(request);
      // Legacy sessions answer TOTP once, through auth queries; a required external JWT is checked on every
      // request instead (spec: Authentication Policy settings), so it is never outstanding here.
      const outstanding = (await secondaryFactors(identity)).filter((factor) => factor.kind === 'totp');
      const factors = { outstanding, mfaRequired: outstanding.length > 0 };
      const origin = { authenticatorId, configTypes: request.configTypes ?? [] };
      const { session, token } = await deps.apiSessions.start(identity.id, request.method, request.ipAddress, factors, origin);
      return { session, token, identity, expiresAt: new Date(session.lastActivityAt.getTime() + deps.sessionTimeoutMs) };
    },
  };
}
