/**
 * "Why can't X reach S" (`GET /identities/{id}/reach/{serviceId}`, issue 45): every layer judged on its own, in the
 * order a connection meets them, each blocking layer naming what to fix; the same pair turning ok layer by layer as
 * the policies are made; bind needs no terminator; unknown ids and bad parameters are refused with what was wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

interface Layer {
  layer: string;
  ok: boolean;
  message: string;
  fix: { entity: string; id?: string; name?: string }[];
}

const ORDER = ['identity', 'enrollment', 'certificate', 'service-policy', 'posture', 'edge-router-policy', 'service-edge-router-policy', 'online-router', 'terminator'];

describe(`identity reach, layer by layer (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let identityId: string;
  let serviceId: string;

  const reach = async (permission?: string) => {
    const res = await admin.get(`/identities/${identityId}/reach/${serviceId}${permission ? `?permission=${permission}` : ''}`);
    assert.equal(res.status, 200, res.text);
    const data = res.json().data as { reachable: boolean; permission: string; layers: Layer[] };
    return { ...data, byName: new Map(data.layers.map((entry) => [entry.layer, entry])) };
  };

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    identityId = await createdId(admin, '/identities', { name: 'reach-laptop', type: 'Device', isAdmin: false, roleAttributes: ['staff'], enrollment: { ott: true } });
    serviceId = await createdId(admin, '/services', { name: 'reach-wiki', roleAttributes: ['docs'], encryptionRequired: true });
  });
  after(async () => ctl?.close());

  it('judges every layer of a pair no policy joins, in order, and names what to fix for each that blocks', async () => {
    const answer = await reach();
    assert.equal(answer.permission, 'dial');
    assert.equal(answer.reachable, false);
    assert.deepEqual(answer.layers.map((entry) => entry.layer), ORDER);
    assert.equal(answer.byName.get('identity')?.ok, true);
    const enrollment = answer.byName.get('enrollment')!;
    assert.equal(enrollment.ok, false);
    assert.match(enrollment.message, /has not enrolled yet: its ott enrollment is pending/);
    assert.deepEqual(enrollment.fix, [{ entity: 'identities', id: identityId, name: 'reach-laptop' }]);
    const policy = answer.byName.get('service-policy')!;
    assert.equal(policy.ok, false);
    assert.match(policy.message, /No Dial service policy selects identity 'reach-laptop'/);
    assert.ok(policy.fix.some((fix) => fix.entity === 'service-policies'));
    assert.equal(answer.byName.get('edge-router-policy')?.ok, false);
    assert.equal(answer.byName.get('service-edge-router-policy')?.ok, false);
    assert.equal(answer.byName.get('online-router')?.ok, false);
    const terminator = answer.byName.get('terminator')!;
    assert.equal(terminator.ok, false);
    assert.match(terminator.message, /service 'reach-wiki' has no terminator/);
  });

  it('turns the policy layers ok as the policies are made, and still names the offline router', async () => {
    const policyId = await createdId(admin, '/service-policies', { name: 'staff-dial-docs', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#docs'] });
    const routerId = await createdId(admin, '/edge-routers', { name: 'reach-router', roleAttributes: ['edge'] });
    await createdId(admin, '/edge-router-policies', { name: 'staff-edge', semantic: 'AnyOf', identityRoles: ['#staff'], edgeRouterRoles: ['#edge'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'docs-edge', semantic: 'AnyOf', serviceRoles: ['#docs'], edgeRouterRoles: ['#edge'] });
    const answer = await reach('dial');
    const policy = answer.byName.get('service-policy')!;
    assert.equal(policy.ok, true);
    assert.match(policy.message, /Dial is granted by 'staff-dial-docs'/);
    assert.deepEqual(policy.fix, [{ entity: 'service-policies', id: policyId, name: 'staff-dial-docs' }]);
    assert.equal(answer.byName.get('posture')?.ok, true);
    assert.equal(answer.byName.get('edge-router-policy')?.ok, true);
    assert.equal(answer.byName.get('service-edge-router-policy')?.ok, true);
    const online = answer.byName.get('online-router')!;
    assert.equal(online.ok, false);
    assert.match(online.message, /1 edge router\(s\) serve both, but none is online/);
    assert.deepEqual(online.fix, [{ entity: 'edge-routers', id: routerId, name: 'reach-router' }]);
    assert.equal(answer.reachable, false);
  });

  it('needs no terminator to bind, and says which policy is missing for bind', async () => {
    const answer = await reach('bind');
    assert.equal(answer.permission, 'bind');
    assert.equal(answer.byName.get('terminator')?.ok, true);
    assert.equal(answer.byName.get('service-policy')?.ok, false);
    assert.match(answer.byName.get('service-policy')!.message, /Bind/);
  });

  it('names a disabled identity as the first layer that blocks', async () => {
    const disabled = await admin.post(`/identities/${identityId}/disable`, { durationMinutes: 5 });
    assert.equal(disabled.status, 200, disabled.text);
    const answer = await reach();
    assert.equal(answer.byName.get('identity')?.ok, false);
    assert.match(answer.byName.get('identity')!.message, /is disabled until/);
    assert.equal((await admin.post(`/identities/${identityId}/enable`)).status, 200);
    assert.equal((await reach()).byName.get('identity')?.ok, true);
  });

  it('refuses unknown ids, a bad permission, no session and a non-administrator', async () => {
    const unknownIdentity = await admin.get(`/identities/nope/reach/${serviceId}`);
    assert.equal(unknownIdentity.status, 404, unknownIdentity.text);
    const unknownService = await admin.get(`/identities/${identityId}/reach/nope`);
    assert.equal(unknownService.status, 404, unknownService.text);
    const bad = await admin.get(`/identities/${identityId}/reach/${serviceId}?permission=host`);
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /permission/);
    assert.equal((await managementClient(ctl, undefined).get(`/identities/${identityId}/reach/${serviceId}`)).status, 401);
    const plain = managementClient(ctl, await nonAdminToken(ctl, 'reach-plain'));
    assert.equal((await plain.get(`/identities/${identityId}/reach/${serviceId}`)).status, 403);
  });
});
