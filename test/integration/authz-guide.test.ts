/**
 * The guide "give an identity access to a service" (docs/guides/apis.md), call by call: after the seven steps the identity sees
 * the service, may dial it, and the advice names the policy and the common router; before the last policy the advice
 * says which piece is missing. Then (step 8) the identity lists the service on the client API and opens a session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
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
    // The guide starts from an identity that can log in (enrolled as "Identities, enrollment and legacy sessions" shows).
    const identityId = (await createIdentity(ctl.running.database, { name: 'sam', username: 'sam-user', password: 'sam-password' })).id;
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

    // Step 8: the identity, logged in on the client API, lists the service and opens a session to dial it.
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'sam-user', password: 'sam-password' } });
    assert.equal(login.status, 200, login.text);
    const headers = { 'svc-session': login.json().data.token as string };
    const listed = await ctl.fetch('/edge/client/v1/services?configTypes=all', { headers });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.json().data.map((s: { name: string; permissions: string[] }) => [s.name, s.permissions]), [['crm', ['Dial']]]);
    const session = await ctl.fetch('/edge/client/v1/sessions', { method: 'POST', headers, body: { serviceId, type: 'Dial' } });
    assert.equal(session.status, 201, session.text);
    assert.deepEqual(session.json().data.edgeRouters.map((r: { name: string }) => r.name), ['er-1']);
    const updates = await ctl.fetch('/edge/client/v1/current-api-session/service-updates', { headers });
    assert.equal(updates.status, 200, updates.text);
    assert.ok(Date.parse(updates.json().data.lastChangeAt) > 0);
  });
});
