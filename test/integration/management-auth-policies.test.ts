/**
 * Auth policy management end to end: create, read, list with filters, replace, patch (at any depth), delete; the
 * `requireExtJwtSigner` alias; the system default policy (changeable, never deletable); policies in use.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { signerBody } from '../helpers/external-jwt.js';
import { authPolicyBody, createdId, managementClient, type ManagementClient } from '../helpers/management.js';

describe(`auth policy management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const create = (body: Record<string, unknown>) => createdId(admin, '/auth-policies', body);
  const read = async (id: string) => (await admin.get(`/auth-policies/${id}`)).json().data;
  /** An external JWT signer for policies to name (they may only name existing ones). */
  const signer = async (name: string) => (await admin.post('/external-jwt-signers', signerBody(name))).json().data.id as string;
  const names = async (filter: string) =>
    (await admin.get(`/auth-policies?filter=${encodeURIComponent(filter)}`)).json().data.map((p: { name: string }) => p.name);

  it('creates a policy, answers 201 with its id and link, and reads every setting back', async () => {
    const body = authPolicyBody('strict');
    const res = await admin.post('/auth-policies', body);
    assert.equal(res.status, 201);
    const { data, meta } = res.json();
    assert.deepEqual([data._links, meta], [{ self: { href: `./auth-policies/${data.id}` } }, {}]);
    const policy = await read(data.id);
    assert.equal(policy.name, 'strict');
    // A body of the reference shape names no CA in allowedCas (decision 0057): it reads back as an empty list.
    assert.deepEqual(policy.primary, { ...body.primary, cert: { ...body.primary.cert, allowedCas: [] } });
    assert.deepEqual(policy.secondary, { requireTotp: false, requireExtJwt: null, requireExtJwtSigner: null });
    assert.deepEqual(policy.tags, { team: 'ops' });
    assert.deepEqual(policy._links, { self: { href: `./auth-policies/${data.id}` } });
  });

  it('reads the system default policy with the reference defaults', async () => {
    const policy = await read('default');
    assert.equal(policy.name, 'Default');
    assert.deepEqual(policy.primary.updb, {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    });
  });

  it('accepts secondary.requireExtJwtSigner as another name for requireExtJwt', async () => {
    const [signer1, signer2] = [await signer('signer-1'), await signer('signer-2')];
    const body = authPolicyBody('aliased');
    body.secondary = { requireTotp: true, requireExtJwtSigner: signer1 };
    const id = await create(body);
    assert.deepEqual((await read(id)).secondary, { requireTotp: true, requireExtJwt: signer1, requireExtJwtSigner: signer1 });
    const same = authPolicyBody('aliased-both');
    same.secondary = { requireTotp: false, requireExtJwt: signer2, requireExtJwtSigner: signer2 };
    assert.equal((await read(await create(same))).secondary.requireExtJwt, signer2);
  });

  it('lists policies with filters, sort and paging', async () => {
    for (const n of ['b', 'a', 'c']) await create(authPolicyBody(`team-${n}`));
    assert.deepEqual(await names('name contains "team-" sort by name desc'), ['team-c', 'team-b', 'team-a']);
    assert.deepEqual(await names('isSystem = true'), ['Default']);
    const page = (await admin.get(`/auth-policies?filter=${encodeURIComponent('name contains "team-"')}&sort=name&limit=1&offset=1`)).json();
    assert.deepEqual(page.data.map((p: { name: string }) => p.name), ['team-b']);
    assert.deepEqual(page.meta.pagination, { limit: 1, offset: 1, totalCount: 3 });
  });

  it('replaces a policy with PUT, tags returning to {} when absent', async () => {
    const id = await create(authPolicyBody('to-replace'));
    const body = authPolicyBody('replaced');
    delete body.tags;
    body.primary.updb.maxAttempts = 3;
    body.secondary = { requireTotp: true, requireExtJwt: null };
    const res = await admin.put(`/auth-policies/${id}`, body);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    const policy = await read(id);
    assert.deepEqual([policy.name, policy.primary.updb.maxAttempts, policy.secondary.requireTotp, policy.tags], ['replaced', 3, true, {}]);
  });

  it('patches one setting deep inside a policy and leaves the others', async () => {
    const id = await create(authPolicyBody('to-patch'));
    const before = await read(id);
    assert.equal((await admin.patch(`/auth-policies/${id}`, { primary: { updb: { lockoutDurationMinutes: 60 } } })).status, 200);
    const signer9 = await signer('signer-9');
    assert.equal((await admin.patch(`/auth-policies/${id}`, { secondary: { requireExtJwtSigner: signer9 } })).status, 200);
    const after = await read(id);
    assert.equal(after.primary.updb.lockoutDurationMinutes, 60);
    assert.equal(after.primary.updb.maxAttempts, before.primary.updb.maxAttempts);
    assert.deepEqual(after.primary.cert, before.primary.cert);
    assert.deepEqual(after.secondary, { requireTotp: false, requireExtJwt: signer9, requireExtJwtSigner: signer9 });
    assert.equal(after.name, 'to-patch');
  });

  it('lets the system default policy be changed but never deleted', async () => {
    assert.equal((await admin.patch('/auth-policies/default', { primary: { updb: { maxAttempts: 10 } } })).status, 200);
    assert.equal((await read('default')).primary.updb.maxAttempts, 10);
    const res = await admin.del('/auth-policies/default');
    assert.deepEqual([res.status, res.json().error.code], [400, 'ENTITY_CAN_NOT_BE_DELETED']);
    assert.equal((await admin.get('/auth-policies/default')).status, 200);
    await admin.patch('/auth-policies/default', { primary: { updb: { maxAttempts: 0 } } });
  });

  it('refuses to delete a policy identities use, naming how many, and deletes it once unused', async () => {
    const id = await create(authPolicyBody('in-use'));
    const users: string[] = [];
    for (const name of ['user-1', 'user-2']) {
      users.push((await admin.post('/identities', { name, type: 'User', isAdmin: false, authPolicyId: id })).json().data.id);
    }
    const refused = await admin.del(`/auth-policies/${id}`);
    assert.equal(refused.status, 409);
    assert.equal(refused.json().error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
    assert.match(refused.json().error.message, /2 identities/);
    assert.equal(refused.json().error.cause.count, 2);
    assert.equal((await admin.get(`/auth-policies/${id}`)).status, 200);

    for (const user of users) await admin.patch(`/identities/${user}`, { authPolicyId: null });
    assert.equal((await admin.get(`/identities/${users[0]}`)).json().data.authPolicyId, 'default');
    const res = await admin.del(`/auth-policies/${id}`);
    assert.deepEqual([res.status, res.json()], [200, { data: {}, meta: {} }]);
    assert.equal((await admin.get(`/auth-policies/${id}`)).status, 404);
  });

  it('names an identity policy in its detail', async () => {
    const id = await create(authPolicyBody('named-policy'));
    const identity = (await admin.post('/identities', { name: 'governed', type: 'User', isAdmin: false, authPolicyId: id })).json().data.id;
    const detail = (await admin.get(`/identities/${identity}`)).json().data;
    assert.deepEqual([detail.authPolicyId, detail.authPolicy.id, detail.authPolicy.name], [id, id, 'named-policy']);
    const governed = (await admin.get(`/identities?filter=${encodeURIComponent(`authPolicyId = "${id}"`)}`)).json().data;
    assert.deepEqual(governed.map((i: { name: string }) => i.name), ['governed']);
  });

  it('resolves the policy of an identity, falling back to default when it names none', async () => {
    const id = await create(authPolicyBody('resolved'));
    const { authPolicies } = ctl.running.services;
    assert.equal((await authPolicies.resolveForIdentity({ authPolicyId: id })).name, 'resolved');
    assert.equal((await authPolicies.resolveForIdentity({ authPolicyId: null })).id, 'default');
  });

  it('answers 404 NOT_FOUND naming the id for every operation on an unknown policy', async () => {
    const calls = [
      admin.get('/auth-policies/nope'),
      admin.put('/auth-policies/nope', authPolicyBody('x')),
      admin.patch('/auth-policies/nope', { name: 'x' }),
      admin.del('/auth-policies/nope'),
    ];
    for (const res of await Promise.all(calls)) {
      assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND']);
      assert.match(res.json().error.message, /nope/);
    }
  });
});
