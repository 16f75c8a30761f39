/**
 * A duplicate written past the services' checks (two requests racing) is still reported as a 400 naming the
 * field, on both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueViolationError } from '../../src/errors/unique-violation.js';
import type { Database } from '../../src/persistence/database.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

describe(`unique violations (${testDialect})`, () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => database.close());

  const identity = (id: string, name: string, externalId: string | null) => ({
    id, name, type_id: 'Default', is_admin: false, is_default_admin: false, auth_policy_id: null, external_id: externalId,
    role_attributes: '[]', tags: '{}', disabled: false, disabled_at: null, disabled_until: null, created_at: 'x', updated_at: 'x',
  });

  it('names the column of the violated constraint as a camel-case field', async () => {
    await database.db.insertInto('identities').values(identity('a', 'same', 'ext-1')).execute();
    for (const [row, field] of [[identity('b', 'same', null), 'name'], [identity('c', 'other', 'ext-1'), 'externalId']] as const) {
      const failure = await database.db.insertInto('identities').values(row).execute().then(() => undefined, (e: unknown) => e);
      const apiError = uniqueViolationError(failure);
      assert.ok(apiError, `a ${field} clash is recognised`);
      assert.equal(apiError.status, 400);
      assert.equal(apiError.cause?.field, field);
    }
  });

  it('leaves other errors alone', () => {
    assert.equal(uniqueViolationError(new Error('boom')), undefined);
    assert.equal(uniqueViolationError({ code: '23503', detail: 'Key (x)=(y) is not present' }), undefined);
  });
});
