/**
 * The README's guide "give an identity access to a service", call by call: after the seven steps the identity sees
 * the service, may dial it, and the advice names the policy and the common router; before the last policy the advice
 * says which piece is missing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';

describe(`the access guide of the README (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const created = (path: string, body: Record<string, unknown>) => createdId(admin, path, body);

  it('gives an identity access to a service in the documented steps, and says what is missing before the last', async () => {
    const identityId = await created('/identities', { name: 'sam', type: 'User', isAdmin: false });
    assert.equal((await admin.patch(`/identities/${identityId}`, { roleAttributes: ['sales'] })).status, 200);
    const serviceId = await created('/services', { name: 'crm', roleAttributes: ['crm'] });
    await created('/service-policies', { name: 'sales-dial-crm', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    const routerId = await created('/edge-routers', { name: 'er-1', roleAttributes: ['public'] });
    assert.match((await admin.get(`/edge-routers/${routerId}`)).json().data.enrollmentJwt, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    await created('/edge-router-policies', { name: 'sales-er', semantic: 'AnyOf', identityRoles: ['#sales'], edgeRouterRoles: ['#public'] });

    let advice = (await admin.get(`/identities/${identityId}/policy-advice/${serviceId}`)).json().data;
    assert.equal(advice.isDialAllowed, true);
    assert.equal(advice.commonRouters.length, 0);
    assert.match(advice.reasons.join(' '), /crm/, 'the missing router side names the service');

    await created('/service-edge-router-policies', { name: 'crm-er', semantic: 'AnyOf', serviceRoles: ['#crm'], edgeRouterRoles: ['#public'] });
    const services = (await admin.get(`/identities/${identityId}/services`)).json();
    assert.deepEqual(
      services.data.map((s: { name: string }) => s.name),
      ['crm'],
    );
    advice = (await admin.get(`/identities/${identityId}/policy-advice/${serviceId}`)).json().data;
    assert.deepEqual([advice.isDialAllowed, advice.isBindAllowed], [true, false]);
    assert.deepEqual(
      advice.commonRouters.map((r: { name: string; isOnline: boolean }) => [r.name, r.isOnline]),
      [['er-1', false]],
    );
    assert.match(advice.reasons.join(' '), /sales-dial-crm/);
  });
});
