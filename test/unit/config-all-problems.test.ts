/**
 * `svc controller check` reports every problem of the edge section in one run: a wrong value in one part (or in one
 * key of a part) never hides the problems of the others, whether it is a shape problem or a rule problem.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EDGE, controllerYaml, loadText } from '../helpers/config-fixture.js';

/** The paths and messages of a load's diagnostics, without positions. */
async function problems(edge: string): Promise<string[]> {
  const result = await loadText(controllerYaml({ edge }));
  assert.equal(result.config, undefined);
  return result.diagnostics.map((d) => `${d.path}: ${d.message}`);
}

const LATE_PARTS = '  totp:\n    lockoutDuration: 1s\n  externalJwt:\n    jwksTimeout: 1ms\n    jwksRefreshInterval: 2ms\n';
const LATE_PROBLEMS = [
  'edge.totp.lockoutDuration: 1s must be at least 30s',
  'edge.externalJwt.jwksTimeout: 1ms must be at least 100ms',
  'edge.externalJwt.jwksRefreshInterval: 2ms must be at least 1s',
];

describe('every edge problem in one run', () => {
  it('reports the TOTP lockout and external JWT limits when nothing else is wrong', async () => {
    assert.deepEqual(await problems(EDGE + LATE_PARTS), LATE_PROBLEMS);
  });

  it('reports them beside a rule problem of edge.api', async () => {
    const edge = EDGE.replace('api:\n', 'api:\n    sessionTimeout: 10s\n') + LATE_PARTS;
    assert.deepEqual(await problems(edge), ['edge.api.sessionTimeout: 10s must be at least 1m', ...LATE_PROBLEMS]);
  });

  it('reports them beside a shape problem of edge.api', async () => {
    const edge = EDGE.replace('api:\n', 'api:\n    sessionTimeout: 12\n') + LATE_PARTS;
    assert.deepEqual(await problems(edge), ['edge.api.sessionTimeout: expected a string, got a number (12)', ...LATE_PROBLEMS]);
  });

  it('reports them beside a missing edge.enrollment and a bad address', async () => {
    const edge = 'edge:\n  api:\n    address: ctrl.example.com:99999\n' + LATE_PARTS;
    const found = await problems(edge);
    assert.ok(found.includes('edge.enrollment: missing required key'), found.join('\n'));
    assert.ok(found.some((p) => p.startsWith('edge.api.address:')), found.join('\n'));
    for (const late of LATE_PROBLEMS) assert.ok(found.includes(late), `${late}\n${found.join('\n')}`);
  });

  it('reports a rule problem of one key beside a shape problem of another key of the same part', async () => {
    const edge = EDGE + '  externalJwt:\n    jwksTimeout: 1ms\n    jwksMaxBytes: many\n  totp:\n    maxAttempts: lots\n    lockoutDuration: 2s\n';
    const found = await problems(edge);
    assert.ok(found.includes('edge.externalJwt.jwksTimeout: 1ms must be at least 100ms'), found.join('\n'));
    assert.ok(found.some((p) => p.startsWith('edge.externalJwt.jwksMaxBytes:')), found.join('\n'));
    assert.ok(found.includes('edge.totp.lockoutDuration: 2s must be at least 30s'), found.join('\n'));
    assert.ok(found.some((p) => p.startsWith('edge.totp.maxAttempts:')), found.join('\n'));
  });

  it('reports the enrollment durations beside a bad signing certificate path type', async () => {
    const edge = EDGE.replace('      key: pki/signing.key.pem\n', '      key: 7\n') + '    edgeIdentity:\n      duration: 1m\n';
    const found = await problems(edge);
    assert.ok(found.some((p) => p.startsWith('edge.enrollment.signingCert.key:')), found.join('\n'));
    assert.ok(found.includes('edge.enrollment.edgeIdentity.duration: 1m must be at least 5m'), found.join('\n'));
  });
});
