/**
 * Usernames and names are unambiguous (issue 12, point 5; docs/decisions/0016-unambiguous-usernames.md): a username
 * is unique in the store across password authenticators and pending updb enrollments, compared after NFKC and case
 * folding, even when many requests race for it; usernames with white space at either end and names or usernames
 * with control or bidirectional characters are refused naming the field, and nothing is written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { signerBody } from '../helpers/external-jwt.js';
import { createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';
import type { TestResponse } from '../helpers/https.js';
import { snapshotDifference, storeSnapshot } from '../helpers/store-snapshot.js';

const identityBody = (name: string, enrollment?: Record<string, unknown>) => ({ name, type: 'User', isAdmin: false, ...(enrollment ? { enrollment } : {}) });

describe(`unambiguous usernames and names (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let pendingIdentityId: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    await createIdentity(ctl.running.database, { name: 'alice', password: 'alice-password' });
    await createIdentity(ctl.running.database, { name: 'dave', password: 'dave-password' });
    // A username held by a pending enrollment, not yet by an authenticator.
    const pending = await admin.post('/identities', identityBody('bob-identity', { updb: 'bob-pending' }));
    assert.equal(pending.status, 201, pending.text);
    pendingIdentityId = pending.json().data.id;
  });
  after(async () => ctl.close());

  const identityCount = async () => (await admin.get('/identities?limit=1')).json().meta.pagination.totalCount as number;
  const login = (username: string, password: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });

  /**
   * Sends, expects 400 naming `field` with a reason matching `reason`, and an unchanged store. The code is
   * COULD_NOT_VALIDATE, except for a NUL: the JSON body reader refuses that anywhere in a body (PostgreSQL text cannot
   * hold it) with COULD_NOT_PARSE_BODY, naming the field too, before any service sees it.
   */
  async function assertRefused(send: () => Promise<TestResponse>, field: string, reason: RegExp, sent = ''): Promise<void> {
    const before = await storeSnapshot(ctl.running.database);
    const res = await send();
    assert.equal(res.status, 400, res.text);
    const { error } = res.json();
    assert.equal(error.code, sent.includes('\u0000') ? 'COULD_NOT_PARSE_BODY' : 'COULD_NOT_VALIDATE', res.text);
    assert.equal(error.cause?.field, field, res.text);
    assert.match(error.cause?.reason ?? '', reason, res.text);
    assert.deepEqual(snapshotDifference(before, await storeSnapshot(ctl.running.database)), {}, 'the store changed');
  }

  it('lets exactly one of ten concurrent identity creates with the same updb username through, leaving nothing of the nine others', async () => {
    const before = await identityCount();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => admin.post('/identities', identityBody(`racer-${i}`, { updb: 'racer' }))));
    const statuses = results.map((r) => r.status).join(',');
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 400);
    assert.equal(created.length, 1, statuses);
    assert.equal(refused.length, 9, statuses);
    for (const res of refused) {
      const { error } = res.json();
      assert.equal(error.code, 'COULD_NOT_VALIDATE', res.text);
      assert.equal(error.cause.field, 'enrollment.updb', res.text);
      assert.equal(error.cause.reason, 'is already in use', res.text);
    }
    assert.equal(await identityCount(), before + 1, 'only the winner is left');
    const winnerId = created[0]?.json().data.id;
    const holders = await ctl.running.database.db.selectFrom('enrollments').select('identity_id').where('username', '=', 'racer').execute();
    assert.deepEqual(holders.map((row) => row.identity_id), [winnerId]);
  });

  it('lets one of ten concurrent creates through when they spell one username in different cases and widths', async () => {
    const spellings = ['Racer2', 'racer2', 'RACER2', 'ｒａｃｅｒ２', 'rAcEr2', 'ＲＡＣＥＲ2', 'racer２', 'Racer２', 'RACER２', 'rACER2'];
    const before = await identityCount();
    const results = await Promise.all(spellings.map((updb, i) => admin.post('/identities', identityBody(`racer2-${i}`, { updb }))));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.status).join(','));
    for (const res of results.filter((r) => r.status !== 201)) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error.cause.field, 'enrollment.updb', res.text);
    }
    assert.equal(await identityCount(), before + 1);
  });

  it('lets one of five concurrent updb enrollments for one username through, naming the username field for the others', async () => {
    const identities = await Promise.all(Array.from({ length: 5 }, (_, i) => createIdentity(ctl.running.database, { name: `enrollee-${i}` })));
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const results = await Promise.all(identities.map(({ id }) => admin.post('/enrollments', { identityId: id, method: 'updb', username: 'enrollee', expiresAt })));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.status).join(','));
    for (const res of results.filter((r) => r.status !== 201)) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error.cause.field, 'username', res.text);
      assert.equal(res.json().error.cause.reason, 'is already in use', res.text);
    }
  });

  const usernameCases: Array<[string, string, RegExp]> = [
    ['another case of a password authenticator username', 'Alice', /already in use/],
    ['its upper-case form', 'ALICE', /already in use/],
    ['its fullwidth form', 'ａｌｉｃｅ', /already in use/],
    ['another case of a pending enrollment username', 'BOB-PENDING', /already in use/],
    ['the default admin username in capitals', 'ADMIN', /already in use/],
    ['followed by white space', 'alice ', /must not begin or end with white space/],
    ['preceded by white space', ' alice', /must not begin or end with white space/],
    ['preceded by an ideographic space', '\u3000carol', /must not begin or end with white space/],
    ['holding a NUL', 'car\u0000ol', /U\+0000/],
    ['holding a C1 control', 'car\u0085ol', /control or bidirectional/],
    ['holding a right-to-left override', 'car\u202eol', /control or bidirectional/],
    ['holding a first-strong isolate', 'car\u2068ol', /control or bidirectional/],
    ['holding a zero-width space', 'car\u200bol', /invisible/],
  ];
  usernameCases.forEach(([what, updb, reason], i) => {
    it(`refuses an identity whose updb username is ${what}, naming enrollment.updb`, async () => {
      await assertRefused(() => admin.post('/identities', identityBody(`username-case-${i}`, { updb })), 'enrollment.updb', reason, updb);
    });
  });

  it('refuses the same usernames on POST /enrollments, naming username', async () => {
    const { id } = await createIdentity(ctl.running.database, { name: 'frank' });
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    for (const [, username, reason] of usernameCases) {
      await assertRefused(() => admin.post('/enrollments', { identityId: id, method: 'updb', username, expiresAt }), 'username', reason, username);
    }
  });

  const nameCases: Array<[string, string]> = [
    ['a NUL', 'ops\u0000team'],
    ['a backspace', 'ops\bteam'],
    ['an escape', 'ops\u001b[31mteam'],
    ['a line feed', 'ops\nteam'],
    ['a C1 control', 'ops\u009bteam'],
    ['a right-to-left override', 'ops\u202etxt.exe'],
    ['a left-to-right embedding', '\u202aops'],
    ['a right-to-left isolate', 'ops\u2067team'],
    ['a pop directional isolate', 'ops\u2069'],
    ['a right-to-left mark', 'ops\u200f'],
    ['an Arabic letter mark', 'ops\u061cteam'],
  ];
  for (const [what, name] of nameCases) {
    it(`refuses an identity, an auth policy and an external JWT signer named with ${what}, naming the field`, async () => {
      const reason = name.includes('\u0000') ? /U\+0000/ : /control or bidirectional/;
      await assertRefused(() => admin.post('/identities', identityBody(name)), 'name', reason, name);
      await assertRefused(() => admin.post('/auth-policies', authPolicyBody(name)), 'name', reason, name);
      await assertRefused(() => admin.post('/external-jwt-signers', signerBody(name)), 'name', reason, name);
    });
  }

  it('refuses renaming an identity or an auth policy to such a name', async () => {
    const policyId = (await admin.post('/auth-policies', authPolicyBody('plain-policy'))).json().data.id;
    await assertRefused(() => admin.patch(`/identities/${pendingIdentityId}`, { name: 'bob\u202eidentity' }), 'name', /U\+202E/);
    await assertRefused(() => admin.put(`/identities/${pendingIdentityId}`, identityBody('bob\u0085')), 'name', /U\+0085/);
    await assertRefused(() => admin.patch(`/auth-policies/${policyId}`, { name: 'plain\u2066policy' }), 'name', /U\+2066/);
  });

  it('accepts names with accents, emoji and inner spaces', async () => {
    const res = await admin.post('/identities', identityBody('Zoë 🚀 ops'));
    assert.equal(res.status, 201, res.text);
  });

  it('logs in by a username written in another case or width', async () => {
    const aliceId = (await ctl.running.database.db.selectFrom('identities').select('id').where('name', '=', 'alice').executeTakeFirstOrThrow()).id;
    for (const username of ['alice', 'Alice', 'ALICE', 'ａｌｉｃｅ']) {
      const res = await login(username, 'alice-password');
      assert.equal(res.status, 200, `${username}: ${res.text}`);
      assert.equal(res.json().data.identity.id, aliceId);
    }
    assert.equal((await login('Alice', 'wrong-password')).status, 401);
  });

  it('refuses renaming an authenticator onto another username in another case, and allows changing the case of its own', async () => {
    const session = (await login('dave', 'dave-password')).json().data.token as string;
    const call = (path: string, body?: object) =>
      ctl.fetch(`/edge/client/v1${path}`, { method: body ? 'PATCH' : 'GET', headers: { 'svc-session': session }, ...(body ? { body } : {}) });
    const own = (await call('/current-identity/authenticators')).json().data[0].id as string;
    for (const username of ['ALICE', 'ａｌｉｃｅ', 'Bob-Pending', 'Admin']) {
      await assertRefused(() => call(`/current-identity/authenticators/${own}`, { username, currentPassword: 'dave-password' }), 'username', /already in use/);
    }
    await assertRefused(() => call(`/current-identity/authenticators/${own}`, { username: 'dave2 ', currentPassword: 'dave-password' }), 'username', /white space/);
    await assertRefused(() => call(`/current-identity/authenticators/${own}`, { username: 'da\u202eve', currentPassword: 'dave-password' }), 'username', /bidirectional/);
    const renamed = await call(`/current-identity/authenticators/${own}`, { username: 'Dave', currentPassword: 'dave-password' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((await login('dave', 'dave-password')).status, 200, 'the key did not change');
    assert.equal((await call('/current-identity')).json().data.authenticators.updb.username, 'Dave', 'the spelling given is kept');
  });

  it('keeps the username held from enrollment to authenticator, and frees it when the authenticator is deleted', async () => {
    const created = await admin.post('/identities', identityBody('erin-identity', { updb: 'Erin' }));
    assert.equal(created.status, 201, created.text);
    const token = (await admin.get(`/identities/${created.json().data.id}`)).json().data.enrollment.updb.token as string;
    const enrolled = await ctl.fetch(`/edge/client/v1/enroll/updb?token=${token}`, { method: 'POST', body: { username: 'erin', password: 'erin-password' } });
    assert.equal(enrolled.status, 200, enrolled.text);
    assert.equal(enrolled.json().data.username, 'Erin', 'the enrollment spelling is kept');
    assert.equal((await login('ERIN', 'erin-password')).status, 200);
    await assertRefused(() => admin.post('/identities', identityBody('erin-copy', { updb: 'erin' })), 'enrollment.updb', /already in use/);

    const authenticatorId = (await admin.get(`/identities/${created.json().data.id}`)).json().data.authenticators.updb.id as string;
    assert.equal((await admin.del(`/authenticators/${authenticatorId}`)).status, 200);
    const again = await admin.post('/identities', identityBody('erin-again', { updb: 'erin' }));
    assert.equal(again.status, 201, again.text);
  });

  it('frees a username when its pending enrollment is deleted', async () => {
    const enrollmentId = (await admin.get(`/identities/${pendingIdentityId}`)).json().data.enrollment.updb.id as string;
    assert.equal((await admin.del(`/enrollments/${enrollmentId}`)).status, 200);
    const res = await admin.post('/identities', identityBody('bob-again', { updb: 'Bob-Pending' }));
    assert.equal(res.status, 201, res.text);
  });
});
