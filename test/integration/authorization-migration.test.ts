/**
 * Migration 0012 on a store an older release left: identities created before the authorization model keep their
 * role attributes and are found by the policy engine's attribute index from the first start, with the hosting
 * defaults filled in.
 * @own-process: once in a group, a PostgreSQL connection of this file's before hook was ended by the drop of its
 * database after the file's tests, and the error reached the group's later files as uncaught (decision 0088). Where
 * that connection comes from is not found yet; alone, the process ends before it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/persistence/migrate.js';
import { earlyIdentityRow, storeBefore, testDialect } from '../helpers/database.js';

const MIGRATION = '0012-authorization';
const now = new Date().toISOString();

describe(`migration ${MIGRATION} (${testDialect})`, () => {
  let raw: Kysely<any>;
  let close: () => Promise<void>;
  before(async () => {
    ({ raw, close } = await storeBefore(MIGRATION));
    const identity = (id: string, attributes: string[]) => earlyIdentityRow(id, now, attributes);
    await raw.insertInto('identities').values([identity('old-1', ['sales', 'emea', 'sales']), identity('old-2', [])]).execute();
    await migrateToLatest(raw);
  });
  after(() => close());

  it("indexes the role attributes of identities created before it, once each", async () => {
    const rows = await raw.selectFrom('entity_attributes').select(['entity_id', 'attribute']).where('entity_type', '=', 'identity').orderBy('entity_id').orderBy('attribute').execute();
    assert.deepEqual(rows, [
      { entity_id: 'old-1', attribute: 'emea' },
      { entity_id: 'old-1', attribute: 'sales' },
    ]);
  });

  it('gives earlier identities the default hosting settings', async () => {
    const row = await raw.selectFrom('identities').selectAll().where('id', '=', 'old-2').executeTakeFirstOrThrow();
    assert.deepEqual(
      [row.default_hosting_precedence, Number(row.default_hosting_cost), row.service_hosting_precedences, row.service_hosting_costs],
      ['default', 0, '{}', '{}'],
    );
  });
});
