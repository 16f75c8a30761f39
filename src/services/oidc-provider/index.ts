/**
 * The OIDC provider domain's builder (issue 4): tokens signed with the controller's server key for every issuer
 * (one per bind point hosting edge-oidc); keys of earlier server certificates stay published, and verify, until the
 * tokens they signed have expired; the keys of the other controllers sharing the store are published and verify too
 * (docs/decisions/0034-several-controllers.md); the provider (authorization, logins, grants), the access-token verifier both Edge
 * APIs use, and the secondary factors of a login. Asynchronous: it publishes the signing key in the store first.
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import type { LoadedIdentity } from '../../pki/index.js';
import type { Database } from '../../persistence/database.js';
import type { IdentityRepository } from '../../persistence/repositories/identities.js';
import { createOidcRepository } from '../../persistence/repositories/oidc.js';
import { createAuthorizationCodes } from './oidc-codes.js';
import { createAuthenticatorExtensionRepository } from '../../persistence/repositories/authenticator-extensions.js';
import { certFlagsReader } from '../certificates/authenticator-extension.js';
import { createCertificateFingerprintRepository } from '../../persistence/repositories/certificate-fingerprints.js';
import { createSigningKeyRepository } from '../../persistence/repositories/signing-keys.js';
import type { Clock } from '../../shared/clock.js';
import type { AuthenticationService } from '../authentication/authentication.js';
import { serverSigningKey } from '../enrollment/enrollment-jwt.js';
import type { ExtJwtAuthenticator } from '../external-jwt/ext-jwt-auth.js';
import type { MfaService } from '../mfa/mfa.js';
import type { SessionConfigTypes } from '../sessions/config-types.js';
import { createAuthRequestSeal } from './oidc-auth-request-seal.js';
import { createOidcFactorService, type OidcFactorService } from './oidc-factors.js';
import { createOidcProviderService, type OidcProviderService } from './oidc-provider.js';
import { loadPublishedKeys, publishSigningKey } from './oidc-signing-keys.js';
import { createOidcTokenSigner, type OidcTokenSigner } from './oidc-tokens.js';

export interface OidcDomain {
  provider: OidcProviderService;
  factors: OidcFactorService;
  /** The signer over the controller's keys, for other tokens checked against `/oidc/keys` (client API sessions). */
  tokens: OidcTokenSigner;
}

export async function buildOidcDomain(
  database: Database,
  deps: {
    identity: Pick<LoadedIdentity, 'serverLeaf' | 'serverKey'>;
    /** `https://<bind point>/oidc` of every bind point hosting edge-oidc. */
    issuers: string[];
    /**
     * Other `iss` values this controller signs for with the same key (`https://<edge.api.address>` of client API
     * session tokens), published with it so that the other controllers accept them too.
     */
    otherIssuers?: string[];
    lifetimes: { accessTokenDurationMs: number; idTokenDurationMs: number; refreshTokenDurationMs: number };
    secrets: SecretBox;
    clock: Clock;
    authentication: AuthenticationService;
    /** Identities as request authentication reads them (the authentication cache, auth-lookups.ts). */
    identities: Pick<IdentityRepository, 'findById'>;
    extJwt: Pick<ExtJwtAuthenticator, 'secondary'>;
    mfa: MfaService;
    /** Resolves a login's config types to ids (the sessions domain's). */
    configTypes: Pick<SessionConfigTypes, 'resolve'>;
  },
): Promise<OidcDomain> {
  const { clock, lifetimes } = deps;
  const oidc = createOidcRepository(database);
  const { identities } = deps;
  const signingKey = serverSigningKey(deps.identity);
  const keys = createSigningKeyRepository(database);
  const issuers = [...new Set([...deps.issuers, ...(deps.otherIssuers ?? [])])];
  // The owner is the controller's name in the store (controllers.name, its server certificate's subject): one
  // controller's rotation retires its own keys only (docs/decisions/0034-several-controllers.md).
  const owner = deps.identity.serverLeaf.subject;
  await publishSigningKey({
    keys,
    owner,
    signingKey,
    issuers,
    now: clock.now(),
    longestTokenLifetimeMs: Math.max(lifetimes.accessTokenDurationMs, lifetimes.idTokenDurationMs),
  });
  // The certificate extension flags of a session's login, as its access tokens carry them (decision 0038).
  const flagsOf = certFlagsReader(createAuthenticatorExtensionRepository(database));
  const fingerprints = createCertificateFingerprintRepository(database);
  const tokens = createOidcTokenSigner({
    signingKey,
    accessTokenDurationMs: lifetimes.accessTokenDurationMs,
    idTokenDurationMs: lifetimes.idTokenDurationMs,
    keys: await loadPublishedKeys({ keys, own: { signingKey, issuers } }, clock.now()),
  });
  const provider = createOidcProviderService({
    oidc,
    codes: createAuthorizationCodes(deps.secrets),
    identities,
    authentication: deps.authentication,
    tokens,
    seal: createAuthRequestSeal(deps.secrets),
    secrets: deps.secrets,
    clock,
    accessTokenDurationMs: lifetimes.accessTokenDurationMs,
    refreshTokenDurationMs: lifetimes.refreshTokenDurationMs,
    configTypes: deps.configTypes,
    certFlags: (session) => flagsOf({ authMethod: session.amr[0] ?? '', authenticatorId: session.authenticatorId ?? '' }),
    // Read at every login and refresh, so a certificate made or renewed since shows in the next token (issue 42).
    certFingerprints: (session, now) => fingerprints.ofSession(session.identityId, session.id, now),
  });
  return {
    provider,
    factors: createOidcFactorService({ provider, extJwt: deps.extJwt, oidc, identities, mfa: deps.mfa, clock }),
    tokens,
  };
}
