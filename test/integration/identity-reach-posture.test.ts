/**
 * The reach page's posture layer judges the identity's current posture data (issue 45): with the responses its
 * client submitted on its API session, each failing check of the granting policy is named with why (no response,
 * a process not running, MFA not answered) and linked; once the responses satisfy the checks the layer is ok.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { createIdentity } from '../helpers/fixtures.js';

const CLIENT = '/edge/client/v1';

interface Layer {
  layer: string;
  ok: boolean;
  message: string;
  fix: { entity: string; id?: string; name?: string }[];
}

describe(`identity reach, the posture layer on current posture data (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let identityId: string;
  let serviceId: string;
  let mfaServiceId: string;
  const checks: Record<string, string> = {};

  const postureLayer = async (service: string) => {
    const res = await admin.get(`/identities/${identityId}/reach/${service}`);
    assert.equal(res.status, 200, res.text);
    return (res.json().data.layers as Layer[]).find((entry) => entry.layer === 'posture')!;
  };
  const login = async () => {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'posture-reach', password: 'posture-reach-password' } });
    assert.equal(res.status, 200, res.text);
    return { 'svc-session': res.json().data.token as string };
  };
  const respond = async (headers: Record<string, string>, body: object) => {
    const res = await ctl.fetch(`${CLIENT}/posture-response`, { method: 'POST', headers, body });
    assert.equal(res.status, 201, res.text);
  };

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    identityId = (await createIdentity(ctl.running.database, { name: 'posture-reach', username: 'posture-reach', password: 'posture-reach-password' })).id;
    serviceId = await createdId(admin, '/services', { name: 'posture-wiki', roleAttributes: ['wiki'] });
    mfaServiceId = await createdId(admin, '/services', { name: 'posture-vault', roleAttributes: ['vault'] });
    checks.os = await createdId(admin, '/posture-checks', { name: 'linux-only', typeId: 'OS', roleAttributes: ['wiki-posture'], operatingSystems: [{ type: 'Linux', versions: [] }] });
    checks.agent = await createdId(admin, '/posture-checks', {
      name: 'agent-running',
      typeId: 'PROCESS',
      roleAttributes: ['wiki-posture'],
      process: { osType: 'Linux', path: '/usr/bin/agent', hashes: [] },
    });
    checks.mfa = await createdId(admin, '/posture-checks', { name: 'mfa-10m', typeId: 'MFA', roleAttributes: ['vault-posture'], timeoutSeconds: 600 });
    const policy = { type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${identityId}`] };
    await createdId(admin, '/service-policies', { ...policy, name: 'wiki-with-posture', serviceRoles: ['#wiki'], postureCheckRoles: ['#wiki-posture'] });
    await createdId(admin, '/service-policies', { ...policy, name: 'vault-with-mfa', serviceRoles: ['#vault'], postureCheckRoles: ['#vault-posture'] });
  });
  after(async () => ctl?.close());

  it('says the identity is not logged in when no API session of it reports anything', async () => {
    const layer = await postureLayer(serviceId);
    assert.equal(layer.ok, false);
    assert.match(layer.message, /'linux-only' \(OS\): no API session of the identity reports anything/);
    assert.deepEqual(layer.fix.map((fix) => fix.name).sort(), ['agent-running', 'linux-only']);
  });

  it('names each failing check and why from the responses its client submitted, linked to the check, then passes', async () => {
    const headers = await login();
    let layer = await postureLayer(serviceId);
    assert.equal(layer.ok, false);
    assert.match(layer.message, /'linux-only' \(OS\): no response for the OS check/);
    assert.match(layer.message, /'agent-running' \(PROCESS\): no response for the process \/usr\/bin\/agent/);

    await respond(headers, { id: checks.os, typeId: 'OS', type: 'Linux', version: '6.1.0' });
    await respond(headers, { id: checks.agent, typeId: 'PROCESS', isRunning: false });
    layer = await postureLayer(serviceId);
    assert.equal(layer.ok, false);
    assert.doesNotMatch(layer.message, /linux-only/, 'the OS check passes now');
    assert.match(layer.message, /'agent-running' \(PROCESS\): process \/usr\/bin\/agent not running/);
    assert.deepEqual(layer.fix, [{ entity: 'posture-checks', id: checks.agent, name: 'agent-running' }]);

    await respond(headers, { id: checks.agent, typeId: 'PROCESS', isRunning: true });
    layer = await postureLayer(serviceId);
    assert.equal(layer.ok, true, layer.message);
    assert.match(layer.message, /passes the checks of policy 'wiki-with-posture'/);
  });

  it('says MFA was not answered on the session for an MFA check', async () => {
    await login();
    const layer = await postureLayer(mfaServiceId);
    assert.equal(layer.ok, false);
    assert.match(layer.message, /'mfa-10m' \(MFA\): MFA not passed on the session/);
    assert.deepEqual(layer.fix, [{ entity: 'posture-checks', id: checks.mfa, name: 'mfa-10m' }]);
  });
});
