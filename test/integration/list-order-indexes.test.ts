/**
 * A list page sorted by name is read from an index on both stores, whatever the collection's size (issue 45: the
 * console's lists at a million identities; migration 0034). The plan is asked of the store for the very SQL the list
 * code builds (orderedColumn: byte-wise order, nulls first ascending), on a table with enough rows that a sort of the
 * whole table would be the planner's choice without the index.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/persistence/database.js';
import { orderedColumn } from '../../src/persistence/query/compile.js';
import { IDENTITY_FIELDS } from '../../src/persistence/repositories/identities.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { insertNetwork, randomNetwork, seededRandom } from '../helpers/authz-network.js';

describe(`name-sorted list pages on ${testDialect}`, () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
    const sizes = { identities: 20_000, services: 1, routers: 1, postureChecks: 0, servicePolicies: 0, edgeRouterPolicies: 0, serviceEdgeRouterPolicies: 0, attributes: 10, maxAttributesPerEntity: 1, allChance: 0 };
    await insertNetwork(database, randomNetwork(seededRandom(45), { ...sizes, prefix: 'order' }));
    if (testDialect === 'postgres') await sql`analyze identities`.execute(database.db);
  });
  after(async () => database.close());

  const plan = async (direction: 'asc' | 'desc') => {
    const name = orderedColumn(IDENTITY_FIELDS.name!, database.dialect);
    const page = database.db
      .selectFrom('identities')
      .selectAll()
      .orderBy(name, (order) => (direction === 'asc' ? order.asc().nullsFirst() : order.desc().nullsLast()))
      .limit(25)
      .compile();
    const explain = testDialect === 'postgres' ? 'explain ' : 'explain query plan ';
    const result = await database.db.executeQuery({ ...page, sql: explain + page.sql });
    return (result.rows as Record<string, unknown>[]).map((row) => String(row['QUERY PLAN'] ?? row.detail)).join('\n');
  };

  for (const direction of ['asc', 'desc'] as const) {
    it(`reads the first page sorted by name ${direction} from an index, without sorting the table`, async () => {
      const text = await plan(direction);
      if (testDialect === 'postgres') {
        assert.match(text, /Index Scan( Backward)? using identities_name_bytewise/, text);
      } else {
        assert.match(text, /USING INDEX/, text);
      }
      assert.doesNotMatch(text, /Sort|TEMP B-TREE/i, text);
    });
  }
});
