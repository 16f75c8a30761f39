/**
 * The certificates domain's builder (issue 16, part B; decision 0038): what the controller signs after enrollment.
 * Edge routers' enrollment and extension, the enrollment key set and challenge, ephemeral API session certificates,
 * and certificate authenticator extension, each over the store.
 */
import type { Database } from '../../persistence/database.js';
import { createAuthenticatorExtensionRepository } from '../../persistence/repositories/authenticator-extensions.js';
import { createEnrollmentSigningKeyRepository } from '../../persistence/repositories/enrollment-signing-keys.js';
import { createSessionCertificateRepository } from '../../persistence/repositories/api-session-certificates.js';
import type { LoadedCertificateAuthority, x509 } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import { createEnrollmentChallenge, type EnrollmentChallenge } from '../enrollment/challenge.js';
import type { EnrollmentJwtSigner } from '../enrollment/enrollment-jwt.js';
import { createEnrollmentKeySet, type EnrollmentKeySet } from '../enrollment/enrollment-keys.js';
import { buildRouterEnrollment, type RouterEnrollmentService } from '../routers/index.js';
import { createAuthenticatorExtensionService, type AuthenticatorExtensionService } from './authenticator-extension.js';
import { createSessionCertificateService, type SessionCertificateService } from './session-certificates.js';

export interface CertificatesDomain {
  /** Edge router enrollment (`erott`) and router certificate extension. */
  readonly routers: RouterEnrollmentService;
  /** The served enrollment JWKS and the network JWT. */
  readonly enrollmentKeys: EnrollmentKeySet;
  /** `POST /enroll/challenge`. */
  readonly challenge: EnrollmentChallenge;
  /** Ephemeral certificates of API sessions. */
  readonly sessionCertificates: SessionCertificateService;
  /** Certificate authenticator extension and the flags API sessions show. */
  readonly extension: AuthenticatorExtensionService;
}

export function buildCertificatesDomain(
  database: Database,
  settings: {
    clock: Clock;
    /** Both undefined without an edge section. */
    signer: EnrollmentJwtSigner | undefined;
    signingCa: LoadedCertificateAuthority | undefined;
    caPems: readonly string[];
    /** The controller's own server certificates and advertised hosts, whose names no router may hold. */
    serverCertificates: readonly x509.X509Certificate[];
    extraHosts: readonly string[];
    /** `edge.enrollment.edgeRouter.allowLocalNames`: routers may name loopback and the controller's hosts. */
    allowRouterLocalNames: boolean;
  },
): CertificatesDomain {
  const { clock, signer, signingCa, caPems } = settings;
  return {
    routers: buildRouterEnrollment(database, { ...settings, allowLocalNames: settings.allowRouterLocalNames }),
    enrollmentKeys: createEnrollmentKeySet({ signer, keys: createEnrollmentSigningKeyRepository(database), clock }),
    challenge: createEnrollmentChallenge({ signer, caPems }),
    sessionCertificates: createSessionCertificateService({ certificates: createSessionCertificateRepository(database), signingCa, caPems, clock }),
    extension: createAuthenticatorExtensionService({
      authenticators: createAuthenticatorExtensionRepository(database),
      changes: auditedChanges(database, clock, createAuthenticatorExtensionRepository),
      signingCa,
      caPems,
      clock,
    }),
  };
}
