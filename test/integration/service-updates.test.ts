/**
 * `GET /edge/client/v1/current-api-session/service-updates` (issue 15, item 5; decision 0032): `lastChangeAt` moves
 * forward for exactly the identities whose service list, or something it says, changed (a service, its config and the
 * config's type, a policy, a posture check of a policy that selects the identity, the identity's attributes), and
 * for nothing else (router policies, routers, other identities, unused configs). Two controllers on one store answer
 * the same time, a legacy session and an OIDC token of one identity too, and a missing credential is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';

const CLIENT = '/edge/client/v1';
const PATH = `${CLIENT}/current-api-session/service-updates`;

describe(`service updates (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  let first: TestController;
  let second: TestController;
  let admin: ManagementClient;
  const ids: Record<string, string> = {};
  const sessions: Record<string, Record<string, string>> = {};

  before(async () => {
    shared = await newSharedDatabase();
    first = await startTestController({ databaseTarget: shared.db });
    second = await startTestController({ databaseTarget: shared.db, inProcess: true });
    admin = managementClient(first, await first.adminToken());
    ids.type = await createdId(admin, '/config-types', { name: 'app.v1', schema: { type: 'object' } });
    ids.config = await createdId(admin, '/configs', { name: 'web-config', configTypeId: ids.type, data: { port: 443 } });
    ids.unused = await createdId(admin, '/configs', { name: 'unused-config', configTypeId: ids.type, data: { port: 1 } });
    ids.check = await createdId(admin, '/posture-checks', { name: 'web-check', typeId: 'DOMAIN', domains: ['corp.example'] });
    ids.web = await createdId(admin, '/services', { name: 'web', roleAttributes: ['web'], configs: [ids.config] });
    ids.db = await createdId(admin, '/services', { name: 'db', roleAttributes: ['data'] });
    for (const [name, attributes] of [['alice', ['staff']], ['bob', ['other']]] as const) {
      ids[name] = (await createIdentity(first.running.database, { name, username: `${name}-user`, password: `${name}-password` })).id;
      assert.equal((await admin.patch(`/identities/${ids[name]}`, { roleAttributes: [...attributes] })).status, 200);
    }
    ids.staffWeb = await createdId(admin, '/service-policies', { name: 'staff-web', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#staff'], serviceRoles: ['#web'], postureCheckRoles: [`@${ids.check}`] });
    ids.otherDb = await createdId(admin, '/service-policies', { name: 'other-db', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#other'], serviceRoles: ['#data'] });
    for (const name of ['alice', 'bob']) {
      const res = await first.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: `${name}-user`, password: `${name}-password` } });
      sessions[name] = { 'svc-session': res.json().data.token };
    }
  });
  after(async () => {
    await second.close();
    await first.close();
    await shared.drop();
  });

  async function lastChangeAt(name: string, controller = first): Promise<number> {
    const res = await controller.fetch(PATH, { headers: sessions[name] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json().data), ['lastChangeAt']);
    return Date.parse(res.json().data.lastChangeAt);
  }
  /** Runs `change`, then says for each identity whether its time moved (forward, never back). */
  async function moved(change: () => Promise<unknown>): Promise<Record<string, boolean>> {
    const before = { alice: await lastChangeAt('alice'), bob: await lastChangeAt('bob') };
    await change();
    const after = { alice: await lastChangeAt('alice'), bob: await lastChangeAt('bob') };
    assert.ok(after.alice >= before.alice && after.bob >= before.bob, 'never moves back');
    return { alice: after.alice > before.alice, bob: after.bob > before.bob };
  }
  const ok = async (response: Promise<{ status: number; text: string }>, status = 200) => {
    const res = await response;
    assert.equal(res.status, status, res.text);
  };

  it('answers the same time poll after poll while nothing changes', async () => {
    const once = await lastChangeAt('alice');
    assert.ok(Number.isFinite(once));
    assert.equal(await lastChangeAt('alice'), once);
    assert.equal(await lastChangeAt('alice', second), once);
  });

  it("moves for a change to a service in the caller's list, and only for its callers", async () => {
    assert.deepEqual(await moved(() => ok(admin.patch(`/services/${ids.web}`, { maxIdleTimeMillis: 1000 }))), { alice: true, bob: false });
    assert.deepEqual(await moved(() => ok(admin.patch(`/services/${ids.db}`, { maxIdleTimeMillis: 1000 }))), { alice: false, bob: true });
  });

  it("moves for a change to a config of a listed service, and to that config's type", async () => {
    assert.deepEqual(await moved(() => ok(admin.patch(`/configs/${ids.config}`, { data: { port: 8443 } }))), { alice: true, bob: false });
    assert.deepEqual(await moved(() => ok(admin.patch(`/config-types/${ids.type}`, { name: 'app.v2' }))), { alice: true, bob: false });
    assert.deepEqual(await moved(() => ok(admin.patch(`/configs/${ids.unused}`, { data: { port: 2 } }))), { alice: false, bob: false });
  });

  it('moves for a policy that gives or takes a service, and for a posture check of a policy that selects the caller', async () => {
    let policy = '';
    assert.deepEqual(await moved(async () => (policy = await createdId(admin, '/service-policies', { name: 'bob-web', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${ids.bob}`], serviceRoles: ['#web'] }))), { alice: false, bob: true });
    assert.deepEqual(await moved(() => ok(admin.del(`/service-policies/${policy}`))), { alice: false, bob: true });
    assert.deepEqual(await moved(() => ok(admin.patch(`/posture-checks/${ids.check}`, { domains: ['corp.example', 'lab.example'] }))), { alice: true, bob: false });
  });

  it("moves for the caller's own attributes, not for another identity's, a router or a router policy", async () => {
    assert.deepEqual(await moved(() => ok(admin.patch(`/identities/${ids.bob}`, { roleAttributes: ['other', 'staff'] }))), { alice: false, bob: true });
    assert.deepEqual(
      await moved(async () => {
        const router = await createdId(admin, '/edge-routers', { name: 'router-1', roleAttributes: ['eu'] });
        await createdId(admin, '/edge-router-policies', { name: 'all-eu', identityRoles: ['#all'], edgeRouterRoles: ['#eu'] });
        await createdId(admin, '/service-edge-router-policies', { name: 'web-eu', serviceRoles: ['#web'], edgeRouterRoles: [`@${router}`] });
        const someone = (await createIdentity(first.running.database, { name: 'carol' })).id;
        await ok(admin.patch(`/identities/${someone}`, { roleAttributes: ['nobody'] }));
      }),
      { alice: false, bob: false },
    );
  });

  // PostgreSQL, the store of several controllers: both answer the same time at once, whichever made the change (each
  // poll reads the log). SQLite is one controller's store, answered from memory: a second process sharing the file
  // agrees within the change feed's bound (docs/guides/controller.md, "Running several controllers").
  const agreeing = testDialect === 'postgres' ? 'at once' : 'within the bound';
  it(`answers the same time on both controllers, and moves on both for a change made on one (${agreeing})`, async () => {
    const agreed = async () => {
      const deadline = Date.now() + (testDialect === 'postgres' ? 0 : 1_000);
      for (;;) {
        const [one, two] = [await lastChangeAt('alice'), await lastChangeAt('alice', second)];
        if (one === two || Date.now() > deadline) return [one, two] as const;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const [before, beforeOnSecond] = await agreed();
    assert.equal(beforeOnSecond, before, 'before the change');
    const otherAdmin = managementClient(second, await second.adminToken());
    await ok(otherAdmin.patch(`/services/${ids.web}`, { maxIdleTimeMillis: 2000 }));
    // The controller that made the change knows it at once on either store.
    assert.ok((await lastChangeAt('alice', second)) > before);
    const [onFirst, onSecond] = await agreed();
    assert.ok(onFirst > before);
    assert.equal(onSecond, onFirst, 'after the change');
  });

  it('answers an OIDC token of the identity as its legacy session, and refuses a missing or unknown credential', async () => {
    const config = await discoverClient(first);
    const login = await loginToCallback(first, config, 'alice-user', 'alice-password');
    const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
    const bearer = await first.fetch(PATH, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(bearer.status, 200, bearer.text);
    assert.equal(Date.parse(bearer.json().data.lastChangeAt), await lastChangeAt('alice'));
    for (const headers of [{}, { 'svc-session': 'not-a-session' }, { authorization: 'Bearer not.a.token' }] as Record<string, string>[]) {
      const res = await first.fetch(PATH, { headers });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
    }
  });
});
