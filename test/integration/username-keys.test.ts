/**
 * Migration 0011 and the store's guard on usernames (docs/decisions/0016-unambiguous-usernames.md): existing password
 * authenticators and pending updb enrollments get their keys and claims, colliding usernames stop the migration with
 * a message naming them and nothing changed, and the repositories refuse a second holder of one key by the unique
 * index alone (no check in a service before them).
 */
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { newIdentity } from '../../src/domain/identity.js';
import { databaseTargetFromString, openDatabase, type Database } from '../../src/persistence/database.js';
import { migrateToBefore, migrateToLatest } from '../../src/persistence/migrate.js';
import { createCredentialRepository } from '../../src/persistence/repositories/credentials.js';
import { createEnrollmentRepository } from '../../src/persistence/repositories/enrollments.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { earlyIdentityRow, newSharedDatabase, openRawDatabase, storedBool, testDialect } from '../helpers/database.js';

const MIGRATION = '0011-username-keys';
const now = new Date().toISOString();
const later = new Date(Date.now() + 3_600_000).toISOString();
const bool = storedBool;
const openRaw = openRawDatabase;

async function addIdentity(db: Kysely<any>, id: string): Promise<void> {
  await db.insertInto('identities').values(earlyIdentityRow(id, now)).execute();
}

async function addPassword(db: Kysely<any>, identityId: string, id: string, username: string): Promise<void> {
  await db
    .insertInto('authenticators')
    .values({ id, identity_id: identityId, method: 'updb', username, password_hash: 'hash', cert_fingerprint: null, cert_pem: null, is_issued_by_network: bool(false), created_at: now, updated_at: now })
    .execute();
}

async function addPendingUpdb(db: Kysely<any>, identityId: string, id: string, username: string): Promise<void> {
  await db
    .insertInto('enrollments')
    .values({ id, identity_id: identityId, method: 'updb', token: `token-${id}`, username, jwt: 'jwt', expires_at: later, created_at: now, updated_at: now })
    .execute();
}

