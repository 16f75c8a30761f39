/**
 * The enrollment domain's builders: enrollment administration (create, list, refresh, delete) over one store, so
 * that an identity created with its enrollments commits them in one unit of work; and consuming enrollments (the
 * anonymous `/enroll` operations, one method module each). Every change commits with its audit entry, written on the
 * change's own transaction (decision 0020).
 */
import type { Database } from '../../persistence/database.js';
import { createEnrollmentRepository } from '../../persistence/repositories/enrollments.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { EnrollmentJwtSigner } from './enrollment-jwt.js';
import type { EnrollmentService } from './enrollment-service.js';
import { createEnrollmentService } from './enrollments.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { LoadedCertificateAuthority } from '../../pki/index.js';
import { createEnrollService, type EnrollService } from './enroll.js';
import type { EnrollCas } from './methods/index.js';
import { createRouterIdentityRepository } from '../../persistence/repositories/router-identities.js';
import { createCaRepository } from '../../persistence/repositories/cas.js';

export interface EnrollmentSettings {
  clock: Clock;
  /** Undefined without an `edge` section: enrollment is then unavailable. */
  jwt: EnrollmentJwtSigner | undefined;
  edgeIdentityDurationMs: number;
}

/** On a store that is a transaction (an identity's unit of work), each change joins it. */
export function buildEnrollmentAdministration(store: Database, settings: EnrollmentSettings): EnrollmentService {
  // Only the settings are taken: a caller may pass a wider object, whose other fields must not shadow these deps.
  const { clock, jwt, edgeIdentityDurationMs } = settings;
  return createEnrollmentService({
    enrollments: createEnrollmentRepository(store),
    identities: createIdentityRepository(store),
    changes: auditedChanges(store, clock, createEnrollmentRepository),
    clock,
    jwt,
    edgeIdentityDurationMs,
    cas: createCaRepository(store),
    routerOwning: createRouterIdentityRepository(store).routerOwning,
  });
}

/** Consuming enrollments; `signingCa` (the enrollment signing CA) is undefined without an edge section. */
export function buildEnrollService(
  database: Database,
  settings: EnrollmentSettings & { signingCa: LoadedCertificateAuthority | undefined; cas?: EnrollCas | undefined },
): EnrollService {
  return createEnrollService({
    enrollments: createEnrollmentRepository(database),
    identities: createIdentityRepository(database),
    authPolicies: createAuthPolicyRepository(database),
    changes: auditedChanges(database, settings.clock, createEnrollmentRepository),
    clock: settings.clock,
    jwt: settings.jwt,
    signingCa: settings.signingCa,
    cas: settings.cas,
  });
}
