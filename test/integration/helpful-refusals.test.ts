/**
 * Refusals that teach: identity types named and kept as given, `/identity-types` served as the reference serves it, an
 * unknown enum value answered with the accepted values, and a 415 that lists the content types accepted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { MANAGEMENT, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

describe(`helpful refusals and identity types (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const identityCount = async () => (await admin.get('/identities?limit=1')).json().meta.pagination.totalCount as number;

  it('lists the five identity types with paging meta and the fields a filter may name', async () => {
    const res = await admin.get('/identity-types');
    assert.equal(res.status, 200);
    const { data, meta } = res.json();
    assert.deepEqual(
      data.map((t: { id: string }) => t.id),
      ['Default', 'Device', 'Router', 'Service', 'User'],
    );
    assert.deepEqual(meta.pagination, { limit: 10, offset: 0, totalCount: 5 });
    assert.deepEqual(meta.filterableFields, ['id', 'name']);
    const router = data.find((t: { id: string }) => t.id === 'Router');
    assert.equal(router.name, 'Router');
    assert.deepEqual(router._links, { self: { href: './identity-types/Router' } });
  });

  it('filters, sorts and pages identity types like any list', async () => {
    const filtered = await admin.get(`/identity-types?filter=${encodeURIComponent('name in ["User", "Router", "Nope"] sort by name desc')}`);
    assert.deepEqual(
      filtered.json().data.map((t: { id: string }) => t.id),
      ['User', 'Router'],
    );
    assert.equal(filtered.json().meta.pagination.totalCount, 2);
    const page = await admin.get('/identity-types?limit=2&offset=1');
    assert.deepEqual(
      page.json().data.map((t: { id: string }) => t.id),
      ['Device', 'Router'],
    );
    const negated = await admin.get(`/identity-types?filter=${encodeURIComponent('not (name contains "v") or id = "Device"')}`);
    assert.deepEqual(
      negated.json().data.map((t: { id: string }) => t.id),
      ['Default', 'Device', 'Router', 'User'],
    );
  });

  it('refuses a filter on an unknown field or a bad page, naming the problem', async () => {
    const field = await admin.get(`/identity-types?filter=${encodeURIComponent('colour = "red"')}`);
    assert.equal(field.status, 400);
    assert.equal(field.json().error.code, 'INVALID_FILTER');
    assert.match(field.text, /colour/);
    const limit = await admin.get('/identity-types?limit=many');
    assert.equal(limit.status, 400);
    assert.equal(limit.json().error.code, 'INVALID_PAGINATION');
  });

  it('reads one identity type, and answers 404 naming the types for an unknown one', async () => {
    const device = await admin.get('/identity-types/Device');
    assert.equal(device.status, 200);
    assert.equal(device.json().data.name, 'Device');
    const missing = await admin.get('/identity-types/Robot');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().error.code, 'NOT_FOUND');
    assert.match(missing.json().error.message, /User, Device, Service, Router, Default/);
  });

  it('serves identity types to administrators only', async () => {
    assert.equal((await managementClient(ctl, undefined).get('/identity-types')).status, 401);
    const plain = managementClient(ctl, await nonAdminToken(ctl, 'types-reader'));
    assert.equal((await plain.get('/identity-types')).status, 403);
    assert.equal((await plain.get('/identity-types/User')).status, 403);
  });

  it('refuses an unknown identity type with the accepted values and creates nothing', async () => {
    const before = await identityCount();
    const res = await admin.post('/identities', { name: 'robot-01', type: 'Robot', isAdmin: false });
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, 'COULD_NOT_VALIDATE');
    assert.equal(error.cause.field, 'type');
    assert.match(error.message, /body\.type must be one of User, Device, Service, Router, Default/);
    assert.equal(await identityCount(), before);
  });

  it('keeps a type changed by PATCH and refuses an unknown one there too, changing nothing', async () => {
    const created = await admin.post('/identities', { name: 'retyped', type: 'User', isAdmin: false });
    const id = created.json().data.id as string;
    assert.equal((await admin.patch(`/identities/${id}`, { type: 'Service' })).status, 200);
    assert.equal((await admin.get(`/identities/${id}`)).json().data.typeId, 'Service');
    const bad = await admin.patch(`/identities/${id}`, { type: 'service' });
    assert.equal(bad.status, 400);
    assert.match(bad.json().error.message, /must be one of/);
    assert.equal((await admin.get(`/identities/${id}`)).json().data.typeId, 'Service');
  });

  it('answers 415 with the content types accepted, naming the one sent, and creates nothing', async () => {
    const before = await identityCount();
    const res = await ctl.fetch(`${MANAGEMENT}/identities`, {
      method: 'POST',
      headers: { 'svc-session': await ctl.adminToken(), 'content-type': 'application/xml' },
      body: '<identity name="x"/>',
    });
    assert.equal(res.status, 415);
    const { error } = res.json();
    assert.equal(error.code, 'INVALID_CONTENT_TYPE');
    assert.match(error.message, /"application\/xml" is not accepted here; use one of: application\/json/);
    assert.equal(error.cause.field, 'content-type');
    assert.equal(error.cause.value, 'application/xml');
    assert.match(error.cause.reason, /application\/json/);
    assert.equal(await identityCount(), before);
  });
});