describe(`username keys in the store (${testDialect})`, () => {
  describe('migrating rows whose usernames collide', () => {
    let shared: { db: string; drop(): Promise<void> };
    let raw: Kysely<any>;
    before(async () => {
      shared = await newSharedDatabase();
      raw = openRaw(databaseTargetFromString(shared.db));
      await migrateToBefore(raw, MIGRATION);
      for (const id of ['i1', 'i2', 'i3', 'i4']) await addIdentity(raw, id);
      await addPassword(raw, 'i1', 'a1', 'alice');
      await addPassword(raw, 'i2', 'a2', 'ALICE');
      await addPendingUpdb(raw, 'i3', 'e3', 'ａｌｉｃｅ');
      await addPassword(raw, 'i4', 'a4', 'bob');
    });
    after(async () => {
      await raw.destroy();
      await shared.drop();
    });

    it('stops naming every colliding username and where it is, and changes nothing', async () => {
      await assert.rejects(migrateToLatest(raw), (error: Error) => {
        assert.match(error.message, /database migration 0011-username-keys failed/);
        assert.match(error.message, /"alice" \(authenticator a1\) and "ALICE" \(authenticator a2\) and "ａｌｉｃｅ" \(pending enrollment e3\)/);
        assert.doesNotMatch(error.message, /"bob"/, 'usernames that do not collide are not listed');
        return true;
      });
      const tables = await raw.introspection.getTables();
      assert.equal(tables.some((t) => t.name === 'usernames'), false, 'no table was created');
      const authenticators = tables.find((t) => t.name === 'authenticators');
      assert.deepEqual(authenticators?.columns.filter((c) => c.name === 'username_key'), [], 'no column was added');
    });

    it('completes once the operator has removed the collisions', async () => {
      await raw.deleteFrom('authenticators').where('id', '=', 'a2').execute();
      await raw.deleteFrom('enrollments').where('id', '=', 'e3').execute();
      await migrateToLatest(raw);
      const keys = await raw.selectFrom('authenticators').select(['id', 'username_key']).orderBy('id').execute();
      assert.deepEqual(keys, [{ id: 'a1', username_key: 'alice' }, { id: 'a4', username_key: 'bob' }]);
    });
  });

  describe('after the migration', () => {
    let shared: { db: string; drop(): Promise<void> };
    let database: Database;
    before(async () => {
      shared = await newSharedDatabase();
      const raw = openRaw(databaseTargetFromString(shared.db));
      await migrateToBefore(raw, MIGRATION);
      for (const id of ['i1', 'i2', 'i3', 'i4']) await addIdentity(raw, id);
      await addPassword(raw, 'i1', 'a1', 'Alice');
      await addPendingUpdb(raw, 'i2', 'e2', 'Bob');
      await raw
        .insertInto('authenticators')
        .values({ id: 'c3', identity_id: 'i3', method: 'cert', username: null, password_hash: null, cert_fingerprint: 'ab', cert_pem: 'pem', is_issued_by_network: bool(true), created_at: now, updated_at: now })
        .execute();
      await raw.destroy();
      database = await openDatabase(databaseTargetFromString(shared.db));
    });
    after(async () => {
      await database.close();
      await shared.drop();
    });

    const enrollment = (id: string, identityId: string, username: string) => ({
      id,
      identityId,
      method: 'updb' as const,
      token: `token-${id}`,
      username,
      jwt: 'jwt',
      expiresAt: new Date(later),
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });

    it('gave existing password authenticators and pending updb enrollments their keys and claims', async () => {
      const claims = await database.db.selectFrom('usernames').select(['username_key', 'authenticator_id', 'enrollment_id']).orderBy('username_key').execute();
      assert.deepEqual(claims, [
        { username_key: 'alice', authenticator_id: 'a1', enrollment_id: null },
        { username_key: 'bob', authenticator_id: null, enrollment_id: 'e2' },
      ]);
      const cert = await database.db.selectFrom('authenticators').select('username_key').where('id', '=', 'c3').executeTakeFirstOrThrow();
      assert.equal(cert.username_key, null);
    });

    it('finds a password credential by any case of its username', async () => {
      const credentials = createCredentialRepository(database);
      assert.equal((await credentials.findPassword('ALICE'))?.authenticatorId, 'a1');
      assert.equal((await credentials.findPassword('ａｌｉｃｅ'))?.authenticatorId, 'a1');
      assert.equal(await credentials.findPassword('alicf'), undefined);
    });

    it('refuses a second holder of a key from either table by the unique index alone, writing nothing', async () => {
      const enrollments = createEnrollmentRepository(database);
      assert.equal(await enrollments.insert(enrollment('e3', 'i3', 'ALICE')), 'username-taken');
      assert.equal(await enrollments.insert(enrollment('e4', 'i4', 'BOB')), 'username-taken');
      assert.equal(await database.db.selectFrom('enrollments').select('id').where('id', 'in', ['e3', 'e4']).executeTakeFirst(), undefined);

      const credentials = createCredentialRepository(database);
      assert.equal(await credentials.updatePassword('a1', { username: 'bob', passwordHash: 'new-hash', at: new Date() }), false);
      const a1 = await database.db.selectFrom('authenticators').select(['username', 'username_key', 'password_hash']).where('id', '=', 'a1').executeTakeFirstOrThrow();
      assert.deepEqual(a1, { username: 'Alice', username_key: 'alice', password_hash: 'hash' }, 'the rename changed nothing');

      const identities = createIdentityRepository(database);
      const identity = newIdentity(
        { id: 'i5', name: 'identity-i5', typeId: 'Default', isAdmin: false, roleAttributes: [], authPolicyId: null, externalId: null, tags: {} },
        new Date(),
      );
      await assert.rejects(identities.insertWithPassword(identity, { id: 'a5', username: 'aLiCe', passwordHash: 'hash' }));
      assert.equal(await identities.findById('i5'), undefined, 'no identity without its authenticator');
    });

    it('moves a claim with a rename, hands it from enrollment to authenticator, and releases it when the holder goes', async () => {
      const credentials = createCredentialRepository(database);
      const enrollments = createEnrollmentRepository(database);
      assert.equal(await credentials.updatePassword('a1', { username: 'Alicia', passwordHash: 'hash', at: new Date() }), true);
      assert.equal(await enrollments.usernameInUse('ALICE'), false, 'the old key is free');
      assert.equal(await enrollments.usernameInUse('alicia'), true);

      const outcome = await enrollments.consume({ id: 'e2', token: 'token-e2' }, { id: 'a2', identityId: 'i2', method: 'updb', username: 'Bob', passwordHash: 'hash', createdAt: new Date() });
      assert.equal(outcome, 'consumed');
      const bob = await database.db.selectFrom('usernames').select(['authenticator_id', 'enrollment_id']).where('username_key', '=', 'bob').executeTakeFirstOrThrow();
      assert.deepEqual(bob, { authenticator_id: 'a2', enrollment_id: null });

      await database.db.deleteFrom('authenticators').where('id', '=', 'a2').execute();
      assert.equal(await enrollments.usernameInUse('bob'), false, 'deleting the authenticator released the claim');
      assert.equal(await enrollments.insert(enrollment('e4', 'i4', 'BOB')), 'inserted');
    });
  });
});
