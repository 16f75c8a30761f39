/**
 * Versioned schema migrations, applied in name order at start on both dialects. A migration, once released,
 * is never edited: a change to the schema is a new file in migrations/ listed below.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { initialSchema } from './migrations/0001-initial-schema.js';
import { identitiesEnrollmentPolicies } from './migrations/0002-identities-enrollment-policies.js';
import { oidc } from './migrations/0003-oidc.js';
import { oidcFactorsAndKeys } from './migrations/0004-oidc-factors-and-keys.js';
import { mfa } from './migrations/0005-mfa.js';
import { externalJwtSigners } from './migrations/0006-external-jwt-signers.js';
import { oidcLoginContext } from './migrations/0008-oidc-login-context.js';
import { clientInfo } from './migrations/0009-client-info.js';
import { passwordLockouts } from './migrations/0010-password-lockouts.js';
import { usernameKeys } from './migrations/0011-username-keys.js';
import { authorization } from './migrations/0012-authorization.js';
import { wellKnownConfigTypes } from './migrations/0013-well-known-config-types.js';
import { authorizationChanges } from './migrations/0014-authorization-changes.js';
import { postureResponses } from './migrations/0015-posture-responses.js';
import { edgeSessions } from './migrations/0016-edge-sessions.js';
import { serviceUpdateMarks } from './migrations/0017-service-update-marks.js';
import { severalControllers } from './migrations/0018-several-controllers.js';
import { certificateAuthorities } from './migrations/0019-certificate-authorities.js';
import { routerAndSessionCertificates } from './migrations/0020-router-and-session-certificates.js';
import { oidcSessionAuthenticator } from './migrations/0021-oidc-session-authenticator.js';
import { oidcCodeRefusals } from './migrations/0022-oidc-code-refusals.js';
import { refreshTokensByHash } from './migrations/0023-refresh-tokens-by-hash.js';
import { auditLogSequence } from './migrations/0024-audit-log-sequence.js';
import { caReach } from './migrations/0026-ca-reach.js';
import { sweepIndexes } from './migrations/0027-sweep-indexes.js';
import { routerPresence } from './migrations/0028-router-presence.js';
import { controllerCtrlAddress } from './migrations/0029-controller-ctrl-address.js';
import { terminatorHosts } from './migrations/0030-terminator-hosts.js';
import { linksAndCircuits } from './migrations/0031-links-and-circuits.js';
import { usedEnrollmentTokens } from './migrations/0032-used-enrollment-tokens.js';
import { nameOrderIndexes } from './migrations/0034-name-order-indexes.js';
import { expiryColumns } from './migrations/0035-expiry-columns.js';
import { sessionsByIdentity } from './migrations/0036-sessions-by-identity.js';
import { usedIdpStates } from './migrations/0037-used-idp-states.js';
import { auditLogFilterIndexes } from './migrations/0033-audit-log-filter-indexes.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
  '0002-identities-enrollment-policies': identitiesEnrollmentPolicies,
  '0003-oidc': oidc,
  '0004-oidc-factors-and-keys': oidcFactorsAndKeys,
  '0005-mfa': mfa,
  '0006-external-jwt-signers': externalJwtSigners,
  '0008-oidc-login-context': oidcLoginContext,
  '0009-client-info': clientInfo,
  '0010-password-lockouts': passwordLockouts,
  '0011-username-keys': usernameKeys,
  '0012-authorization': authorization,
  '0013-well-known-config-types': wellKnownConfigTypes,
  '0014-authorization-changes': authorizationChanges,
  '0015-posture-responses': postureResponses,
  '0016-edge-sessions': edgeSessions,
  '0017-service-update-marks': serviceUpdateMarks,
  '0018-several-controllers': severalControllers,
  '0019-certificate-authorities': certificateAuthorities,
  '0020-router-and-session-certificates': routerAndSessionCertificates,
  '0021-oidc-session-authenticator': oidcSessionAuthenticator,
  '0022-oidc-code-refusals': oidcCodeRefusals,
  '0023-refresh-tokens-by-hash': refreshTokensByHash,
  '0024-audit-log-sequence': auditLogSequence,
  '0026-ca-reach': caReach,
  '0027-sweep-indexes': sweepIndexes,
  '0028-router-presence': routerPresence,
  '0029-controller-ctrl-address': controllerCtrlAddress,
  '0030-terminator-hosts': terminatorHosts,
  '0031-links-and-circuits': linksAndCircuits,
  '0032-used-enrollment-tokens': usedEnrollmentTokens,
  '0033-audit-log-filter-indexes': auditLogFilterIndexes,
  '0034-name-order-indexes': nameOrderIndexes,
  '0035-expiry-columns': expiryColumns,
  '0036-sessions-by-identity': sessionsByIdentity,
  '0037-used-idp-states': usedIdpStates,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Applies every pending migration; throws naming the migration that failed. */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  await migrateWith(db, (migrator) => migrator.migrateToLatest());
}

/**
 * Applies the pending migrations that sort before `name`, leaving `name` and later ones pending: how a test writes
 * rows as an older release would have, then runs the migration under test on them.
 */
export async function migrateToBefore(db: Kysely<any>, name: string): Promise<void> {
  const earlier = Object.keys(MIGRATIONS).filter((key) => key < name).sort();
  const last = earlier[earlier.length - 1];
  if (last === undefined) throw new Error(`no migration sorts before ${name}`);
  await migrateWith(db, (migrator) => migrator.migrateTo(last));
}

async function migrateWith(db: Kysely<any>, run: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<void> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'svc_migrations', migrationLockTableName: 'svc_migrations_lock' });
  const { error, results } = await run(migrator);
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
