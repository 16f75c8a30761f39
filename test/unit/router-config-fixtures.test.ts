/**
 * The router fixture corpus: every `*.yml` under test/fixtures/router/{valid,invalid} is validated and its
 * diagnostics, printed one per line, must equal the `*.expected.txt` beside it exactly. Valid files may carry
 * warnings but no error, and the published JSON Schema accepts them too (an editor must not flag what the
 * validator accepts); invalid files have at least one error.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { routerJsonSchema } from '../../src/router-config/json-schema.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { formatDiagnostic, hasErrors } from '../../src/shared/diagnostics.js';

const ROOT = fileURLToPath(new URL('../fixtures/router/', import.meta.url));
/** The environment every fixture is validated with; other `${VAR}` references are unset on purpose. */
const ENV = { ROUTER_HOST: 'router.example.com' };

function fixtures(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.yml')).sort().map((f) => `${folder}/${f}`);
}

function run(name: string) {
  const result = validateRouterConfig(readFileSync(join(ROOT, name), 'utf8'), name, { env: ENV });
  const printed = result.diagnostics.map((d) => `${formatDiagnostic(d, { style: 'severity-first' })}\n`).join('');
  const expected = readFileSync(join(ROOT, name.replace(/\.yml$/, '.expected.txt')), 'utf8');
  return { result, printed, expected };
}

describe('valid router fixtures', () => {
  for (const name of fixtures('valid')) {
    it(`${name} has no error and prints exactly its expected warnings`, () => {
      const { result, printed, expected } = run(name);

      assert.equal(printed, expected);
      assert.equal(hasErrors(result.diagnostics), false);
      assert.ok(result.config);
    });
  }
});

describe('the published JSON Schema', () => {
  const schema = new Ajv({ strict: false }).compile(routerJsonSchema());

  for (const name of fixtures('valid')) {
    it(`accepts ${name}, as the validator does`, () => {
      let text = readFileSync(join(ROOT, name), 'utf8');
      for (const [key, value] of Object.entries(ENV)) text = text.replaceAll(`\${${key}}`, value);

      const accepted = schema(parse(text));

      assert.equal(accepted, true, JSON.stringify(schema.errors));
    });
  }
});

describe('invalid router fixtures', () => {
  for (const name of fixtures('invalid')) {
    it(`${name} prints exactly its expected diagnostics`, () => {
      const { result, printed, expected } = run(name);

      assert.equal(printed, expected);
      assert.equal(hasErrors(result.diagnostics), true);
      assert.equal(result.config, undefined);
    });
  }
});
