/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// The list-query language: text -> AST with type checks, its error messages, and the paging/sort parameter rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/errors/api-error.js';
import { parseFilter } from '../../src/persistence/query/parser.js';
import { parseListParams, type FieldMap } from '../../src/persistence/query/list-query.js';

const fields: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  age: { column: 'age', type: 'number' },
  isAdmin: { column: 'is_admin', type: 'boolean' },
  createdAt: { column: 'created_at', type: 'datetime' },
  'type.id': { column: 'type_id', type: 'string' },
};

const where = (text: string) => parseFilter(text, fields).where;

/** The properties a thrown ApiError must have; `column` is checked in the message and in the cause. */
function apiError(code: string, column: number | undefined, message: RegExp) {
  return (error: unknown) =>
    error instanceof ApiError &&
    error.code === code &&
    message.test(error.message) &&
    (column === undefined || (error.message.includes(`at column ${column}`) && error.cause?.position === column));
}

describe('filter parser: constructs', () => {
  it('parses each comparison operator to a compare node', () => {
    for (const operator of ['=', '!=', '<', '<=', '>', '>='] as const) {
      assert.deepEqual(where(`age ${operator} 42`), { kind: 'compare', field: 'age', operator, value: 42 });
    }
  });

  it('parses string escapes, negative and exponent numbers', () => {
    assert.deepEqual(where(String.raw`name = "a\"b\\c\n\r\t\f"`), {
      kind: 'compare', field: 'name', operator: '=', value: 'a"b\\c\n\r\t\f',
    });
    assert.deepEqual(where('age > -1.5e2'), { kind: 'compare', field: 'age', operator: '>', value: -150 });
  });

  it('parses contains and icontains with their not forms', () => {
    assert.deepEqual(where('name contains "x"'), { kind: 'contains', field: 'name', value: 'x', caseInsensitive: false });
    assert.deepEqual(where('name icontains "x"'), { kind: 'contains', field: 'name', value: 'x', caseInsensitive: true });
    assert.deepEqual(where('name not contains "x"'), {
      kind: 'not', operand: { kind: 'contains', field: 'name', value: 'x', caseInsensitive: false },
    });
    assert.deepEqual(where('name not icontains "x"'), {
      kind: 'not', operand: { kind: 'contains', field: 'name', value: 'x', caseInsensitive: true },
    });
  });

  it('parses in and not in lists', () => {
    assert.deepEqual(where('age in [1, 2,3]'), { kind: 'in', field: 'age', values: [1, 2, 3] });
    assert.deepEqual(where('name not in ["a"]'), { kind: 'not', operand: { kind: 'in', field: 'name', values: ['a'] } });
  });

  it('parses between and not between', () => {
    assert.deepEqual(where('age between 1 and 10'), { kind: 'between', field: 'age', lower: 1, upper: 10 });
    assert.deepEqual(where('age not between 1 and 10'), {
      kind: 'not', operand: { kind: 'between', field: 'age', lower: 1, upper: 10 },
    });
  });

  it('parses = null and != null as null tests', () => {
    assert.deepEqual(where('name = null'), { kind: 'isNull', field: 'name' });
    assert.deepEqual(where('name != null'), { kind: 'not', operand: { kind: 'isNull', field: 'name' } });
  });

  it('parses booleans, a bare boolean field and the constants true and false', () => {
    assert.deepEqual(where('isAdmin = false'), { kind: 'compare', field: 'isAdmin', operator: '=', value: false });
    assert.deepEqual(where('isAdmin'), { kind: 'compare', field: 'isAdmin', operator: '=', value: true });
    assert.deepEqual(where('true'), { kind: 'constant', value: true });
    assert.deepEqual(where('FALSE'), { kind: 'constant', value: false });
  });

  it('normalises datetime literals and quoted RFC 3339 strings to the stored UTC text', () => {
    assert.deepEqual(where('createdAt >= datetime(2021-01-02T15:04:05.123456+02:00)'), {
      kind: 'compare', field: 'createdAt', operator: '>=', value: '2021-01-02T13:04:05.123Z',
    });
    assert.deepEqual(where('createdAt < "2021-01-02T15:04:05Z"'), {
      kind: 'compare', field: 'createdAt', operator: '<', value: '2021-01-02T15:04:05.000Z',
    });
  });

  it('binds and tighter than or, not tighter than and, and honours parentheses', () => {
    const a = { kind: 'compare', field: 'age', operator: '=', value: 1 } as const;
    const b = { kind: 'compare', field: 'age', operator: '=', value: 2 } as const;
    const c = { kind: 'compare', field: 'age', operator: '=', value: 3 } as const;
    assert.deepEqual(where('age = 1 or age = 2 and age = 3'), { kind: 'or', operands: [a, { kind: 'and', operands: [b, c] }] });
    assert.deepEqual(where('not age = 1 and age = 2'), { kind: 'and', operands: [{ kind: 'not', operand: a }, b] });
    assert.deepEqual(where('(age = 1 or age = 2) and age = 3'), { kind: 'and', operands: [{ kind: 'or', operands: [a, b] }, c] });
  });

  it('reads keywords in any case and dotted field names', () => {
    assert.deepEqual(where('type.id IN ["x"] AnD NOT isAdmin'), {
      kind: 'and',
      operands: [
        { kind: 'in', field: 'type.id', values: ['x'] },
        { kind: 'not', operand: { kind: 'compare', field: 'isAdmin', operator: '=', value: true } },
      ],
    });
  });

  it('parses sort by, skip and limit after a condition or alone', () => {
    assert.deepEqual(parseFilter('age > 1 SORT BY name desc, age skip 5 limit 20', fields), {
      where: { kind: 'compare', field: 'age', operator: '>', value: 1 },
      sort: [{ field: 'name', direction: 'desc' }, { field: 'age', direction: 'asc' }],
      skip: 5,
      limit: 20,
    });
    assert.deepEqual(parseFilter('limit none', fields), { limit: 'none' });
    assert.deepEqual(parseFilter('skip 0 limit -1', fields), { skip: 0, limit: -1 });
    assert.deepEqual(parseFilter('   ', fields), {});
  });
});

