/**
 * Primary authentication of the legacy flow (spec: Legacy flow; reference facts §7): verifies the presented
 * credential with the chosen method, applies the identity's auth policy (method allowed, lockout), and opens an
 * API session. Methods are strategy modules in methods/, one file each, found by name in the registry
 * methods/index.ts (decision 0018); `ext-jwt` joins them with the external signers (issue 6).
 *
 * Every refusal of a credential is the same 401 INVALID_AUTH, whether the user is unknown, the password wrong, the
 * method disallowed or the identity disabled, so that answers do not tell an attacker which usernames exist.
 *
 * A primary login that succeeds, legacy or OIDC, records the `sdkInfo` and `envInfo` its body carried on the
 * identity (reference facts §7: authentication updates them), where the identity's detail shows them.
 */
import { ApiError, isApiError } from '../../errors/api-error.js';
import { DEFAULT_AUTH_POLICY_ID, type AuthPolicy } from '../../domain/auth-policy.js';
import type { ApiSession, ClientInfo, Identity } from '../../domain/identity.js';
import { createPrincipalLoader } from './principal.js';
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
import { createPrimaryMethods, type PrimaryMethodDeps, type PrimaryOutcome } from './methods/index.js';
import { refusalOf } from './methods/refusal.js';

/** What the TLS layer established about the client certificate (extracted by the HTTP adapter). */
export interface PresentedClientCertificate {
  /** Lowercase hex SHA-1 of the leaf's DER. */
  fingerprint: string;
  /** True when the presented chain verified against the controller's CAs. */
  verified: boolean;
  /** OpenSSL's reason when it did not verify (e.g. `CERT_HAS_EXPIRED`). */
  verificationError: string | undefined;
  /** The DER of the presented chain, leaf first, then the intermediates the client sent (third-party CAs). */
  chain?: readonly Buffer[];
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
   * (spec: OIDC flow). Returns the identity and the authenticator the login used, which the OIDC session records.
   */
  verifyPrimary(request: AuthenticationRequest): Promise<PrimaryOutcome>;
  /** The auth policy an identity is governed by (its own, else the system `default`). */
  policyOf(identity: Identity): Promise<AuthPolicy>;
  /** The secondary factors a login of `identity` must answer after its primary credential, TOTP first. */
  secondaryFactors(identity: Identity): Promise<OutstandingFactor[]>;
}

export interface AuthenticationDeps {
  /**
   * Identities and auth policies as request authentication reads them (auth-lookups.ts: from memory while the change
   * feed is fresh, dropped at commit here and within its bound elsewhere), so a login is judged on what every later
   * request of its session is judged on; the client info a login carries is written to the store.
   */
  identities: Pick<IdentityRepository, 'findById' | 'recordClientInfo'>;
  credentials: CredentialRepository;
  authPolicies: Pick<AuthPolicyRepository, 'findById'>;
  apiSessions: ApiSessionService;
  /** Primary and secondary external JWT checks; without it method ext-jwt is not enabled. */
  extJwt?: ExtJwtAuthenticator;
  /** Whether an identity has verified TOTP (then TOTP is required of it whatever its policy says). */
  mfa: Pick<MfaRepository, 'isVerified'>;
  /** Counts password attempts against the policy's lockout. */
  passwords: PasswordGuard;
  events: Pick<SecurityEvents, 'loginRefused' | 'loginSucceeded'>;
  clock: Clock;
  sessionTimeoutMs: number;
  /** The CAs certificate logins are judged against now: own and third-party (decision 0037); absent, the TLS verdict. */
  clientCaTrust?: PrimaryMethodDeps['clientCaTrust'];
}

/** The id of the auth policy that governs `identity`: its own, else the default one. */
export const authPolicyIdOf = (identity: Identity): string => identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID;

/** The auth policy `identity` is under (the default one unless it names another); read through `policies`. */
export async function authPolicyOf(policies: Pick<AuthPolicyRepository, 'findById'>, identity: Identity): Promise<AuthPolicy> {
  const policy = await policies.findById(authPolicyIdOf(identity));
  if (!policy) throw new Error(`auth policy ${identity.authPolicyId} of identity ${identity.id} is missing`);
  return policy;
}

export function createAuthenticationService(deps: AuthenticationDeps): AuthenticationService {
  const { identities, credentials, authPolicies, clock } = deps;

  const policyOf = (identity: Identity) => authPolicyOf(authPolicies, identity);

  /** The identity behind a credential, if it exists and may log in now; the reason in words when it may not. */
  async function usableIdentity(identityId: string): Promise<Identity | string> {
    // The one principal check (decision 0019); a refusal becomes the log reason of an INVALID_AUTH.
    const principal = await createPrincipalLoader({ identities, clock }).load(identityId);
    if (principal.ok) return principal.identity;
    return principal.reason === 'missing' ? 'the identity of the credential no longer exists' : principal.description;
  }

  const methods = createPrimaryMethods({
    credentials,
    passwords: deps.passwords,
    extJwt: deps.extJwt,
    policyOf,
    usableIdentity,
    ...(deps.clientCaTrust ? { clientCaTrust: deps.clientCaTrust } : {}),
  });

  /** The primary credential checked by its method, then the client info of the request recorded on the identity. */
  async function primary(request: AuthenticationRequest): Promise<PrimaryOutcome> {
    const method = methods.get(request.method);
    if (!method) {
      throw new ApiError('INVALID_AUTH_METHOD', {
        message: `authentication method '${request.method}' is not enabled on this controller (enabled: ${[...methods.keys()].join(', ')})`,
        cause: { field: 'method', reason: 'is not an enabled authentication method', value: request.method },
      });
    }
    let outcome: PrimaryOutcome;
    try {
      outcome = await method.authenticate(request);
    } catch (error) {
      if (isApiError(error) && error.status === 401) reportRefusal(request, error);
      throw error;
    }
    deps.events.loginSucceeded({ method: request.method });
    return { ...outcome, identity: await recordClientInfo(outcome.identity, request) };
  }

  function reportRefusal(request: AuthenticationRequest, error: ApiError): void {
    const { reason, identityId } = refusalOf(error);
    deps.events.loginRefused({ method: request.method, reason, ipAddress: request.ipAddress, ...(identityId ? { identityId } : {}) });
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
    verifyPrimary: primary,
    policyOf,
    secondaryFactors,
    async authenticate(request) {
      const { identity, authenticatorId, caId } = await primary(request);
      // Legacy sessions answer TOTP once, through auth queries; a required external JWT is checked on every
      // request instead (spec: Authentication Policy settings), so it is never outstanding here.
      const outstanding = (await secondaryFactors(identity)).filter((factor) => factor.kind === 'totp');
      const factors = { outstanding, mfaRequired: outstanding.length > 0 };
      const origin = { authenticatorId, configTypes: request.configTypes ?? [], ...(caId ? { caId } : {}) };
      const { session, token } = await deps.apiSessions.start(identity.id, request.method, request.ipAddress, factors, origin);
      return { session, token, identity, expiresAt: new Date(session.lastActivityAt.getTime() + deps.sessionTimeoutMs) };
    },
  };
}
