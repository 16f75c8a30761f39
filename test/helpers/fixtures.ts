/**
 * Fixture builders for tests that need identities and credentials before (or without) the management API:
 * they write through the store and return values; they never assert.
 */
import { readFileSync } from 'node:fs';
import { hashPassword } from '../../src/crypto/passwords.js';
import type { Database } from '../../src/persistence/database.js';
import { usernameKey } from '../../src/policy/names.js';
import { certificateFingerprint, generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem, type PkiPaths } from '../../src/pki/index.js';
import type { Clock } from '../../src/shared/clock.js';
import { newEntityId } from '../../src/shared/random.js';

export interface IdentityFixture {
  id: string;
  name: string;
}

/** Inserts an identity (optionally with a password authenticator) and returns it. */
export async function createIdentity(
  database: Database,
  options: { name?: string; isAdmin?: boolean; username?: string; password?: string; authPolicyId?: string } = {},
): Promise<IdentityFixture> {
  const now = new Date().toISOString();
  const id = newEntityId();
  const name = options.name ?? `identity-${id}`;
  await database.db
    .insertInto('identities')
    .values({ id, name, type_id: 'Default', is_admin: options.isAdmin ?? false, is_default_admin: false, auth_policy_id: options.authPolicyId ?? null, external_id: null, role_attributes: '[]', tags: '{}', disabled: false, disabled_at: null, disabled_until: null, created_at: now, updated_at: now })
    .execute();
  if (options.password) {
    const username = options.username ?? name;
    const authenticatorId = newEntityId();
    await database.db
      .insertInto('authenticators')
      .values({ id: authenticatorId, identity_id: id, method: 'updb', username, username_key: usernameKey(username), password_hash: await hashPassword(options.password), cert_fingerprint: null, cert_pem: null, is_issued_by_network: false, created_at: now, updated_at: now })
      .execute();
    // The username's claim, as the repositories write it with every password authenticator (decision 0016).
    await database.db.insertInto('usernames').values({ username_key: usernameKey(username), authenticator_id: authenticatorId, enrollment_id: null, created_at: now }).execute();
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

/** Registers a certificate as an identity's cert authenticator. */
export async function addCertAuthenticator(database: Database, identityId: string, leafPem: string): Promise<void> {
  const now = new Date().toISOString();
  await database.db
    .insertInto('authenticators')
    .values({ id: newEntityId(), identity_id: identityId, method: 'cert', username: null, password_hash: null, cert_fingerprint: certificateFingerprint(leafPem), cert_pem: leafPem, is_issued_by_network: true, created_at: now, updated_at: now })
    .execute();
}

/** Replaces parts of an auth policy's body directly in the store. */
export async function updatePolicyBody(database: Database, policyId: string, change: (body: any) => void): Promise<void> {
  const row = await database.db.selectFrom('auth_policies').select('body').where('id', '=', policyId).executeTakeFirstOrThrow();
  const body = JSON.parse(row.body);
  change(body);
  await database.db.updateTable('auth_policies').set({ body: JSON.stringify(body) }).where('id', '=', policyId).execute();
}

/** Inserts an auth policy: the system default's body changed by `change`; returns its id. */
export async function createAuthPolicy(database: Database, change: (body: any) => void = () => {}): Promise<string> {
  const row = await database.db.selectFrom('auth_policies').select('body').where('id', '=', 'default').executeTakeFirstOrThrow();
  const body = JSON.parse(row.body);
  change(body);
  const id = newEntityId();
  const now = new Date().toISOString();
  await database.db
    .insertInto('auth_policies')
    .values({ id, name: `policy-${id}`, is_system: false, body: JSON.stringify(body), tags: '{}', created_at: now, updated_at: now })
    .execute();
  return id;
}
