// The list-query language against a real store: every operator returns exactly the expected rows on the
// dialect under test, with paging, sorting, NULLs, case rules and SQL-looking values handled the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/persistence/database.js';
import {
  listRows,
  listTableRows,
  parseListParams,
  type FieldMap,
  type RawListParams,
} from '../../src/persistence/query/list-query.js';
import type { Tables } from '../../src/persistence/tables.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

interface GadgetRow {
  id: string;
  name: string;
  nickname: string | null;
  size: number | null;
  weight: number;
  active: boolean | number;
  made_at: string;
  checked_at: string | null;
}

type ScratchTables = Tables & { gadgets: GadgetRow };

const GADGET_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  nickname: { column: 'nickname', type: 'string' },
  size: { column: 'size', type: 'number' },
  weight: { column: 'weight', type: 'number' },
  active: { column: 'active', type: 'boolean' },
  madeAt: { column: 'made_at', type: 'datetime' },
  checkedAt: { column: 'checked_at', type: 'datetime' },
};

const GADGETS: GadgetRow[] = [
  { id: 'g1', name: 'Alpha', nickname: 'al', size: 10, weight: 1.5, active: true, made_at: '2024-01-01T00:00:00.000Z', checked_at: null },
  { id: 'g2', name: 'beta', nickname: null, size: 20, weight: 2.25, active: false, made_at: '2024-02-01T00:00:00.000Z', checked_at: null },
  { id: 'g3', name: 'Gamma ray', nickname: 'gam', size: null, weight: 3, active: true, made_at: '2024-03-01T00:00:00.000Z', checked_at: '2024-03-05T10:00:00.000Z' },
  { id: 'g4', name: "O'Brien", nickname: 'ob', size: 40, weight: 0.5, active: false, made_at: '2024-04-01T00:00:00.000Z', checked_at: '2024-04-02T00:00:00.000Z' },
  { id: 'g5', name: 'alphabet', nickname: 'ALPHA', size: 5, weight: 10, active: true, made_at: '2024-05-01T00:00:00.000Z', checked_at: null },
  { id: 'g6', name: 'Zeta_100%', nickname: null, size: 20, weight: 2.25, active: false, made_at: '2024-01-01T00:00:00.000Z', checked_at: null },
];

