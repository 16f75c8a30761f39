/**
 * Everything a request handler may call, built once by the composition root (src/app) and passed down.
 * Handlers reach domain logic only through this object.
 */
import type { FabricAdmin } from './routers/fabric-admin.js';
import type { ControllerConfig } from '../config/types.js';
import type { Clock } from '../shared/clock.js';
import type { ApiSessionService } from './sessions/api-sessions.js';
import type { ApiSessionAdministration } from './sessions/api-session-admin.js';
import type { AuditService } from './audit/audit.js';
import type { AuthenticationService } from './authentication/authentication.js';
import type { AuthenticatorService } from './identities/authenticators.js';
import type { OwnAuthenticatorService } from './identities/own-authenticators.js';
import type { MfaService } from './mfa/mfa.js';
import type { SessionMfaService } from './mfa/session-mfa.js';
import type { AuthPolicyService } from './auth-policies/auth-policies.js';
import type { ControllerService } from './controllers/controllers.js';
import type { EnrollService } from './enrollment/enroll.js';
import type { ExternalJwtVerifier } from './external-jwt/external-jwt.js';
import type { ExternalJwtSignerService } from './external-jwt/external-jwt-signers.js';
import type { EnrollmentService } from './enrollment/enrollment-service.js';
import type { IdentityService } from './identities/identities.js';
import type { AccessTokenVerifier } from './oidc-provider/oidc-access-tokens.js';
import type { OidcProviderService } from './oidc-provider/oidc-provider.js';
import type { OidcFactorService } from './oidc-provider/oidc-factors.js';
import type { ExternalIdpLogins } from './external-jwt/external-idp.js';
import type { RequestAuthenticator } from './authentication/request-auth.js';
import type { VersionInfo } from './controllers/version.js';
import type { SecurityEvents } from './audit/security-events.js';
import type { AuthorizationDomain } from './authorization/index.js';
import type { PostureService } from './posture/index.js';
import type { StatusEvents } from './status-events/status-events.js';
import type { ExpiryBoard } from './expiries/expiry-board.js';
import type { ChangePreviewService } from './authorization/change-preview.js';
import type { SessionConfigTypes } from './sessions/config-types.js';
import type { EdgeSessionAdministration, EdgeSessionService } from './edge-sessions/index.js';
import type { ControllerMetrics } from './metrics/index.js';
import type { CaService, CaTrust } from './cas/index.js';
import type { CertificatesDomain } from './certificates/index.js';

export interface Services {
  readonly config: ControllerConfig;
  readonly clock: Clock;
  readonly version: VersionInfo;
  readonly auth: RequestAuthenticator;
  readonly apiSessions: ApiSessionService;
  /** Administrators' list, read and revoke of legacy API sessions (`/api-sessions`). */
  readonly apiSessionAdmin: ApiSessionAdministration;
  /** Administrators' read of router links and circuits (`/links`, `/circuits`; decision 0070). */
  readonly fabric: FabricAdmin;
  readonly authentication: AuthenticationService;
  readonly controllers: ControllerService;
  readonly audit: AuditService;
  /** Log lines (and audit entries) of security events. */
  readonly events: SecurityEvents;
  /** Enrollment administration (management API). */
  readonly enrollments: EnrollmentService;
  /** Consuming enrollments: the anonymous `/enroll` operations of the client API. */
  readonly enroll: EnrollService;
  /** Identity management (management API). */
  readonly identities: IdentityService;
  /** Auth policy management; also resolves the policy of an identity. */
  readonly authPolicies: AuthPolicyService;
  /** Authenticator management (management API). */
  readonly authenticators: AuthenticatorService;
  /** TOTP MFA: enrollment, recovery codes and answering the TOTP factor. */
  readonly mfa: MfaService;
  /** Answers a session's TOTP auth query (`authenticate/mfa`). */
  readonly sessionMfa: SessionMfaService;
  /** The session identity's own authenticators (client API). */
  readonly ownAuthenticators: OwnAuthenticatorService;
  /** The OIDC provider; absent without an edge section. */
  readonly oidc?: OidcProviderService;
  /** The secondary factors of OIDC logins (TOTP, enrollment); absent without an edge section. */
  readonly oidcFactors?: OidcFactorService;
  /** Sign-in at an external JWT signer's IdP from the login page; present with the OIDC provider. */
  readonly externalIdp?: ExternalIdpLogins;
  /** Verifies OIDC access tokens (also used by /oidc/userinfo); absent without an edge section. */
  readonly accessTokens?: AccessTokenVerifier;
  /** Every CA certificate the controller trusts, PEM. */
  readonly caPems: readonly string[];
  /** Third-party CA management (management API `/cas`): create, verify, the CA JWT (decision 0037). */
  readonly cas: CaService;
  /** The third-party CAs trusted now (certificate logins, the well-known bundle), following the change feed. */
  readonly caTrust: CaTrust;
  /** External JWT signer management (management API) and the public signer list (client API). */
  readonly externalJwtSigners: ExternalJwtSignerService;
  /** Checks a JWT against an external JWT signer and finds its identity (ext-jwt login, secondary factor). */
  readonly externalJwt: ExternalJwtVerifier;
  /** Who may reach what: services, configs, edge routers, posture checks, policies and the policy engine. */
  readonly authorization: AuthorizationDomain;
  /** Posture responses per API session and the evaluation of posture checks for a session. */
  readonly posture: PostureService;
  /** Client API sessions (dial/bind a service), their tokens, and a service's edge routers and terminators for a client. */
  readonly edgeSessions: EdgeSessionService;
  /** Every API session's sessions, for the Management API's `/sessions`. */
  readonly edgeSessionAdmin: EdgeSessionAdministration;
  /** The config types an API session asked for at login, as ids (`of`), and resolving names to ids (`resolve`). */
  readonly sessionConfigTypes: SessionConfigTypes;
  /** Live status events (routers coming online and going offline here) for the console's stream (issue 45). */
  readonly statusEvents: StatusEvents;
  /** What ends soon: enrollments, certificates, signing keys (the expiry board, issue 45). */
  readonly expiries: ExpiryBoard;
  /** Who would gain and lose access through a policy or role attribute change, before it is saved (issue 45). */
  readonly changePreviews: ChangePreviewService;
  /** This controller's Prometheus metrics: what HTTP, logins, the caches and the store report, and `/metrics` serves. */
  readonly metrics: ControllerMetrics;
  /** What the controller signs after enrollment: router enrollment and extension, the enrollment key set and challenge, ephemeral and extended certificates (decision 0038). */
  readonly certificates: CertificatesDomain;
  /**
   * A new value every time the controller starts, sent as `svc-instance-id` on every response: SDKs re-read
   * `/version` and their view of the controller when it changes (a restart, or another controller answering).
   */
  readonly instanceId: string;
}
