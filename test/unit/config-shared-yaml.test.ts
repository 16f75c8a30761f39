/**
 * The generic pieces under the config loader: YAML positions, `${VAR}` substitution, schema problems in
 * plain words, and the printed diagnostic shape. Reused by the router config validator.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { formatDiagnostic, sortDiagnostics } from '../../src/shared/diagnostics.js';
import type { Diagnostic } from '../../src/shared/diagnostics.js';
import { checkAgainstSchema, isClean } from '../../src/shared/schema-check.js';
import { formatKeyPath, hasPath, locate, parseYaml } from '../../src/shared/yaml-source.js';

const TEXT = `top:
  list:
    - name: a
      empty:
    - name: b
  flag: true
`;

describe('YAML positions', () => {
  it('finds the key and the value of a nested path, 1-based', () => {
    const { source } = parseYaml(TEXT, 'f.yml');

    assert.deepEqual(locate(source, ['top', 'list', 1, 'name'], 'key'), { line: 5, column: 7 });
    assert.deepEqual(locate(source, ['top', 'list', 1, 'name'], 'value'), { line: 5, column: 13 });
    assert.deepEqual(locate(source, ['top', 'flag'], 'value'), { line: 6, column: 9 });
  });

  it('points at the key when the value is empty', () => {
    const { source } = parseYaml(TEXT, 'f.yml');

    assert.deepEqual(locate(source, ['top', 'list', 0, 'empty'], 'value'), { line: 4, column: 7 });
  });

  it('points at the nearest existing parent for a missing path, a list item at its dash', () => {
    const { source } = parseYaml(TEXT, 'f.yml');

    assert.deepEqual(locate(source, ['top', 'list', 0, 'missing', 'deeper'], 'key'), { line: 3, column: 5 });
    assert.deepEqual(locate(source, ['top', 'list', 0, 'empty', 'deeper'], 'key'), { line: 4, column: 7 });
    assert.deepEqual(locate(source, ['top', 'nothing'], 'value'), { line: 1, column: 1 });
    assert.equal(hasPath(source, ['top', 'list', 5]), false);
    assert.equal(hasPath(source, ['top', 'list', 0, 'empty']), true);
  });

  it('writes key paths with dots and list indexes in brackets', () => {
    assert.equal(formatKeyPath(['web', 0, 'bindPoints', 1, 'address']), 'web[0].bindPoints[1].address');
    assert.equal(formatKeyPath([]), '');
  });
});

describe('variable substitution', () => {
  it('replaces ${NAME} in values but never in keys', () => {
    const parsed = parseYaml('${K}: ${V}\nlist:\n  - a-${V}\n', 'f.yml', { env: { K: 'key', V: 'value' } });

    assert.deepEqual(parsed.value, { '${K}': 'value', list: ['a-value'] });
  });

  it('reports each unset or malformed reference at its value', () => {
    const parsed = parseYaml('a:\n  b: x-${MISSING}-${1BAD}\n', 'f.yml', { env: {} });

    assert.deepEqual(parsed.diagnostics.map((d) => formatDiagnostic(d)), [
      "f.yml:2:6: a.b: environment variable 'MISSING' is not set",
      "f.yml:2:6: a.b: '${1BAD}' is not a valid variable reference",
    ]);
    assert.deepEqual(parsed.unresolved, ['a.b']);
  });

  it('leaves the text alone when no environment is given', () => {
    assert.deepEqual(parseYaml('a: ${X}\n', 'f.yml').value, { a: '${X}' });
  });
});

describe('schema problems', () => {
  const schema = Type.Object(
    { name: Type.String({ minLength: 1 }), size: Type.Optional(Type.Integer({ minimum: 1, default: 3 })), mode: Type.Optional(Type.Enum(['fast', 'slow'])) },
    { additionalProperties: false },
  );

  it('fills in defaults and reports nothing for a good value', () => {
    const parsed = parseYaml('name: x\n', 'f.yml');
    const result = checkAgainstSchema(parsed.value, schema, parsed.source);

    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(parsed.value, { name: 'x', size: 3 });
  });

  it('words every problem plainly, with did-you-mean for keys and values', () => {
    const parsed = parseYaml('nmae: x\nsize: 0\nmode: fats\n', 'f.yml');
    const result = checkAgainstSchema(parsed.value, schema, parsed.source);

    assert.deepEqual(sortDiagnostics(result.diagnostics).map((d) => formatDiagnostic(d)), [
      "f.yml:1:1: name: missing required key",
      "f.yml:1:1: nmae: unknown key 'nmae' (did you mean 'name'?)",
      'f.yml:2:7: size: must be >= 1',
      "f.yml:3:7: mode: must be one of 'fast', 'slow' (did you mean 'fast'?)",
    ]);
    assert.equal(isClean(result, ['size']), false);
    assert.equal(isClean(result, ['other']), true);
  });

  it('reports problems of a sub-tree under its path in the file', () => {
    const parsed = parseYaml('outer:\n  inner:\n    name: 3\n', 'f.yml');
    const inner = (parsed.value as { outer: { inner: unknown } }).outer.inner;
    const result = checkAgainstSchema(inner, schema, parsed.source, ['outer', 'inner']);

    assert.deepEqual(result.diagnostics.map((d) => formatDiagnostic(d)), ['f.yml:3:11: outer.inner.name: expected a string, got a number (3)']);
  });
});

describe('printed diagnostics', () => {
  const base: Diagnostic = { severity: 'error', file: 'c.yml', line: 3, column: 5, path: 'edge.api', message: 'bad' };

  it('prints errors, warnings and path-less problems in the FILE:LINE:COLUMN shape', () => {
    assert.equal(formatDiagnostic(base), 'c.yml:3:5: edge.api: bad');
    assert.equal(formatDiagnostic({ ...base, severity: 'warning' }), 'c.yml:3:5: edge.api: warning: bad');
    assert.equal(formatDiagnostic({ ...base, path: '' }), 'c.yml:3:5: bad');
  });

  it('sorts by line, then column', () => {
    const sorted = sortDiagnostics([{ ...base, line: 9 }, { ...base, column: 9 }, base]);

    assert.deepEqual(sorted.map((d) => `${d.line}:${d.column}`), ['3:5', '3:9', '9:5']);
  });
});
