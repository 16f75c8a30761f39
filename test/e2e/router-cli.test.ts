/**
 * `svc router validate|explain|schema` as a user runs them: real processes, the fixture corpus as input.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { runCliInProcess as runCli } from '../helpers/cli-in-process.js';

const ROOT = fileURLToPath(new URL('../fixtures/router/', import.meta.url));
const at = (name: string) => join(ROOT, name);
const ENV = { ROUTER_HOST: 'router.example.com' };

describe('svc router validate', () => {
  it('exits 0 for valid files and prints their warnings in FILE:LINE:COLUMN: severity: path: message form', async () => {
    const { code, stdout, stderr } = await runCli(['router', 'validate', at('valid/full.yml'), at('valid/minimal.yml')], ENV);

    assert.equal(code, 0);
    assert.match(stdout, /full\.yml: valid\n/);
    assert.match(stdout, /minimal\.yml: valid \(5 warnings\)/);
    assert.match(stderr, /minimal\.yml:3:1: warning: csr: no csr section: the router cannot enroll or renew enrollments/);
  });

  it('exits 1 when any file has an error, after checking every file', async () => {
    const { code, stdout, stderr } = await runCli(['router', 'validate', at('invalid/ctrl.yml'), at('valid/full.yml')], ENV);

    assert.equal(code, 1);
    assert.match(stderr, /ctrl\.yml:9:13: error: ctrl\.endpoint: 'tsl:ctrl\.example\.com:6262': unknown protocol 'tsl' \(did you mean 'tls'\?\)/);
    assert.match(stdout, /full\.yml: valid/);
  });

  it('exits 2 when a file cannot be read, still checking the others', async () => {
    const { code, stderr } = await runCli(['router', 'validate', at('missing.yml'), at('invalid/ctrl.yml')], ENV);

    assert.equal(code, 2);
    assert.match(stderr, /missing\.yml:1:1: error: cannot read the file: ENOENT/);
    assert.match(stderr, /ctrl\.yml:1:4: error: v: must be 3/);
  });

  it('prints machine-readable diagnostics with --format json', async () => {
    const { code, stdout } = await runCli(['router', 'validate', '--format', 'json', at('invalid/env.yml')], ENV);
    const report = JSON.parse(stdout) as { files: unknown[]; diagnostics: Record<string, unknown>[] };

    assert.equal(code, 1);
    assert.deepEqual(report.files, [{ file: at('invalid/env.yml'), valid: false, errors: 3, warnings: 0 }]);
    assert.deepEqual(report.diagnostics[0], {
      severity: 'error',
      file: at('invalid/env.yml'),
      line: 3,
      column: 9,
      path: 'identity.cert',
      message: "environment variable 'CERT_DIR' is not set",
    });
  });

  it('turns warnings into errors with --strict', async () => {
    const { code, stderr } = await runCli(['router', 'validate', '--strict', at('valid/edge-csr.yml')], ENV);

    assert.equal(code, 1);
    assert.match(stderr, /edge-csr\.yml:12:3: error: edge\.csr: deprecated: move this block to the root 'csr' section \(--strict\)/);
  });

  it('exits 2 on a wrong command line', async () => {
    assert.equal((await runCli(['router', 'validate'])).code, 2);
    assert.equal((await runCli(['router', 'validate', '--format', 'xml', at('valid/full.yml')])).code, 2);
  });
});

describe('svc router explain', () => {
  it('prints the effective configuration with every default filled in', async () => {
    const { code, stdout } = await runCli(['router', 'explain', at('valid/minimal.yml')], ENV);
    const effective = parse(stdout) as Record<string, Record<string, unknown>>;

    assert.equal(code, 0);
    assert.equal(effective.ctrl?.defaultRequestTimeout, '5s');
    assert.equal(effective.forwarder?.rateLimitedWorkerCount, 5);
    assert.deepEqual(effective.healthChecks?.linkCheck, { interval: '5s', initialDelay: '1s', minLinks: 0 });
    assert.deepEqual(effective.metrics, { reportInterval: '1m', messageQueueSize: 10, intervalAgeThreshold: '80s' });
  });

  it('exits 1 and prints the diagnostics for a file with errors', async () => {
    const { code, stdout, stderr } = await runCli(['router', 'explain', at('invalid/link.yml')], ENV);

    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /error: link\.dialers\[0\]\.healthyDialBackoff\.minRetryInterval: 9ms must be at least 10ms/);
  });
});

describe('svc router schema', () => {
  it('prints a JSON Schema that accepts every valid example file and rejects a bound violation', async () => {
    const { code, stdout } = await runCli(['router', 'schema']);
    const schema = JSON.parse(stdout) as Record<string, unknown>;
    const validate = new Ajv({ strict: false }).compile(schema);

    assert.equal(code, 0);
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    for (const name of ['valid/full.yml', 'valid/minimal.yml', 'valid/bounds.yml', 'valid/edge-csr.yml']) {
      const value = parse(readFileSync(at(name), 'utf8').replaceAll('${ROUTER_HOST}', 'router.example.com'));
      assert.equal(validate(value), true, `${name}: ${JSON.stringify(validate.errors)}`);
    }
    assert.equal(validate(parse(readFileSync(at('invalid/forwarder.yml'), 'utf8'))), false);
  });
});
