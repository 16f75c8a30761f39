/**
 * Fixture builders for tests that need identities and credentials before (or without) the management API:
 * they write through the repositories the controller uses (not raw rows) and return values; they never assert.
 */
import { readFileSync } from 'node:fs';
import { hashPassword } from '../../src/crypto/passwords.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../src/domain/auth-policy.js';
import { newIdentity } from '../../src/domain/identity.js';
import type { Updateable } from 'kysely';
import type { Database } from '../../src/persistence/database.js';
import { recordChange } from '../../src/persistence/repositories/authorization-changes.js';
import type { IdentitiesTable } from '../../src/persistence/tables.js';
import { createAuthPolicyRepository } from '../../src/persistence/repositories/auth-policies.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createServiceRepository } from '../../src/persistence/repositories/services.js';
import { certificateFingerprint, generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem, type PkiPaths } from '../../src/pki/index.js';
import type { Clock } from '../../src/shared/clock.js';
import { newEntityId } from '../../src/shared/random.js';

export interface IdentityFixture {
  id: string;
  name: string;
}

/**
 * Creates an identity (optionally with a password authenticator) through the identity repository, as the default
 * admin's bootstrap does: the same rows, the same username claim (decision 0016), no raw table writes.
 */
export async function createIdentity(
  database: Database,
  options: { name?: string; isAdmin?: boolean; username?: string; password?: string; authPolicyId?: string } = {},
): Promise<IdentityFixture> {
  const id = newEntityId();
  const name = options.name ?? `identity-${id}`;
  const identity = newIdentity(
    { id, name, typeId: 'Default', isAdmin: options.isAdmin ?? false, roleAttributes: [], authPolicyId: options.authPolicyId ?? null, externalId: null, tags: {} },
    new Date(),
  );
  const identities = createIdentityRepository(database);
  if (options.password) {
    await identities.insertWithPassword(identity, { id: newEntityId(), username: options.username ?? name, passwordHash: await hashPassword(options.password) });
  } else {
    await identities.insert(identity);
  }
  return { id, name };
}

/** A client certificate (leaf + intermediate chain) and key issued by the PKI's intermediate, as enrollment would. */
export async function issueClientCertificate(pki: PkiPaths, commonName: string, options: { clock?: Clock; validityMs?: number } = {}) {
  const issuer = await loadCertificateAuthority({ cert: pki.intermediateCert, key: pki.intermediateKey }, options.clock ? { clock: options.clock } : {});
  const keys = await generateKeyPair();
  const leaf = await issueCertificate({
    profile: 'client',
    publicKey: keys.publicKey,
    subject: { commonName },
    validityMs: options.validityMs ?? 24 * 3_600_000,
    issuer,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const certPem = `${leaf.toString('pem')}\n${readFileSync(pki.intermediateCert, 'utf8').trim()}\n`;
  return { certPem, leafPem: leaf.toString('pem'), keyPem: await privateKeyToPem(keys.privateKey), fingerprint: certificateFingerprint(leaf.toString('pem')) };
}

/**
 * Registers a certificate as an identity's cert authenticator, as a finished ott enrollment leaves it; returns the
 * authenticator's id. (Certificate authenticators are written only by enrollment, which needs a token; this is the
 * one fixture that writes its row directly.)
 */
export async function addCertAuthenticator(database: Database, identityId: string, leafPem: string): Promise<string> {
  const id = newEntityId();
  const now = new Date().toISOString();
  await database.db
    .insertInto('authenticators')
    .values({ id, identity_id: identityId, method: 'cert', username: null, password_hash: null, cert_fingerprint: certificateFingerprint(leafPem), cert_pem: leafPem, is_issued_by_network: true, created_at: now, updated_at: now })
    .execute();
  return id;
}

/**
 * Changes columns of an identity's row directly in the store, and logs the change as every writer of the store
 * must, so controllers drop what they keep of it in memory (decision 0035).
 */
export async function updateIdentityRow(database: Database, identityId: string, values: Updateable<IdentitiesTable>): Promise<void> {
  await database.db.updateTable('identities').set(values).where('id', '=', identityId).execute();
  await recordChange(database, 'identity', identityId);
}

/** Replaces parts of an auth policy's body directly in the store (and logs the change, as above). */
export async function updatePolicyBody(database: Database, policyId: string, change: (body: any) => void): Promise<void> {
  const row = await database.db.selectFrom('auth_policies').select('body').where('id', '=', policyId).executeTakeFirstOrThrow();
  const body = JSON.parse(row.body);
  change(body);
  await database.db.updateTable('auth_policies').set({ body: JSON.stringify(body) }).where('id', '=', policyId).execute();
  await recordChange(database, 'auth-policy', policyId);
}

/** Creates an auth policy through its repository: the system default's settings changed by `change`; returns its id. */
export async function createAuthPolicy(database: Database, change: (body: any) => void = () => {}): Promise<string> {
  const policies = createAuthPolicyRepository(database);
  const base = await policies.findById(DEFAULT_AUTH_POLICY_ID);
  if (!base) throw new Error('the system auth policy is missing');
  const body = structuredClone({ primary: base.primary, secondary: base.secondary });
  change(body);
  const id = newEntityId();
  const now = new Date();
  await policies.insert({ id, name: `policy-${id}`, isSystem: false, ...body, tags: {}, createdAt: now, updatedAt: now });
  return id;
}

/** Creates a service with no attributes or configs through the service repository; its id. */
export async function createServiceRow(database: Database, name: string, at: Date): Promise<string> {
  const id = newEntityId();
  await createServiceRepository(database).insert({
    id,
    name,
    roleAttributes: [],
    configs: [],
    encryptionRequired: true,
    maxIdleTimeMillis: 0,
    terminatorStrategy: 'smartrouting',
    tags: {},
    createdAt: at,
    updatedAt: at,
  });
  return id;
}
