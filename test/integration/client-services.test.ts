/**
 * `GET /edge/client/v1/services` and `GET /services/{id}` (issue 15, item 1; decision 0032): an identity sees exactly
 * the services its service policies let it dial or bind, with its permissions, the configs of the types its session
 * asked for (or the request names), and per granting policy the posture checks as judged for its API session; an
 * administrator sees every service; a legacy session and an OIDC token see the same; filter, role filter, sort and
 * paging work on the list; a policy change shows at once; changing a service needs an administrator; bad parameters
 * are 400 naming the parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';

const CLIENT = '/edge/client/v1';
const INTERCEPT = { protocols: ['tcp'], addresses: ['web.internal'], portRanges: [{ low: 443, high: 443 }] };
type ServiceItem = { id: string; name: string; permissions: string[]; config: Record<string, unknown>; postureQueries: any[]; [field: string]: unknown };

describe(`services on the client API (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const ids: Record<string, string> = {};

  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    ids.os = await createdId(admin, '/posture-checks', { name: 'windows-only', typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: [] }] });
    ids.intercept = await createdId(admin, '/configs', { name: 'web-intercept', configTypeId: 'g7cIWbcGg', data: INTERCEPT });
    ids.web = await createdId(admin, '/services', { name: 'web', roleAttributes: ['web'], configs: [ids.intercept] });
    ids.db = await createdId(admin, '/services', { name: 'db', roleAttributes: ['data'] });
    ids.hidden = await createdId(admin, '/services', { name: 'hidden', roleAttributes: ['web-internal'] });
    for (const name of ['alice', 'bob']) {
      ids[name] = (await createIdentity(ctl.running.database, { name, username: `${name}-user`, password: `${name}-password` })).id;
    }
    assert.equal((await admin.patch(`/identities/${ids.alice}`, { roleAttributes: ['staff'] })).status, 200);
    ids.dialWeb = await createdId(admin, '/service-policies', { name: 'staff-dial-web', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#web'], postureCheckRoles: [`@${ids.os}`] });
    ids.bindDb = await createdId(admin, '/service-policies', { name: 'alice-bind-db', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${ids.alice}`], serviceRoles: [`@${ids.db}`] });
    ids.dialDb = await createdId(admin, '/service-policies', { name: 'staff-dial-db', type: 'Dial', semantic: 'AllOf', identityRoles: ['#staff'], serviceRoles: ['#data'] });
  });
  after(async () => ctl.close());

  async function legacyHeaders(name: string, configTypes?: string[]): Promise<Record<string, string>> {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: `${name}-user`, password: `${name}-password`, ...(configTypes ? { configTypes } : {}) } });
    assert.equal(res.status, 200, res.text);
    return { 'svc-session': res.json().data.token };
  }
  const get = (headers: Record<string, string>, path: string) => ctl.fetch(`${CLIENT}${path}`, { headers });
  const items = (res: { json(): any }) => res.json().data as ServiceItem[];
  const names = (res: { json(): any }) => items(res).map((service) => service.name);

  it('lists exactly the services the policies give the caller, with its permissions', async () => {
    const res = await get(await legacyHeaders('alice'), '/services?sort=name');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(names(res), ['db', 'web']);
    const [db, web] = items(res);
    assert.deepEqual(db!.permissions, ['Bind', 'Dial']);
    assert.deepEqual(web!.permissions, ['Dial']);
    assert.deepEqual(web!.configs, [ids.intercept]);
    // No config types asked for at login or in the request: no config data.
    assert.deepEqual(web!.config, {});
    assert.equal(res.json().meta.pagination.totalCount, 2);
    assert.deepEqual(names(await get(await legacyHeaders('bob'), '/services')), []);
  });

  it('gives, per granting policy, its posture checks as judged for the session, and follows posture responses', async () => {
    const headers = await legacyHeaders('alice');
    const web = items(await get(headers, `/services?filter=${encodeURIComponent('name = "web"')}`))[0]!;
    assert.equal(web.postureQueries.length, 1);
    const [policy] = web.postureQueries;
    assert.equal(policy.policyId, ids.dialWeb);
    assert.equal(policy.policyType, 'Dial');
    assert.equal(policy.isPassing, false);
    assert.deepEqual(policy.postureQueries.map((query: any) => [query.id, query.queryType, query.isPassing, query.timeout]), [[ids.os, 'OS', false, -1]]);
    const db = (await get(headers, `/services/${ids.db}`)).json().data as ServiceItem;
    // Two policies grant db, neither with checks: both listed, both passing.
    assert.deepEqual(db.postureQueries.map((query: any) => [query.policyId, query.isPassing, query.postureQueries.length]).sort(), [[ids.bindDb, true, 0], [ids.dialDb, true, 0]].sort());
    const posted = await ctl.fetch(`${CLIENT}/posture-response`, { method: 'POST', headers, body: { id: ids.os, typeId: 'OS', type: 'windows', version: '10.0.19045' } });
    assert.equal(posted.status, 201, posted.text);
    const after = (await get(headers, `/services/${ids.web}`)).json().data;
    assert.equal(after.postureQueries[0].isPassing, true);
    assert.equal(after.postureQueries[0].postureQueries[0].isPassing, true);
    // Another session of the same identity reported nothing.
    assert.equal((await get(await legacyHeaders('alice'), `/services/${ids.web}`)).json().data.postureQueries[0].isPassing, false);
  });

  it("injects the configs of the session's config types, or of the request's, by type name", async () => {
    const byLogin = await get(await legacyHeaders('alice', ['intercept.v1']), `/services/${ids.web}`);
    assert.deepEqual(byLogin.json().data.config, { 'intercept.v1': INTERCEPT });
    const headers = await legacyHeaders('alice');
    for (const query of ['configTypes=intercept.v1', 'configTypes=g7cIWbcGg', 'configTypes=all', 'configTypes=host.v1&configTypes=intercept.v1']) {
      const web = items(await get(headers, `/services?${query}`)).find((service) => service.name === 'web')!;
      assert.deepEqual(web.config, { 'intercept.v1': INTERCEPT }, query);
    }
    const other = items(await get(headers, '/services?configTypes=host.v1')).find((service) => service.name === 'web')!;
    assert.deepEqual(other.config, {});
  });

  it('writes each listed service exactly as its detail shows it, and a changed service as changed in the next list', async () => {
    const headers = await legacyHeaders('alice');
    const list = await get(headers, '/services?configTypes=all&sort=name');
    assert.equal(list.status, 200, list.text);
    assert.match(String(list.headers['content-type']), /^application\/json/);
    assert.deepEqual(names(list), ['db', 'web']);
    for (const item of items(list)) {
      const detail = await get(headers, `/services/${item.id}?configTypes=all`);
      assert.deepEqual(item, detail.json().data, `${item.name}: the list item and the detail agree field by field`);
    }
    assert.deepEqual(Object.keys(list.json()).sort(), ['data', 'meta']);
    assert.deepEqual(list.json().meta.filterableFields.includes('name'), true);
    // The list keeps each service's text while the service is unchanged: a change must show in the next list.
    assert.equal((await admin.patch(`/services/${ids.db}`, { tags: { owner: 'storage-team' }, maxIdleTimeMillis: 60_000 })).status, 200);
    const db = items(await get(headers, '/services?sort=name'))[0]!;
    assert.deepEqual([db.name, db.tags, db.maxIdleTimeMillis], ['db', { owner: 'storage-team' }, 60_000]);
    assert.deepEqual(db, (await get(headers, `/services/${ids.db}`)).json().data);
  });

  it('answers an OIDC access token as it answers a legacy session', async () => {
    const config = await discoverClient(ctl);
    const login = await loginToCallback(ctl, config, 'alice-user', 'alice-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    const bearer = await get({ authorization: `Bearer ${tokens.access_token}` }, '/services?sort=name');
    assert.equal(bearer.status, 200, bearer.text);
    const legacy = await get(await legacyHeaders('alice'), '/services?sort=name');
    assert.deepEqual(items(bearer).map((s) => [s.name, s.permissions]), items(legacy).map((s) => [s.name, s.permissions]));
  });

  it('reads one service the caller may see, and 404 for one it may not or that does not exist', async () => {
    const headers = await legacyHeaders('alice');
    const web = await get(headers, `/services/${ids.web}`);
    assert.equal(web.status, 200, web.text);
    assert.equal(web.json().data.name, 'web');
    for (const id of [ids.hidden!, 'no-such-service']) {
      const res = await get(headers, `/services/${id}`);
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
    assert.equal((await get(await legacyHeaders('bob'), `/services/${ids.web}`)).status, 404);
  });

  it('shows an administrator every service, with the permissions its own policies give', async () => {
    const res = await ctl.fetch(`${CLIENT}/services?sort=name&limit=500`, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(names(res).filter((name) => ['db', 'hidden', 'web'].includes(name)), ['db', 'hidden', 'web']);
    assert.ok(items(res).every((service) => service.permissions.length === 0));
    const hidden = await ctl.fetch(`${CLIENT}/services/${ids.hidden}`, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.equal(hidden.status, 200, hidden.text);
  });

  it('filters, role-filters, sorts and pages the list', async () => {
    const headers = await legacyHeaders('alice');
    assert.deepEqual(names(await get(headers, '/services?sort=name desc')), ['web', 'db']);
    const paged = await get(headers, '/services?sort=name&limit=1&offset=1');
    assert.deepEqual([names(paged), paged.json().meta.pagination], [['web'], { limit: 1, offset: 1, totalCount: 2 }]);
    assert.deepEqual(names(await get(headers, `/services?filter=${encodeURIComponent('name contains "d"')}`)), ['db']);
    assert.deepEqual(names(await get(headers, '/services?roleFilter=%23web')), ['web']);
    assert.deepEqual(names(await get(headers, `/services?roleFilter=%23web&roleFilter=%23data&roleSemantic=AnyOf&sort=name`)), ['db', 'web']);
    assert.deepEqual(names(await get(headers, '/services?roleFilter=%23web&roleFilter=%23data')), []);
    // A role filter never widens what the caller sees.
    assert.deepEqual(names(await get(headers, '/services?roleFilter=%23web-internal')), []);
  });

  it('drops a service from the list and the detail at once when the policy that gave it goes', async () => {
    const headers = await legacyHeaders('alice');
    const policy = await createdId(admin, '/service-policies', { name: 'temporary', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#web-internal'] });
    assert.deepEqual(names(await get(headers, '/services?sort=name')), ['db', 'hidden', 'web']);
    assert.equal((await admin.del(`/service-policies/${policy}`)).status, 200);
    assert.deepEqual(names(await get(headers, '/services?sort=name')), ['db', 'web']);
    assert.equal((await get(headers, `/services/${ids.hidden}`)).status, 404);
  });

  it('lets only administrators change or delete a service, with the management rules', async () => {
    const headers = await legacyHeaders('alice');
    for (const [method, body] of [['PUT', { name: 'web' }], ['PATCH', { maxIdleTimeMillis: 5 }], ['DELETE', undefined]] as const) {
      const res = await ctl.fetch(`${CLIENT}/services/${ids.web}`, { method, headers, ...(body ? { body } : {}) });
      assert.equal(res.status, 403, `${method}: ${res.text}`);
    }
    const adminHeaders = { 'svc-session': await ctl.adminToken() };
    const patched = await ctl.fetch(`${CLIENT}/services/${ids.db}`, { method: 'PATCH', headers: adminHeaders, body: { maxIdleTimeMillis: 5000 } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await get(headers, `/services/${ids.db}`)).json().data.maxIdleTimeMillis, 5000);
    const refused = await ctl.fetch(`${CLIENT}/services/${ids.db}`, { method: 'PATCH', headers: adminHeaders, body: { encryptionRequired: false } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json().error.cause.field, 'encryptionRequired');
  });

  it('refuses bad parameters and credentials in the envelope, naming the parameter', async () => {
    const headers = await legacyHeaders('alice');
    const cases: [string, string][] = [
      ['limit=abc', 'limit'],
      ['sort=nope', 'sort'],
      [`filter=${encodeURIComponent('name = ')}`, 'filter'],
      ['roleFilter=%23', 'roleFilter'],
      ['roleFilter=web', 'roleFilter'],
      ['roleSemantic=Some', 'roleSemantic'],
      ['configTypes=no-such-type', 'configTypes'],
      [`configTypes=${'x'.repeat(300)}`, 'configTypes'],
    ];
    for (const [query, field] of cases) {
      const res = await get(headers, `/services?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.match(JSON.stringify(res.json().error), new RegExp(field), query);
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => `configTypes=t${i}`).join('&');
    assert.equal((await get(headers, `/services?${tooMany}`)).status, 400);
    assert.equal((await get(headers, `/services/${ids.web}?configTypes=nothing-here`)).status, 400);
    assert.equal((await get({}, '/services')).status, 401);
    assert.equal((await get({ 'svc-session': 'not-a-session' }, '/services')).status, 401);
  });
});
