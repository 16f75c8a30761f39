/**
 * The store snapshot the bad-input corpus and other "changed nothing" tests compare (test/helpers/store-snapshot.ts):
 * on either store it must see a row added, changed or removed, and must not see the columns that change on their own.
 * Without this, a snapshot that read nothing would let every such test pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/persistence/database.js';
import { createApiSessionRepository } from '../../src/persistence/repositories/api-sessions.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { snapshotDifference, storeSnapshot } from '../helpers/store-snapshot.js';

describe(`the store snapshot (${testDialect})`, () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => database.close());

  const now = new Date().toISOString();
  const identity = { id: 'snap1', name: 'snapshot-subject', type_id: 'Default', is_admin: false, is_default_admin: false, auth_policy_id: null, external_id: null, role_attributes: '[]', tags: '{}', disabled: false, disabled_at: null, disabled_until: null, created_at: now, updated_at: now };

  it('sees a row added, changed and removed, naming its table', async () => {
    const empty = await storeSnapshot(database);
    assert.ok(Object.keys(empty).includes('identities'), 'every table is read');
    assert.ok(empty['auth_policies']!.length > 0, 'rows are read (the default auth policy)');
    await database.db.insertInto('identities').values(identity).execute();
    const added = await storeSnapshot(database);
    assert.deepEqual(Object.keys(snapshotDifference(empty, added)), ['identities']);
    assert.equal(snapshotDifference(empty, added)['identities']!.added.length, 1);
    await database.db.updateTable('identities').set({ name: 'renamed' }).where('id', '=', 'snap1').execute();
    const changed = await storeSnapshot(database);
    assert.deepEqual(Object.keys(snapshotDifference(added, changed)), ['identities']);
    await database.db.deleteFrom('identities').where('id', '=', 'snap1').execute();
    assert.deepEqual(snapshotDifference(empty, await storeSnapshot(database)), {});
  });

  it('leaves out the columns that change on their own (a legacy session activity)', async () => {
    await database.db.insertInto('identities').values({ ...identity, id: 'snap2', name: 'snapshot-sessions' }).execute();
    const sessions = createApiSessionRepository(database);
    const at = new Date();
    await sessions.insert(
      { id: 'sess1', identityId: 'snap2', authMethod: 'password', authenticatorId: 'none', ipAddress: '127.0.0.1', configTypes: [], createdAt: at, lastActivityAt: at, outstanding: [], mfaRequired: false },
      'hash-of-a-token',
    );
    const before = await storeSnapshot(database);
    await sessions.touch('sess1', new Date(at.getTime() + 60_000));
    assert.equal((await sessions.findById('sess1'))!.lastActivityAt.getTime(), at.getTime() + 60_000, 'the activity moved');
    assert.deepEqual(snapshotDifference(before, await storeSnapshot(database)), {});
  });
});
