/**
 * The pieces of `svc edge` that read upstream's `ziti edge` habits (decision 0073), where the CLI is not the point:
 * enum values in any case, type-first positionals, upstream's short letters, JSON input and where it is broken.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FieldSpec } from '../../src/cli/edge/catalogue.js';
import { parseFieldValue } from '../../src/cli/edge/field-options.js';
import { JsonInputError, lineAndColumn, parseJsonObject, readJsonObject } from '../../src/cli/edge/json-input.js';
import { choiceOf, namesFirst, shortFlagsOf } from '../../src/cli/edge/upstream-habits.js';

const field = (name: string, kind: FieldSpec['kind'], choices?: string[]): FieldSpec => ({ name, flag: name, kind, required: false, nullable: false, ...(choices ? { choices } : {}) });

describe("svc edge reading upstream's habits", () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-habits-unit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('maps enum values in any case, and a value spelled in words by its first word, to the API spelling', () => {
    assert.equal(choiceOf(['Dial', 'Bind'], 'dial'), 'Dial');
    assert.equal(choiceOf(['Dial', 'Bind'], 'BIND'), 'Bind');
    assert.equal(choiceOf(['AllOf', 'AnyOf'], 'anyof'), 'AnyOf');
    assert.equal(choiceOf(['AllOf', 'AnyOf'], 'any'), 'AnyOf');
    assert.equal(choiceOf(['AllOf', 'AnyOf'], 'all'), 'AllOf');
    assert.equal(choiceOf(['User', 'Device', 'Service', 'Router', 'Default'], 'device'), 'Device');
    assert.equal(choiceOf(['OS', 'MAC', 'PROCESS', 'PROCESS_MULTI'], 'process'), 'PROCESS');
    assert.equal(choiceOf(['OS', 'MAC', 'PROCESS', 'PROCESS_MULTI'], 'process_multi'), 'PROCESS_MULTI');
    // Nothing it does not clearly mean: a lone letter, another word.
    assert.equal(choiceOf(['AllOf', 'AnyOf'], 'a'), undefined);
    assert.equal(choiceOf(['OS', 'MAC', 'PROCESS', 'PROCESS_MULTI'], 'p'), undefined);
    assert.equal(choiceOf(['Dial', 'Bind'], 'call'), undefined);
    assert.equal(parseFieldValue(field('semantic', 'string', ['AllOf', 'AnyOf']), 'any'), 'AnyOf');
    assert.throws(() => parseFieldValue(field('semantic', 'string', ['AllOf', 'AnyOf']), 'most'), /expected one of AllOf, AnyOf/);
  });

  it('turns type-first positionals round to NAME TYPE only when the first is a type and the second is not', () => {
    const type = field('type', 'string', ['User', 'Device', 'Service', 'Router', 'Default']);
    assert.deepEqual(namesFirst(type, ['user', 'bob']), ['bob', 'user']);
    assert.deepEqual(namesFirst(type, ['bob', 'User']), ['bob', 'User']);
    // An identity named after a type keeps its name when a type follows.
    assert.deepEqual(namesFirst(type, ['service', 'device']), ['service', 'device']);
    assert.deepEqual(namesFirst(type, ['user']), ['user']);
    assert.deepEqual(namesFirst(field('configTypeId', 'string'), ['web', 'host.v1', '{}']), ['web', 'host.v1', '{}']);
  });

  it("gives upstream's short letters to the fields that have them, one letter to one field", () => {
    const identity = shortFlagsOf([field('name', 'string'), field('roleAttributes', 'string-array'), field('isAdmin', 'boolean'), field('tags', 'object'), field('defaultHostingCost', 'integer')]);
    assert.deepEqual(Object.fromEntries(identity), { roleAttributes: 'a', isAdmin: 'A', name: 'n', defaultHostingCost: 'c', tags: 't' });
    // An edge router's -t is upstream's tunneler flag, so its tags go without.
    const router = shortFlagsOf([field('isTunnelerEnabled', 'boolean'), field('tags', 'object')]);
    assert.deepEqual(Object.fromEntries(router), { isTunnelerEnabled: 't' });
  });

  it('names the line and column of broken JSON, and refuses what is not an object', () => {
    assert.deepEqual(lineAndColumn('{\n  "a": 1,\n  }', 14), { line: 3, column: 3 });
    assert.throws(
      () => parseJsonObject('{\n  "a": 1,\n  }', "file 'x.json'"),
      (error: Error) => error instanceof JsonInputError && /^file 'x\.json' is not valid JSON at line 3, column 3: unexpected '\}'/.test(error.message),
    );
    assert.throws(() => parseJsonObject('[1]', 'the inline JSON'), /the inline JSON must hold a JSON object \(\{…\}\), not an array/);
    // The API's own strictness: a key given twice is refused rather than the last one taken.
    assert.throws(() => parseJsonObject('{"isAdmin": false, "isAdmin": true}', 'the inline JSON'), /line 1, column \d+: .*isAdmin/);
  });

  it('reads a JSON object inline, from @FILE, and (for --data) from a bare file; an unreadable file says so', () => {
    const file = join(dir, 'body.json');
    writeFileSync(file, '{"name": "x"}');
    assert.deepEqual(readJsonObject('{"name": "y"}', { bareFile: false }), { name: 'y' });
    assert.deepEqual(readJsonObject(`@${file}`, { bareFile: false }), { name: 'x' });
    assert.deepEqual(readJsonObject(file, { bareFile: true }), { name: 'x' });
    assert.throws(() => readJsonObject(file, { bareFile: false }), /is neither JSON nor @FILE/);
    assert.throws(
      () => readJsonObject(join(dir, 'missing.json'), { bareFile: true }),
      (error: Error) => error instanceof JsonInputError && error.unreadable && /cannot read '.*missing\.json' \(no such file\)/.test(error.message),
    );
  });
});