describe('filter parser: malformed filters', () => {
  const cases: [string, string, string, number, RegExp][] = [
    ['an unterminated string', 'name = "abc', 'INVALID_FILTER', 8, /unterminated string/],
    ['a missing value', 'name = ', 'INVALID_FILTER', 8, /expected a value after '='/],
    ['an unknown symbolic operator', 'name == "a"', 'INVALID_FILTER', 6, /unknown operator '=='/],
    ['an unknown word operator', 'name like "a"', 'INVALID_FILTER', 6, /unknown operator 'like'/],
    ['an unknown field', 'nmae = "x"', 'INVALID_FILTER', 1, /unknown field 'nmae' at column 1 \(did you mean 'name'\? fields: id, name, age/],
    ['a string for a number field', 'age = "x"', 'INVALID_FILTER', 7, /field 'age' expects a number, found a string/],
    ['a number for a string field', 'name in ["a", 2]', 'INVALID_FILTER', 15, /field 'name' expects a string, found a number/],
    ['contains on a number field', 'age contains "1"', 'INVALID_FILTER', 5, /'contains' needs a string field/],
    ['an ordering operator on a boolean', 'isAdmin > true', 'INVALID_FILTER', 9, /'>' cannot be used on boolean field 'isAdmin'/],
    ['null with an ordering operator', 'age < null', 'INVALID_FILTER', 7, /null can only be compared with = or !=/],
    ['an empty in list', 'name in []', 'INVALID_FILTER', 9, /must not be empty/],
    ['an impossible date', 'createdAt > datetime(2021-02-30T00:00:00Z)', 'INVALID_FILTER', 22, /invalid datetime '2021-02-30T00:00:00Z'/],
    ['a date without a zone', 'createdAt > datetime(2021-02-03T00:00:00)', 'INVALID_FILTER', 22, /invalid datetime/],
    ['a datetime for a string field', 'name = datetime(2021-02-03T00:00:00Z)', 'INVALID_FILTER', 8, /field 'name' expects a string, found a datetime/],
    ['trailing garbage', 'name = "a" foo', 'INVALID_FILTER', 12, /unexpected 'foo'/],
    ['an unclosed parenthesis', '(name = "a"', 'INVALID_FILTER', 12, /expected '\)'.*column 1/],
    ['an extra closing parenthesis', 'name = "a")', 'INVALID_FILTER', 11, /unexpected '\)'/],
    ['a stray character', 'name = "a" & age = 1', 'INVALID_FILTER', 12, /unexpected character '&'/],
    ['a number glued to letters', 'age = 12abc', 'INVALID_FILTER', 7, /malformed number '12abc'/],
    ['a dangling and', 'age = 1 and', 'INVALID_FILTER', 12, /expected a condition/],
    ['an unknown sort field', 'sort by nmae', 'INVALID_SORT_IDENTIFIER', 9, /unknown sort field 'nmae'.*did you mean 'name'/],
    ['an unknown sort direction', 'sort by name up', 'INVALID_SORT_IDENTIFIER', 14, /unknown sort direction 'up'/],
    ['a zero limit', 'limit 0', 'INVALID_PAGINATION', 7, /limit must be a positive integer/],
    ['a negative skip', 'skip -2', 'INVALID_PAGINATION', 6, /skip must be an integer of 0 or more/],
    ['a word after limit', 'limit all', 'INVALID_FILTER', 7, /expected a number or 'none' after 'limit'/],
  ];
  for (const [what, text, code, column, message] of cases) {
    it(`refuses ${what} with ${code} naming column ${column}`, () => {
      assert.throws(() => parseFilter(text, fields), apiError(code, column, message));
    });
  }

  it('puts the message, the filter and the 1-based column in the error cause', () => {
    const error = captureError(() => parseFilter('name = ', fields));
    assert.equal(error.status, 400);
    assert.deepEqual(error.cause, {
      field: 'filter',
      reason: error.message,
      value: 'name = ',
      position: 8,
    });
    assert.match(error.message, /^filter: expected a value after '=' at column 8/);
  });

  it('refuses a filter longer than 4096 characters', () => {
    const text = `name = "${'x'.repeat(5000)}"`;
    assert.throws(() => parseFilter(text, fields), apiError('INVALID_FILTER', 4097, /4096-character limit/));
  });

  it('refuses nesting deeper than 32 levels and accepts 32', () => {
    const nestedFilter = (depth: number) => `${'('.repeat(depth)}age = 1${')'.repeat(depth)}`;
    assert.deepEqual(where(nestedFilter(32)), { kind: 'compare', field: 'age', operator: '=', value: 1 });
    assert.throws(() => where(nestedFilter(33)), apiError('INVALID_FILTER', 33, /nests deeper than 32/));
    assert.throws(() => where(`${'not '.repeat(40)}isAdmin`), apiError('INVALID_FILTER', undefined, /nests deeper than 32/));
  });
});

describe('list parameters: paging and sort', () => {
  it('defaults to 10 rows from offset 0 sorted by createdAt then id', () => {
    assert.deepEqual(parseListParams({}, fields), {
      where: undefined,
      sort: [{ field: 'createdAt', direction: 'asc' }, { field: 'id', direction: 'asc' }],
      limit: 10,
      offset: 0,
    });
  });

  it('accepts integer limit and offset given as text or numbers', () => {
    const query = parseListParams({ limit: '25', offset: 50 }, fields);
    assert.equal(query.limit, 25);
    assert.equal(query.offset, 50);
  });

  it('clamps a limit above 500 and reads -1 and none as the largest page', () => {
    assert.equal(parseListParams({ limit: '100000' }, fields).limit, 500);
    assert.equal(parseListParams({ limit: '-1' }, fields).limit, 500);
    assert.equal(parseListParams({ filter: 'limit none' }, fields).limit, 500);
    assert.equal(parseListParams({ filter: 'limit 9999' }, fields).limit, 500);
  });

  it('refuses non-integer, zero or below -1 limits and negative offsets with INVALID_PAGINATION', () => {
    for (const limit of ['abc', '2.5', '', '0', '-2']) {
      assert.throws(() => parseListParams({ limit }, fields), apiError('INVALID_PAGINATION', undefined, /^limit: /));
    }
    for (const offset of ['x', '-1', '1e3']) {
      assert.throws(() => parseListParams({ offset }, fields), apiError('INVALID_PAGINATION', undefined, /^offset: /));
    }
    const error = captureError(() => parseListParams({ limit: 'abc' }, fields));
    assert.deepEqual(error.cause, { field: 'limit', reason: error.message, value: 'abc' });
  });

  it('lets skip and limit in the filter win over the parameters', () => {
    const query = parseListParams({ filter: 'age > 1 skip 3 limit 4', limit: '50', offset: '60' }, fields);
    assert.equal(query.limit, 4);
    assert.equal(query.offset, 3);
  });

  it('uses the sort parameter only when the filter has no sort by', () => {
    assert.deepEqual(parseListParams({ sort: 'name DESC, age' }, fields).sort, [
      { field: 'name', direction: 'desc' },
      { field: 'age', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
    assert.deepEqual(parseListParams({ sort: 'name desc', filter: 'sort by age' }, fields).sort, [
      { field: 'age', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
  });

  it('does not repeat id when the sort already uses it', () => {
    assert.deepEqual(parseListParams({ sort: 'id desc' }, fields).sort, [{ field: 'id', direction: 'desc' }]);
  });

  it('refuses an unknown sort field or direction with INVALID_SORT_IDENTIFIER naming it', () => {
    assert.throws(() => parseListParams({ sort: 'nmae' }, fields), apiError('INVALID_SORT_IDENTIFIER', undefined, /unknown sort field 'nmae'.*did you mean 'name'/));
    assert.throws(() => parseListParams({ sort: 'name sideways' }, fields), apiError('INVALID_SORT_IDENTIFIER', undefined, /unknown sort direction 'sideways'/));
    assert.throws(() => parseListParams({ sort: 'name,,age' }, fields), apiError('INVALID_SORT_IDENTIFIER', undefined, /^sort: /));
  });

  it('uses the given default sort, else id when there is no createdAt', () => {
    assert.deepEqual(parseListParams({}, fields, { field: 'name', direction: 'desc' }).sort, [
      { field: 'name', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ]);
    const noCreatedAt: FieldMap = { id: { column: 'id', type: 'string' }, name: { column: 'name', type: 'string' } };
    assert.deepEqual(parseListParams({}, noCreatedAt).sort, [{ field: 'id', direction: 'asc' }]);
  });

  it('passes the parsed condition through', () => {
    assert.deepEqual(parseListParams({ filter: 'isAdmin' }, fields).where, {
      kind: 'compare', field: 'isAdmin', operator: '=', value: true,
    });
  });
});

function captureError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
