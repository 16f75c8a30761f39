/**
 * The identities domain's builder: identity administration, the authenticators administrators manage and those an
 * identity manages itself; and its unit of work, everything a change of an identity writes (the identity, the
 * enrollments it is created with, the lockouts `enable` clears, the audit entry), built on one transaction's store.
 * An authenticator's delete commits with its entry, and a changed password with the lockouts it clears.
 */
import type { ChangeFeed } from '../change-feed/change-feed.js';
import type { Database } from '../../persistence/database.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';
import { createPasswordLockoutRepository } from '../../persistence/repositories/password-lockouts.js';
import { unitOfWork, type UnitOfWork } from '../../persistence/unit-of-work.js';
import { buildAuditDomain } from '../audit/index.js';
import type { EventLog } from '../audit/security-events.js';
import { createPasswordGuard } from '../authentication/password-guard.js';
import { buildEnrollmentAdministration, type EnrollmentSettings } from '../enrollment/index.js';
import { createAuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import { createAuthenticatorRepository } from '../../persistence/repositories/authenticators.js';
import { createCredentialRepository } from '../../persistence/repositories/credentials.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import type { PasswordGuard } from '../authentication/password-guard.js';
import type { EnrollmentService } from '../enrollment/enrollment-service.js';
import type { SessionsDomain } from '../sessions/index.js';
import { createAuthenticatorService, type AuthenticatorService, type ReEnrollScope } from './authenticators.js';
import { createRouterIdentityRepository } from '../../persistence/repositories/router-identities.js';
import { createIdentityService, type IdentityChangeScope, type IdentityService } from './identities.js';
import { createOwnAuthenticatorService, type OwnAuthenticatorChangeScope, type OwnAuthenticatorService } from './own-authenticators.js';

export function identityChanges(database: Database, deps: EnrollmentSettings & { log: EventLog }): UnitOfWork<IdentityChangeScope> {
  return unitOfWork(database, (store) => {
    const { audit, events } = buildAuditDomain(store, deps);
    return {
      records: createIdentityRepository(store),
      enrollments: buildEnrollmentAdministration(store, deps),
      audit,
      passwords: createPasswordGuard({ lockouts: createPasswordLockoutRepository(store), events, clock: deps.clock }),
    };
  });
}

/** Everything a re-enroll writes (the authenticator's delete, the new enrollment, their audit entries), on one transaction. */
export function reEnrollChanges(database: Database, deps: EnrollmentSettings & { log: EventLog }): UnitOfWork<ReEnrollScope> {
  return unitOfWork(database, (store) => ({
    records: createAuthenticatorRepository(store),
    audit: buildAuditDomain(store, deps).audit,
    enrollments: buildEnrollmentAdministration(store, deps),
  }));
}

/** Everything an identity's change of its own password writes (the credential, the lockouts cleared), on one transaction. */
export function ownAuthenticatorChanges(database: Database, deps: Pick<EnrollmentSettings, 'clock'> & { log: EventLog }): UnitOfWork<OwnAuthenticatorChangeScope> {
  return unitOfWork(database, (store) => ({
    credentials: createCredentialRepository(store),
    passwords: createPasswordGuard({ lockouts: createPasswordLockoutRepository(store), events: buildAuditDomain(store, deps).events, clock: deps.clock }),
  }));
}

export interface IdentitiesDomain {
  identities: IdentityService;
  authenticators: AuthenticatorService;
  ownAuthenticators: OwnAuthenticatorService;
}

export function buildIdentitiesDomain(
  database: Database,
  deps: EnrollmentSettings & {
    log: EventLog;
    enrollments: Pick<EnrollmentService, 'pendingForIdentities'>;
    mfa: Pick<MfaRepository, 'verifiedAmong'>;
    sessions: SessionsDomain['presence'];
    passwords: PasswordGuard;
    /** Keeps callers' own details in memory (decision 0035). */
    feed?: ChangeFeed;
    /** Identities with SDK channels at the routers connected here (`hasEdgeRouterConnection`). */
    edgeConnections?: { has(identityId: string): boolean };
  },
): IdentitiesDomain {
  const { clock } = deps;
  const records = createIdentityRepository(database);
  const authenticators = createAuthenticatorRepository(database);
  const authPolicies = createAuthPolicyRepository(database);
  return {
    identities: createIdentityService({
      identities: records,
      authPolicies,
      authenticators,
      enrollments: deps.enrollments,
      mfa: deps.mfa,
      sessions: deps.sessions,
      clock,
      work: identityChanges(database, deps),
      routerOwning: createRouterIdentityRepository(database).routerOwning,
      ...(deps.feed ? { feed: deps.feed } : {}),
      ...(deps.edgeConnections ? { edgeConnections: deps.edgeConnections } : {}),
    }),
    authenticators: createAuthenticatorService({
      authenticators,
      identities: records,
      changes: auditedChanges(database, clock, createAuthenticatorRepository),
      reEnrollments: reEnrollChanges(database, deps),
    }),
    ownAuthenticators: createOwnAuthenticatorService({
      authenticators,
      credentials: createCredentialRepository(database),
      authPolicies,
      passwords: deps.passwords,
      changes: ownAuthenticatorChanges(database, deps),
      clock,
    }),
  };
}
