/**
 * The shape checker the response-shape tests rely on (test/helpers/shapes.ts): it must report a missing field, a
 * field of the wrong JSON type and a missing nested field, or those tests could never fail.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listShapeProblems, shapeProblems } from '../helpers/shapes.js';

describe('the response shape checker', () => {
  const shape = { id: 'string', count: 'integer', ratio: 'number', ref: 'string|null', 'nested.flag': 'boolean', items: 'array', meta: 'object' };

  it('accepts a value with every field of its JSON type (an integer counts as a number)', () => {
    assert.deepEqual(shapeProblems({ id: 'a', count: 2, ratio: 3, ref: null, nested: { flag: false }, items: [], meta: {} }, shape), []);
  });

  it('names each missing field, nested ones by their dotted path', () => {
    assert.deepEqual(shapeProblems({ id: 'a', count: 2, ratio: 0.5, ref: 'x', nested: {}, items: [] }, shape), ['nested.flag: missing', 'meta: missing']);
  });

  it('names each field of the wrong JSON type: null is not an object, a list is not an object, 1.5 is not an integer', () => {
    assert.deepEqual(shapeProblems({ id: 1, count: 1.5, ratio: '1', ref: 3, nested: { flag: 'no' }, items: {}, meta: null }, shape), [
      'id: expected string, got integer',
      'count: expected integer, got number',
      'ratio: expected number, got string',
      'ref: expected string|null, got integer',
      'nested.flag: expected boolean, got string',
      'items: expected array, got object',
      'meta: expected object, got null',
    ]);
    assert.deepEqual(shapeProblems({ meta: [] }, { meta: 'object' }), ['meta: expected object, got array']);
  });

  it('does not take a field from the prototype chain for one that is present', () => {
    assert.deepEqual(shapeProblems({}, { toString: 'object' }), ['toString: missing']);
  });

  it('prefixes the problems of list items with their index', () => {
    assert.deepEqual(listShapeProblems([{ id: 'a' }, {}], { id: 'string' }), ['[1].id: missing']);
  });
});
