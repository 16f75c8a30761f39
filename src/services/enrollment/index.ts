/**
 * The enrollment domain's builders: enrollment administration (create, list, refresh, delete) over one store, so
 * that an identity created with its enrollments commits them in one unit of work; and consuming enrollments (the
 * anonymous `/enroll` operations, one method module each).
 */
import type { Database } from '../../persistence/database.js';
import { createEnrollmentRepository } from '../../persistence/repositories/enrollments.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditService } from '../audit/audit.js';
import type { EnrollmentJwtSigner } from './enrollment-jwt.js';
import type { EnrollmentService } from './enrollment-service.js';
import { createEnrollmentService } from './enrollments.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { LoadedCertificateAuthority } from '../../pki/index.js';
import { createEnrollService, type EnrollService } from './enroll.js';

export interface EnrollmentSettings {
  clock: Clock;
  /** Undefined without an `edge` section: enrollment is then unavailable. */
  jwt: EnrollmentJwtSigner | undefined;
  edgeIdentityDurationMs: number;
}

export function buildEnrollmentAdministration(store: Database, audit: AuditService, settings: EnrollmentSettings): EnrollmentService {
  // Only the settings are taken: a caller may pass a wider object, whose other fields must not shadow these deps.
  const { clock, jwt, edgeIdentityDurationMs } = settings;
  return createEnrollmentService({ enrollments: createEnrollmentRepository(store), identities: createIdentityRepository(store), audit, clock, jwt, edgeIdentityDurationMs });
}

/** Consuming enrollments; `signingCa` (the enrollment signing CA) is undefined without an edge section. */
export function buildEnrollService(database: Database, audit: AuditService, settings: EnrollmentSettings & { signingCa: LoadedCertificateAuthority | undefined }): EnrollService {
  return createEnrollService({
    enrollments: createEnrollmentRepository(database),
    identities: createIdentityRepository(database),
    authPolicies: createAuthPolicyRepository(database),
    audit,
    clock: settings.clock,
    jwt: settings.jwt,
    signingCa: settings.signingCa,
  });
}
