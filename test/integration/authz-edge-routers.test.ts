/**
 * Edge router management end to end (issue 14): create with a one-time enrollment whose JWT verifies against the
 * enrollment key set, read, list with filter/sort/paging, replace, patch, re-enroll, delete; role attributes in the
 * policy engine's index; audit entries; every bad input refused naming its field with nothing changed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { SYSTEM_ACTOR } from '../../src/domain/audit.js';
import { buildAuthorizationDomain } from '../../src/services/authorization/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient, nonAdminToken } from '../helpers/management.js';

describe(`edge router management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database.db;
  const create = (body: Record<string, unknown>) => createdId(admin, '/edge-routers', body);
  const read = async (id: string) => (await admin.get(`/edge-routers/${id}`)).json().data;
  const names = async (filter: string) =>
    (await admin.get(`/edge-routers?filter=${encodeURIComponent(filter)}`)).json().data.map((r: { name: string }) => r.name);
  const indexed = async (id: string) =>
    (await db().selectFrom('entity_attributes').select('attribute').where('entity_type', '=', 'edge-router').where('entity_id', '=', id).orderBy('attribute').execute()).map(
      (row) => row.attribute,
    );
  const routerCount = async () => Number((await db().selectFrom('edge_routers').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const verify = async (jwt: string) => {
    const jwks = (await ctl.fetch('/edge/client/v1/enroll/jwks')).json();
    return (await jwtVerify(jwt, createLocalJWKSet(jwks), { audience: 'svc-enroller', issuer: ctl.baseUrl })).payload;
  };

  it('creates a router with the reference defaults, offline and unverified until it connects', async () => {
    const res = await admin.post('/edge-routers', { name: 'edge-a' });
    assert.equal(res.status, 201);
    const { data } = res.json();
    assert.deepEqual(data._links, { self: { href: `./edge-routers/${data.id}` } });
    const router = await read(data.id);
    assert.deepEqual(
      [router.name, router.roleAttributes, router.isTunnelerEnabled, router.cost, router.noTraversal, router.disabled, router.appData, router.tags],
      ['edge-a', [], false, 0, false, false, {}, {}],
    );
    assert.deepEqual(
      [router.isOnline, router.isVerified, router.fingerprint, router.certPem, router.hostname, router.supportedProtocols, router.syncStatus],
      [false, false, null, null, '', {}, 'SYNC_NEW'],
    );
  });

  it('shows a signed erott enrollment JWT on the detail, naming the router and its token, that the enrollment keys verify', async () => {
    const id = await create({ name: 'edge-jwt' });
    const router = await read(id);
    const claims = await verify(router.enrollmentJwt);
    assert.deepEqual([claims.em, claims.sub, claims.jti], ['erott', id, router.enrollmentToken]);
    assert.equal(claims.exp, Math.floor(Date.parse(router.enrollmentExpiresAt) / 1000));
    const duration = ctl.running.services.config.edge?.enrollment.edgeRouterDurationMs ?? 0;
    assert.ok(Math.abs(Date.parse(router.enrollmentExpiresAt) - Date.parse(router.createdAt) - duration) < 1000);
    assert.equal(Date.parse(router.enrollmentCreatedAt) / 1000, claims.iat);
    const row = await db().selectFrom('edge_routers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.enrollment_token_hash, createHash('sha256').update(router.enrollmentToken).digest('hex'), 'only the token hash is stored');
  });

  it('stores every setting given and indexes the role attributes', async () => {
    const id = await create({
      name: 'edge-full',
      roleAttributes: ['east', 'public'],
      isTunnelerEnabled: true,
      cost: 65535,
      noTraversal: true,
      disabled: true,
      appData: { region: 'eu', nested: { a: [1, 2] } },
      tags: { team: 'net' },
    });
    const router = await read(id);
    assert.deepEqual(
      [router.roleAttributes, router.isTunnelerEnabled, router.cost, router.noTraversal, router.disabled, router.appData, router.tags],
      [['east', 'public'], true, 65535, true, true, { region: 'eu', nested: { a: [1, 2] } }, { team: 'net' }],
    );
    assert.deepEqual(await indexed(id), ['east', 'public']);
  });

  it('lists routers with filters, sort and paging', async () => {
    for (const [name, cost] of [['list-b', 20], ['list-a', 10], ['list-c', 30]] as const) await create({ name, cost });
    assert.deepEqual(await names('name contains "list-" sort by name desc'), ['list-c', 'list-b', 'list-a']);
    assert.deepEqual(await names('name contains "list-" and cost >= 20 sort by cost'), ['list-b', 'list-c']);
    const page = (await admin.get(`/edge-routers?filter=${encodeURIComponent('name contains "list-"')}&sort=name&limit=1&offset=1`)).json();
    assert.deepEqual(page.data.map((r: { name: string }) => r.name), ['list-b']);
    assert.deepEqual(page.meta.pagination, { limit: 1, offset: 1, totalCount: 3 });
  });

  it('replaces a router with PUT (absent settings back to defaults) and patches only what is given, keeping the enrollment', async () => {
    const id = await create({ name: 'edge-edit', roleAttributes: ['old'], cost: 7, noTraversal: true, tags: { a: 'b' } });
    const before = await read(id);
    const put = await admin.put(`/edge-routers/${id}`, { name: 'edge-edited', roleAttributes: ['new'] });
    assert.deepEqual([put.status, put.json()], [200, { data: {}, meta: {} }]);
    let router = await read(id);
    assert.deepEqual([router.name, router.roleAttributes, router.cost, router.noTraversal, router.tags], ['edge-edited', ['new'], 0, false, {}]);
    assert.equal(router.enrollmentJwt, before.enrollmentJwt);
    assert.deepEqual(await indexed(id), ['new']);
    assert.equal((await admin.patch(`/edge-routers/${id}`, { cost: 9, roleAttributes: ['x', 'y'] })).status, 200);
    router = await read(id);
    assert.deepEqual([router.name, router.cost, router.roleAttributes], ['edge-edited', 9, ['x', 'y']]);
    assert.deepEqual(await indexed(id), ['x', 'y']);
  });

  it('re-enrolls a router: a new JWT and token, its certificate forgotten and unverified again', async () => {
    const id = await create({ name: 'edge-reenroll' });
    const before = await read(id);
    await db().updateTable('edge_routers').set({ fingerprint: 'ab12', cert_pem: 'PEM', is_verified: true, enrollment_token_hash: null, enrollment_jwt: null, enrollment_expires_at: null }).where('id', '=', id).execute();
    const enrolled = await read(id);
    assert.deepEqual([enrolled.fingerprint, enrolled.isVerified, enrolled.enrollmentJwt, enrolled.enrollmentToken], ['ab12', true, null, null]);
    const res = await admin.post(`/edge-routers/${id}/re-enroll`);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    const after = await read(id);
    assert.notEqual(after.enrollmentJwt, before.enrollmentJwt);
    assert.notEqual(after.enrollmentToken, before.enrollmentToken);
    assert.deepEqual([after.fingerprint, after.certPem, after.isVerified], [null, null, false]);
    const claims = await verify(after.enrollmentJwt);
    assert.deepEqual([claims.em, claims.sub, claims.jti], ['erott', id, after.enrollmentToken]);
    assert.equal((await admin.post('/edge-routers/nope/re-enroll')).status, 404);
  });

  it('deletes a router with its index rows', async () => {
    const id = await create({ name: 'edge-gone', roleAttributes: ['gone'] });
    const res = await admin.del(`/edge-routers/${id}`);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    assert.equal((await admin.get(`/edge-routers/${id}`)).status, 404);
    assert.deepEqual(await indexed(id), []);
  });

  it('records every change in the audit log, never the enrollment JWT or token', async () => {
    // The steps may share a millisecond: the trail's sequence keeps the order they were made in.
    const id = await create({ name: 'edge-audited' });
    await admin.patch(`/edge-routers/${id}`, { cost: 3 });
    await admin.post(`/edge-routers/${id}/re-enroll`);
    await admin.del(`/edge-routers/${id}`);
    const res = await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${id}" sort by sequence asc`)}`);
    const entries = res.json().data;
    assert.deepEqual(entries.map((e: { action: string; entityType: string }) => [e.action, e.entityType]), [
      ['create', 'edge-router'],
      ['patch', 'edge-router'],
      ['re-enroll', 'edge-router'],
      ['delete', 'edge-router'],
    ]);
    assert.equal(entries[1].details.cost, 3);
    assert.doesNotMatch(res.text, /eyJ/, 'no JWT in the audit details');
  });

  it('refuses every bad input naming the field, with nothing stored or changed', async () => {
    const id = await create({ name: 'edge-kept', cost: 5, roleAttributes: ['kept'] });
    const count = await routerCount();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: 'bad', cost: -1 }, 'cost'],
      [{ name: 'bad', cost: 65536 }, 'cost'],
      [{ name: 'bad', cost: 1.5 }, 'cost'],
      [{ name: 'bad', roleAttributes: ['#east'] }, 'roleAttributes[0]'],
      [{ name: 'bad', roleAttributes: ['ok', '@id'] }, 'roleAttributes[1]'],
      [{ name: 'bad', roleAttributes: ['all'] }, 'roleAttributes[0]'],
      [{ name: 'bad', roleAttributes: [''] }, 'roleAttributes[0]'],
      [{ name: 'bad', appData: 'text' }, 'appData'],
      [{ name: 'bad', unknownField: true }, 'unknownField'],
      [{ name: 'edge-kept' }, 'name'],
      [{ cost: 1 }, 'name'],
    ];
    for (const [body, field] of bad) {
      const res = await admin.post('/edge-routers', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json().error.cause.field, field, JSON.stringify(body));
      if (field === 'name') continue;
      const { name: _name, ...change } = body;
      const patched = await admin.patch(`/edge-routers/${id}`, change);
      assert.deepEqual([patched.status, patched.json().error.cause.field], [400, field], `PATCH ${JSON.stringify(change)}`);
    }
    assert.equal(await routerCount(), count);
    const router = await read(id);
    assert.deepEqual([router.cost, router.roleAttributes], [5, ['kept']]);
    assert.deepEqual(await indexed(id), ['kept']);
  });

  it('answers 404 NOT_FOUND naming the id for every operation on an unknown router', async () => {
    for (const res of [await admin.get('/edge-routers/nope'), await admin.put('/edge-routers/nope', { name: 'x' }), await admin.patch('/edge-routers/nope', {}), await admin.del('/edge-routers/nope')]) {
      assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
      assert.match(res.json().error.message, /nope/);
    }
  });

  it('refuses a router with 400 INVALID_ENROLL_METHOD, storing nothing, when the controller has no enrollment signer', async () => {
    const domain = buildAuthorizationDomain(ctl.running.database, {
      clock: ctl.running.services.clock,
      log: { log: () => {} } as never,
      enrollmentJwt: undefined,
      routerEnrollmentDurationMs: 0,
      posture: ctl.running.services.posture,
    });
    const count = await routerCount();
    await assert.rejects(domain.edgeRouters.create(SYSTEM_ACTOR, { name: 'edge-unsigned' }), { code: 'INVALID_ENROLL_METHOD', status: 400 });
    assert.equal(await routerCount(), count);
  });

  it('refuses every operation to a non-administrator with 403', async () => {
    const id = await create({ name: 'edge-private' });
    const user = managementClient(ctl, await nonAdminToken(ctl, 'routers-user'));
    for (const res of [await user.get('/edge-routers'), await user.get(`/edge-routers/${id}`), await user.post('/edge-routers', { name: 'x' }), await user.patch(`/edge-routers/${id}`, { cost: 1 }), await user.post(`/edge-routers/${id}/re-enroll`), await user.del(`/edge-routers/${id}`)]) {
      assert.equal(res.status, 403, res.text);
    }
    assert.equal((await read(id)).cost, 0);
    // Positive control: the same change by an administrator is made.
    assert.equal((await admin.patch(`/edge-routers/${id}`, { cost: 1 })).status, 200);
    assert.equal((await read(id)).cost, 1);
  });
});
