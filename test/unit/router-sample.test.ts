/**
 * The sample router file docs/guides/routers.md points to (docs/examples/router.yml) stays valid: no error and no warning, so a
 * reader who copies it starts from a file `svc router validate --strict` accepts.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { validateRouterConfig } from '../../src/router-config/validate.js';

const SAMPLE = fileURLToPath(new URL('../../docs/examples/router.yml', import.meta.url));

describe('the sample router file', () => {
  it('validates with no diagnostic and has an edge listener and link listener as its comments say', () => {
    const result = validateRouterConfig(readFileSync(SAMPLE, 'utf8'), SAMPLE, { env: {} });
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.line}:${d.column}: ${d.severity}: ${d.path}: ${d.message}`),
      [],
    );
    assert.ok(result.config);
    const text = JSON.stringify(result.config);
    assert.match(text, /3022/);
    assert.match(text, /4022/);
  });
});
