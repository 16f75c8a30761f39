/**
 * The external-JWT domain's builder (issue 6): signers in the store, their keys fetched on the terms of
 * `edge.externalJwt` trusting the system roots and the controller's CAs, the verifier logins and requests use, the
 * login-side authenticator, the sign-in at a signer's IdP from the login page, and the signer administration (each
 * change audited in its own unit of work).
 */
import type { ExternalJwtConfig } from '../../config/types.js';
import type { Database } from '../../persistence/database.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import { createExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import { createUsedIdpStateRepository } from '../../persistence/repositories/used-idp-states.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { EventLog, SecurityEvents } from '../audit/security-events.js';
import { createExtJwtAuthenticator, type ExtJwtAuthenticator } from './ext-jwt-auth.js';
import { createExternalJwtSignerService, type ExternalJwtSignerService } from './external-jwt-signers.js';
import { createExternalJwtVerifier, type ExternalJwtVerifier } from './external-jwt.js';
import { createExternalIdpLogins, type ExternalIdpLogins } from './external-idp.js';
import { createGuardedFetch } from './guarded-fetch.js';
import { createJwksFetcher } from './jwks-fetcher.js';

export interface ExternalJwtDomain {
  verifier: ExternalJwtVerifier;
  /** Primary and secondary external-JWT checks of logins and requests. */
  authenticator: ExtJwtAuthenticator;
  signers: ExternalJwtSignerService;
  /** Signing in at a signer's IdP from the login page (decision 0084). */
  browserLogins: ExternalIdpLogins;
}

export function buildExternalJwtDomain(
  database: Database,
  deps: { config: ExternalJwtConfig; clock: Clock; caPems: readonly string[]; log: EventLog; events: Pick<SecurityEvents, 'trustChanged'>; secrets: SecretBox },
): ExternalJwtDomain {
  const { config, clock } = deps;
  const records = createExternalJwtSignerRepository(database);
  const fetcher = createJwksFetcher({ config, clock, caPems: deps.caPems, log: deps.log });
  const verifier = createExternalJwtVerifier({ signers: records, identities: createIdentityRepository(database), fetcher, clock });
  const authPolicies = createAuthPolicyRepository(database);
  return {
    verifier,
    browserLogins: createExternalIdpLogins({
      signers: records,
      policies: authPolicies,
      verifier,
      fetch: createGuardedFetch({ config, caPems: deps.caPems }),
      secrets: deps.secrets,
      clock,
      allowHttp: config.allowHttpJwks,
      usedStates: createUsedIdpStateRepository(database),
    }),
    authenticator: createExtJwtAuthenticator({ verifier, signers: records, clock }),
    signers: createExternalJwtSignerService({
      signers: records,
      authPolicies,
      verifier,
      fetcher,
      changes: auditedChanges(database, clock, createExternalJwtSignerRepository),
      events: deps.events,
      clock,
      allowHttpJwks: config.allowHttpJwks,
    }),
  };
}
