/**
 * The list parameters of every list operation (`filter`, `sort`, `limit`, `offset`) cost time linear in their length
 * whatever they hold (issue 12, point 1). Each parser gets the longest input that can reach it, in its worst shapes,
 * and its time is compared with an ordinary input of the same length measured in the same run: the bound is a ratio,
 * never a wall-clock constant. Also the rules added on the way: repeated sort fields are dropped, and a filter of
 * 100,000 nested parentheses is a 400 rather than a stack overflow.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/errors/api-error.js';
import { MAX_FILTER_LENGTH, MAX_NESTING_DEPTH, parseFilter, parseListParams, type FieldMap } from '../../src/persistence/query/list-query.js';
import { closestMatch } from '../../src/shared/text-distance.js';
import { fill, LINEAR_BOUND, fillWith, ratioSummary, timeRatios, tooSlow } from '../helpers/timing.js';

/** A field map the size of the real ones (identities expose about a dozen fields). */
const fields: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  externalId: { column: 'external_id', type: 'string' },
  isAdmin: { column: 'is_admin', type: 'boolean' },
  isDefaultAdmin: { column: 'is_default_admin', type: 'boolean' },
  disabled: { column: 'disabled', type: 'boolean' },
  authPolicyId: { column: 'auth_policy_id', type: 'string' },
  'type.id': { column: 'type_id', type: 'string' },
  sessionCount: { column: 'session_count', type: 'number' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  disabledUntil: { column: 'disabled_until', type: 'datetime' },
};

/** What reaches a query parameter: the 16 KiB request head, less the request line around it. */
const QUERY_PARAMETER = 16 * 1024 - 64;
const BOUND = LINEAR_BOUND;

describe('linear time: the filter parameter', () => {
  it(`costs a small multiple of an ordinary filter for ${MAX_FILTER_LENGTH} characters of any shape`, async (t) => {
    const size = MAX_FILTER_LENGTH;
    const normal = fillWith((i) => `(name contains "edge-${i}" or sessionCount >= ${i}) and not isAdmin`, size - 40, ' and ');
    const parse = (text: string) => () => parseFilter(text, fields);
    assert.ok(parseFilter(normal, fields).where, 'the ordinary filter parses');
    const ratios = await timeRatios(parse(normal), {
      'opening parentheses': parse('('.repeat(size)),
      'nested not': parse(fill('not ', size)),
      'one long unknown field': parse('x'.repeat(size)),
      'one long unknown field compared': parse(`${'x'.repeat(size - 4)} = 1`),
      'a string of escapes': parse(`name = "${fill('\\n', size - 10)}"`),
      'an unterminated string': parse(`name = "${'a'.repeat(size - 8)}`),
      'a long list': parse(`sessionCount in [${fill('1,', size - 20)}1]`),
      'datetime( without )': parse(fill('datetime(', size)),
      'one long operator': parse(`name ${fill('<', size - 5)}`),
      'a number glued to letters': parse(`1${'a'.repeat(size - 1)}`),
      'dots between names': parse(fill('a.', size)),
      'words without operators': parse(fill('a ', size)),
      'a long sort by': parse(`sort by ${fill('name, ', size - 12)}name`),
    });
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case filters took longer than allowed');
  });

  it('refuses 100,000 nested parentheses with a 400 naming the length, not a stack overflow', () => {
    assert.throws(
      () => parseFilter(`${'('.repeat(100_000)}name = "x"${')'.repeat(100_000)}`, fields),
      (error: unknown) => error instanceof ApiError && error.code === 'INVALID_FILTER' && error.status === 400 && /4096-character limit/.test(error.message),
    );
  });

  it('refuses parentheses nested within the length limit with a 400 naming the depth', () => {
    const depth = (MAX_FILTER_LENGTH - 10) / 2;
    assert.throws(
      () => parseFilter(`${'('.repeat(depth)}name = "x"${')'.repeat(depth)}`, fields),
      (error: unknown) => error instanceof ApiError && error.status === 400 && error.message.includes(`nests deeper than ${MAX_NESTING_DEPTH} levels`),
    );
  });
});

describe('linear time: the sort, limit and offset parameters', () => {
  it('costs a small multiple of an ordinary sort for the longest parameter a URL can carry', async (t) => {
    const size = QUERY_PARAMETER;
    const sort = (value: string) => () => parseListParams({ sort: value }, fields);
    const names = Object.keys(fields);
    const normal = fillWith((i) => `${names[i % names.length]} ${i % 2 ? 'desc' : 'asc'}`, size, ', ');
    assert.equal(parseListParams({ sort: normal }, fields).sort.length, names.length, 'the ordinary sort parses');
    const ratios = await timeRatios(sort(normal), {
      'one long unknown field': sort('x'.repeat(size)),
      'one long misspelt field': sort('createdAt'.repeat(Math.floor(size / 9))),
      commas: sort(','.repeat(size)),
      'white space': sort(`${' '.repeat(size - 1)}x`),
      'one field repeated': sort(fill('name,', size - 4)),
      'a long limit': () => parseListParams({ limit: `1${' '.repeat(size - 2)}x` }, fields),
      'a long offset': () => parseListParams({ offset: `${'1'.repeat(size - 1)}x` }, fields),
    });
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case sort parameters took longer than allowed');
  });

  it('drops a sort field named again, whichever way it is sorted, in the parameter and in sort by', () => {
    const expected = [
      { field: 'name', direction: 'desc' },
      { field: 'createdAt', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    assert.deepEqual(parseListParams({ sort: 'name desc, createdAt, name asc, createdAt desc' }, fields).sort, expected);
    assert.deepEqual(parseListParams({ filter: 'sort by name desc, createdAt, name, createdAt desc' }, fields).sort, expected);
    assert.deepEqual(parseListParams({ sort: fill('name,', 5000).replace(/,$/, '') }, fields).sort, [
      { field: 'name', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
  });

  it('still suggests the closest field for a typo, and nothing for a long unknown name', () => {
    assert.equal(closestMatch('nmae', Object.keys(fields)), 'name');
    assert.equal(closestMatch('createdat', Object.keys(fields)), 'createdAt');
    assert.equal(closestMatch('x'.repeat(QUERY_PARAMETER), Object.keys(fields)), undefined);
    assert.equal(closestMatch('createdAtcreatedAt', Object.keys(fields)), undefined);
  });
});
