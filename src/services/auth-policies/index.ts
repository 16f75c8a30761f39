/**
 * The auth-policies domain's builder: policy administration, each change audited in its own unit of work, refusing
 * policies that name unknown external JWT signers and deleting policies still in use.
 */
import type { Database } from '../../persistence/database.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import { createExternalJwtSignerRepository } from '../../persistence/repositories/external-jwt-signers.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import { createAuthPolicyService, type AuthPolicyService } from './auth-policies.js';

export function buildAuthPolicyService(database: Database, deps: { clock: Clock }): AuthPolicyService {
  return createAuthPolicyService({
    authPolicies: createAuthPolicyRepository(database),
    identities: createIdentityRepository(database),
    signers: createExternalJwtSignerRepository(database),
    changes: auditedChanges(database, deps.clock, createAuthPolicyRepository),
    clock: deps.clock,
  });
}
