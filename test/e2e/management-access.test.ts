/**
 * Who may call the identity, authenticator, auth policy and audit operations: only administrators. Without a
 * session the answer is 401, with a session of a non-administrator 403, and in neither case does anything change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { authPolicyBody, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

describe(`management access (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let target: { identity: string; policy: string; authenticator: string };
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    const identity = (await admin.post('/identities', { name: 'target', type: 'User', isAdmin: false })).json().data.id;
    const policy = (await admin.post('/auth-policies', authPolicyBody('target-policy'))).json().data.id;
    const authenticator = (await admin.get('/authenticators')).json().data[0].id;
    target = { identity, policy, authenticator };
  });
  after(async () => ctl.close());

  /** Every operation of this part of the API, with a body that an administrator could send. */
  const operations = (): Array<[string, string, unknown?]> => [
    ['GET', '/identities'],
    ['POST', '/identities', { name: 'intruder', type: 'User', isAdmin: true }],
    ['GET', `/identities/${target.identity}`],
    ['PUT', `/identities/${target.identity}`, { name: 'renamed', type: 'User', isAdmin: true }],
    ['PATCH', `/identities/${target.identity}`, { isAdmin: true }],
    ['DELETE', `/identities/${target.identity}`],
    ['POST', `/identities/${target.identity}/disable`, { durationMinutes: 0 }],
    ['POST', `/identities/${target.identity}/enable`],
    ['GET', `/identities/${target.identity}/authenticators`],
    ['GET', '/authenticators'],
    ['GET', `/authenticators/${target.authenticator}`],
    ['DELETE', `/authenticators/${target.authenticator}`],
    ['GET', '/auth-policies'],
    ['POST', '/auth-policies', authPolicyBody('intruder-policy')],
    ['GET', `/auth-policies/${target.policy}`],
    ['PUT', `/auth-policies/${target.policy}`, authPolicyBody('renamed-policy')],
    ['PATCH', `/auth-policies/${target.policy}`, { name: 'renamed-policy' }],
    ['DELETE', `/auth-policies/${target.policy}`],
    ['GET', '/audit-log'],
  ];

  const snapshot = async () => [
    (await admin.get('/identities?limit=500&sort=id')).json().data,
    (await admin.get('/auth-policies?limit=500&sort=id')).json().data,
    (await admin.get('/authenticators?limit=500&sort=id')).json().data,
  ];

  async function callAll(client: ManagementClient) {
    const answers: Array<{ op: string; status: number; code: string }> = [];
    for (const [method, path, body] of operations()) {
      const res = method === 'GET' ? await client.get(path) : method === 'DELETE' ? await client.del(path) : await client[method.toLowerCase() as 'post' | 'put' | 'patch'](path, body ?? {});
      answers.push({ op: `${method} ${path}`, status: res.status, code: res.json().error?.code });
    }
    return answers;
  }

  it('answers 401 UNAUTHORIZED to every operation without a session and changes nothing', async () => {
    const before = await snapshot();
    for (const answer of await callAll(managementClient(ctl, undefined))) {
      assert.deepEqual([answer.status, answer.code], [401, 'UNAUTHORIZED'], answer.op);
    }
    assert.deepEqual(await snapshot(), before);
  });

  it('answers 403 FORBIDDEN to every operation for a session that is not an administrator and changes nothing', async () => {
    const plain = managementClient(ctl, await nonAdminToken(ctl));
    const before = await snapshot();
    for (const answer of await callAll(plain)) {
      assert.deepEqual([answer.status, answer.code], [403, 'FORBIDDEN'], answer.op);
    }
    assert.deepEqual(await snapshot(), before);
  });

  it('answers 401 to a session token that does not exist', async () => {
    const res = await managementClient(ctl, 'not-a-token').get('/identities');
    assert.equal(res.status, 401);
  });
});
