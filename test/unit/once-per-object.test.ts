/** Views and texts of kept values made once per value object (shared/once-per-object.ts). * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oncePerObject } from '../../src/shared/once-per-object.js';

describe('oncePerObject', () => {
  it('makes a value once per key object, and anew for another object with equal contents', () => {
    let made = 0;
    const viewOf = oncePerObject((key: { n: number }) => ({ doubled: key.n * 2, serial: ++made }));
    const key = { n: 2 };
    assert.equal(viewOf(key), viewOf(key));
    assert.equal(made, 1);
    assert.notEqual(viewOf({ n: 2 }), viewOf(key));
    assert.equal(made, 2);
  });

  it('keeps an undefined value as made, without making it again', () => {
    let made = 0;
    const nothingFor = oncePerObject((_key: object) => {
      made++;
      return undefined;
    });
    const key = {};
    assert.equal(nothingFor(key), undefined);
    assert.equal(nothingFor(key), undefined);
    assert.equal(made, 1);
  });
});
