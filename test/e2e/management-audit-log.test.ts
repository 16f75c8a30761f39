/**
 * The audit trail end to end: every management mutation of identities, authenticators and auth policies is
 * listed with the identity that made it, newest first, filterable, and without secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../src/shared/clock.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

interface Entry {
  sequence: number;
  actorId: string | null;
  actorName: string;
  action: string;
  entityType: string;
  entityId: string;
  details: Record<string, any>;
  changes?: { field: string; before: unknown; after: unknown }[];
  createdAt: string;
}

describe(`audit log (${testDialect})`, () => {
  // Each mutation happens at its own instant, so "newest first" has one right answer.
  const clock = manualClock(new Date());
  let ctl: TestController;
  let admin: ManagementClient;
  let second: ManagementClient;
  let secondId: string;
  before(async () => {
    ctl = await startTestController({ clock });
    admin = managementClient(ctl, await ctl.adminToken());
    const other = await createIdentity(ctl.running.database, { name: 'second-admin', isAdmin: true, password: 'second-password' });
    secondId = other.id;
    const login = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'second-admin', password: 'second-password' } });
    second = managementClient(ctl, login.json().data.token);
  });
  after(async () => ctl.close());

  const entries = async (filter = '') => (await admin.get(`/audit-log?limit=500${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`)).json().data as Entry[];
  const step = () => clock.advance(1000);

  it('lists who made each mutation, newest first', async () => {
    step();
    const identity = (await admin.post('/identities', { name: 'audited', type: 'User', isAdmin: false })).json().data.id;
    step();
    await second.patch(`/identities/${identity}`, { tags: { reviewed: true } });
    step();
    await admin.post(`/identities/${identity}/disable`, { durationMinutes: 5 });
    step();
    await second.post(`/identities/${identity}/enable`);
    step();
    const policy = (await second.post('/auth-policies', authPolicyBody('audited-policy'))).json().data.id;
    step();
    await admin.put(`/auth-policies/${policy}`, authPolicyBody('audited-policy-2'));
    step();
    await second.del(`/auth-policies/${policy}`);
    step();
    await admin.del(`/identities/${identity}`);

    const trail = (await entries()).map((e) => [e.actorName, e.action, e.entityType, e.entityId]);
    assert.deepEqual(trail.slice(0, 8), [
      ['admin', 'delete', 'identity', identity],
      ['second-admin', 'delete', 'auth-policy', policy],
      ['admin', 'update', 'auth-policy', policy],
      ['second-admin', 'create', 'auth-policy', policy],
      ['second-admin', 'enable', 'identity', identity],
      ['admin', 'disable', 'identity', identity],
      ['second-admin', 'patch', 'identity', identity],
      ['admin', 'create', 'identity', identity],
    ]);
  });

  it('lists mutations of the same instant newest first too, in the order they were made', async () => {
    step();
    const ids: string[] = [];
    for (const name of ['same-instant-1', 'same-instant-2', 'same-instant-3']) ids.push((await admin.post('/identities', { name, type: 'User', isAdmin: false })).json().data.id);
    const newest = (await entries()).slice(0, 3);
    assert.deepEqual(newest.map((e) => e.entityId), [...ids].reverse());
    assert.equal(new Set(newest.map((e) => e.createdAt)).size, 1, 'one instant');
    const [third, second, first] = newest.map((e) => e.sequence);
    assert.ok(first! < second! && second! < third!, `sequence ${first}, ${second}, ${third}`);
    const ascending = (await entries(`entityId in ["${ids.join('", "')}"] sort by sequence asc`)).map((e) => e.entityId);
    assert.deepEqual(ascending, ids);
  });

  it('records the actor id and what changed', async () => {
    const [patch] = await entries('action = "patch" and entityType = "identity"');
    assert.equal(patch?.actorId, secondId);
    assert.deepEqual(patch?.details, { changes: { tags: { reviewed: true } } });
    // Field by field, before and after (issue 45: the console's audit trail shows them as a table).
    assert.deepEqual(patch?.changes, [{ field: 'tags', before: {}, after: { reviewed: true } }]);
    const [disable] = await entries('action = "disable"');
    assert.equal(typeof disable?.details.disabledUntil, 'string');
  });

  it('records what an update changed field by field, never a secret, and what a delete removed', async () => {
    const policy = await admin.post('/auth-policies', { ...authPolicyBody('diffed-policy') });
    assert.equal(policy.status, 201, policy.text);
    const id = policy.json().data.id;
    step();
    assert.equal((await admin.patch(`/auth-policies/${id}`, { name: 'diffed-policy-2' })).status, 200);
    const [update] = await entries(`entityId = "${id}" and action = "patch"`);
    assert.deepEqual(update?.changes, [{ field: 'name', before: 'diffed-policy', after: 'diffed-policy-2' }]);
    assert.equal('fieldChanges' in (update?.details ?? {}), false, 'shown as changes, not inside details');
    step();
    assert.equal((await admin.del(`/auth-policies/${id}`)).status, 200);
    const [deleted] = await entries(`entityId = "${id}" and action = "delete"`);
    assert.equal(deleted?.details.name, 'diffed-policy-2');
    assert.equal(deleted?.details.primary.updb.maxAttempts, 5, 'the deleted fields are kept');
    // Password changes of an identity are never in the trail: identities' audit details hold no secret.
    const identity = (await admin.post('/identities', { name: 'diffed-identity', type: 'User', isAdmin: false })).json().data.id;
    step();
    await admin.patch(`/identities/${identity}`, { name: 'diffed-identity-2' });
    const [renamed] = await entries(`entityId = "${identity}" and action = "patch"`);
    assert.deepEqual(renamed?.changes, [{ field: 'name', before: 'diffed-identity', after: 'diffed-identity-2' }]);
    assert.doesNotMatch(JSON.stringify(await entries()), /"password"|passwordHash|"secret"|privateKey/i);
  });

  it('records authenticator deletions with the identity they belonged to', async () => {
    const holder = await createIdentity(ctl.running.database, { name: 'key-holder', password: 'holder-password' });
    const [authenticator] = (await admin.get(`/identities/${holder.id}/authenticators`)).json().data;
    step();
    await admin.del(`/authenticators/${authenticator.id}`);
    const [entry] = await entries(`entityType = "authenticator" and entityId = "${authenticator.id}"`);
    assert.deepEqual([entry?.actorName, entry?.action, entry?.details.identityId, entry?.details.method], ['admin', 'delete', holder.id, 'updb']);
  });

  it('filters by actor and pages the trail', async () => {
    const mine = await entries('actorName = "second-admin"');
    assert.ok(mine.length >= 4 && mine.every((e) => e.actorName === 'second-admin'));
    const page = (await admin.get('/audit-log?limit=2&offset=1')).json();
    assert.equal(page.data.length, 2);
    assert.ok(page.meta.pagination.totalCount >= 9);
    assert.ok(page.meta.filterableFields.includes('entityType'));
  });

  it('filters by the actorId, entityType, entityId, from and to parameters, and names a bad time parameter', async () => {
    const service = (await admin.post('/services', { name: 'audit-param-svc' })).json().data;
    await admin.patch(`/services/${service.id}`, { name: 'audit-param-svc-2' });
    const q = (params: string) => admin.get(`/audit-log?limit=500&${params}`);
    const mine = (await q(`entityType=service&entityId=${service.id}`)).json().data as (Entry & { time: string })[];
    assert.deepEqual(mine.map((e) => e.action).sort(), ['create', 'patch']);
    const since = mine.map((e) => e.time).sort()[0] ?? '';
    assert.equal((await q(`entityId=${service.id}&from=${encodeURIComponent(since)}`)).json().data.length, 2);
    assert.ok(mine.every((e) => e.entityId === service.id && e.actorId === mine[0]?.actorId));
    assert.equal((await q(`actorId=${mine[0]?.actorId}&entityId=${service.id}`)).json().data.length, 2);
    assert.equal((await q(`entityId=${service.id}&to=${encodeURIComponent(since)}`)).json().data.length, 0);
    const bad = await q(`entityId=${service.id}&from=yesterday`);
    assert.equal(bad.status, 400);
    assert.match(bad.json().error.message, /^from: /);
  });

  it('keeps failed mutations out of the trail', async () => {
    const before = (await entries()).length;
    await admin.post('/identities', { name: 'x', type: 'Robot', isAdmin: false });
    await admin.del('/auth-policies/default');
    assert.equal((await entries()).length, before);
  });

  it('is readable only by administrators', async () => {
    const res = await managementClient(ctl, await nonAdminToken(ctl, 'curious')).get('/audit-log');
    assert.deepEqual([res.status, res.json().error.code], [403, 'FORBIDDEN']);
  });
});