describe(`filters compiled to SQL on ${testDialect}`, () => {
  let database: Database;
  let db: Kysely<ScratchTables>;

  before(async () => {
    database = await openTestDatabase();
    db = database.db.withTables<{ gadgets: GadgetRow }>();
    await db.schema
      .createTable('gadgets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('nickname', 'text')
      .addColumn('size', 'integer')
      .addColumn('weight', 'double precision', (c) => c.notNull())
      .addColumn('active', 'boolean', (c) => c.notNull())
      .addColumn('made_at', 'text', (c) => c.notNull())
      .addColumn('checked_at', 'text')
      .execute();
    await db.insertInto('gadgets').values(GADGETS).execute();
  });
  after(async () => database.close());

  /** The rows and total of a list with these parameters. */
  async function list(params: RawListParams) {
    const query = parseListParams({ limit: -1, ...params }, GADGET_FIELDS);
    return listTableRows(db, database.dialect, 'gadgets', GADGET_FIELDS, query);
  }

  /** The ids matching `filter`, in id order (the default sort falls back to id). */
  async function ids(filter: string): Promise<string[]> {
    const { rows } = await list({ filter, sort: 'id' });
    return rows.map((row) => row.id);
  }

  const cases: [string, string[]][] = [
    ['name = "beta"', ['g2']],
    ['name = "BETA"', []],
    ['name != "beta"', ['g1', 'g3', 'g4', 'g5', 'g6']],
    ['nickname != "al"', ['g2', 'g3', 'g4', 'g5', 'g6']],
    ['nickname = null', ['g2', 'g6']],
    ['nickname != null', ['g1', 'g3', 'g4', 'g5']],
    ['size < 20', ['g1', 'g5']],
    ['size <= 20', ['g1', 'g2', 'g5', 'g6']],
    ['size > 10', ['g2', 'g4', 'g6']],
    ['size >= 20', ['g2', 'g4', 'g6']],
    ['size < 10.5', ['g1', 'g5']],
    ['size > 3000000000', []],
    ['size > -1e3 and size < 6', ['g5']],
    ['weight = 2.25', ['g2', 'g6']],
    ['weight > 2.2', ['g2', 'g3', 'g5', 'g6']],
    ['weight = 3', ['g3']],
    ['active = true', ['g1', 'g3', 'g5']],
    ['active = false', ['g2', 'g4', 'g6']],
    ['active != true', ['g2', 'g4', 'g6']],
    ['active', ['g1', 'g3', 'g5']],
    ['not active', ['g2', 'g4', 'g6']],
    ['name contains "lpha"', ['g1', 'g5']],
    ['name contains "alpha"', ['g5']],
    ['name icontains "ALPHA"', ['g1', 'g5']],
    ['name not contains "a"', ['g4']],
    ['nickname not icontains "AL"', ['g2', 'g3', 'g4', 'g6']],
    ['name contains "%"', ['g6']],
    ['name contains "_"', ['g6']],
    ['name contains "\'"', ['g4']],
    ['size in [10, 40]', ['g1', 'g4']],
    ['size not in [10, 40]', ['g2', 'g3', 'g5', 'g6']],
    ['name in ["beta", "Gamma ray", "nope"]', ['g2', 'g3']],
    ['size between 5 and 20', ['g1', 'g5']],
    ['size not between 5 and 20', ['g2', 'g3', 'g4', 'g6']],
    ['madeAt > datetime(2024-02-01T00:00:00Z)', ['g3', 'g4', 'g5']],
    ['madeAt = datetime(2024-01-01T01:00:00+01:00)', ['g1', 'g6']],
    ['madeAt between datetime(2024-01-01T00:00:00Z) and datetime(2024-03-01T00:00:00Z)', ['g1', 'g2', 'g6']],
    ['madeAt >= "2024-05-01T00:00:00Z"', ['g5']],
    ['madeAt in [datetime(2024-02-01T00:00:00.000Z), datetime(2024-04-01T00:00:00Z)]', ['g2', 'g4']],
    ['checkedAt = null', ['g1', 'g2', 'g5', 'g6']],
    ['checkedAt < datetime(2024-04-01T00:00:00Z)', ['g3']],
    ['active and size > 5 or name = "beta"', ['g1', 'g2']],
    ['active and (size > 5 or name = "beta")', ['g1']],
    ['not (size = 20 or active)', ['g4']],
    ['true', ['g1', 'g2', 'g3', 'g4', 'g5', 'g6']],
    ['false', []],
    ['name = "O\'Brien"', ['g4']],
    ['name = "x\' OR 1=1 --"', []],
    ['name = "beta\\" OR 1=1 --"', []],
    ['nickname in ["\') OR (1=1"]', []],
  ];
  for (const [filter, expected] of cases) {
    it(`returns exactly ${expected.length ? expected.join(', ') : 'nothing'} for ${filter}`, async () => {
      assert.deepEqual(await ids(filter), expected);
    });
  }

  it('counts every matching row while returning one page', async () => {
    const { rows, totalCount } = await list({ filter: 'size >= 10', sort: 'id', limit: 2 });
    assert.deepEqual(rows.map((r) => r.id), ['g1', 'g2']);
    assert.equal(totalCount, 4);
  });

  it('pages through all rows in a stable order, ties broken by id', async () => {
    const pages: string[][] = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const { rows, totalCount } = await list({ sort: 'madeAt', limit: 2, offset });
      assert.equal(totalCount, 6);
      pages.push(rows.map((r) => r.id));
    }
    assert.deepEqual(pages, [['g1', 'g6'], ['g2', 'g3'], ['g4', 'g5']]);
  });

  it('sorts NULL first ascending and last descending on both dialects', async () => {
    const ascending = await list({ filter: 'sort by size' });
    assert.deepEqual(ascending.rows.map((r) => r.id), ['g3', 'g5', 'g1', 'g2', 'g6', 'g4']);
    const descending = await list({ filter: 'sort by size desc' });
    assert.deepEqual(descending.rows.map((r) => r.id), ['g4', 'g2', 'g6', 'g1', 'g5', 'g3']);
  });

  it('sorts text byte-wise, capitals before small letters, on both dialects', async () => {
    const { rows } = await list({ sort: 'name' });
    assert.deepEqual(rows.map((r) => r.name), ['Alpha', 'Gamma ray', "O'Brien", 'Zeta_100%', 'alphabet', 'beta']);
  });

  it('sorts by several keys and by booleans', async () => {
    const { rows } = await list({ filter: 'sort by active desc, weight' });
    assert.deepEqual(rows.map((r) => r.id), ['g1', 'g3', 'g5', 'g4', 'g2', 'g6']);
  });

  it('applies skip and limit written in the filter over the parameters', async () => {
    const { rows, totalCount } = await list({ filter: 'active = false sort by id desc skip 1 limit 1', limit: 5, offset: 0 });
    assert.deepEqual(rows.map((r) => r.id), ['g4']);
    assert.equal(totalCount, 3);
  });

  it('returns an empty page past the end with the full total', async () => {
    const { rows, totalCount } = await list({ offset: 100 });
    assert.deepEqual(rows, []);
    assert.equal(totalCount, 6);
  });

  it('lists a table of the schema through listRows with its booleans and NULLs', async () => {
    const identity = {
      type_id: 'Default', is_default_admin: false, auth_policy_id: null, role_attributes: '[]', tags: '{}',
      disabled: false, disabled_at: null, disabled_until: null, updated_at: '2024-01-01T00:00:00.000Z',
    };
    await database.db
      .insertInto('identities')
      .values([
        { ...identity, id: 'i1', name: 'admin', is_admin: true, external_id: null, created_at: '2024-01-02T00:00:00.000Z' },
        { ...identity, id: 'i2', name: 'alice', is_admin: false, external_id: 'ext-1', created_at: '2024-01-01T00:00:00.000Z' },
        { ...identity, id: 'i3', name: 'bob', is_admin: false, external_id: null, created_at: '2024-01-03T00:00:00.000Z' },
      ])
      .execute();
    const fields: FieldMap = {
      id: { column: 'id', type: 'string' },
      name: { column: 'name', type: 'string' },
      isAdmin: { column: 'is_admin', type: 'boolean' },
      externalId: { column: 'external_id', type: 'string' },
      createdAt: { column: 'created_at', type: 'datetime' },
    };
    const all = await listRows(database, 'identities', fields, parseListParams({}, fields));
    assert.deepEqual(all.rows.map((r) => r.name), ['alice', 'admin', 'bob']);
    const query = parseListParams({ filter: 'not isAdmin and externalId = null' }, fields);
    const { rows, totalCount } = await listRows(database, 'identities', fields, query);
    assert.deepEqual(rows.map((r) => r.id), ['i3']);
    assert.equal(totalCount, 1);
  });
});
