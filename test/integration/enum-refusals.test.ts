/**
 * Every enumeration in the Management API, refused with the values it accepts (README: "a value outside an
 * enumeration names the accepted values"), the field it was in, and nothing created; the same body with an
 * accepted value is created (the positive control).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

describe(`enumeration refusals name the accepted values (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => {
    await ctl.close();
  });

  const cases: { path: string; body: Record<string, unknown>; field: string; values: RegExp }[] = [
    { path: '/service-policies', body: { name: 'sp', type: 'Dail', semantic: 'AnyOf' }, field: 'type', values: /must be one of Dial, Bind/ },
    { path: '/service-policies', body: { name: 'sp', type: 'Dial', semantic: 'anyof' }, field: 'semantic', values: /must be one of AllOf, AnyOf/ },
    { path: '/edge-router-policies', body: { name: 'erp', semantic: 'Any' }, field: 'semantic', values: /must be one of AllOf, AnyOf/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.field} ${JSON.stringify(c.body[c.field])} on POST ${c.path} naming the accepted values, and creates nothing`, async () => {
      const res = await admin.post(c.path, c.body);
      assert.equal(res.status, 400);
      const { error } = res.json();
      assert.equal(error.code, 'COULD_NOT_VALIDATE');
      assert.equal(error.cause.field, c.field);
      assert.match(error.message, c.values);
      assert.equal((await admin.get(c.path)).json().meta.pagination.totalCount, 0);
    });
  }

  it('creates the policy when the values are accepted ones', async () => {
    assert.equal((await admin.post('/service-policies', { name: 'sp', type: 'Dial', semantic: 'AnyOf' })).status, 201);
  });
});
