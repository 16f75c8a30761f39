/**
 * Bad bodies on the management API: each is refused with 400, the error names the offending field in
 * `cause.field`, and nothing in the store changed (checked by listing everything before and after).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { authPolicyBody, managementClient, type ManagementClient } from '../helpers/management.js';

type Body = Record<string, any>;

const identity = (change: Body = {}): Body => ({ name: 'valid-name', type: 'User', isAdmin: false, ...change });
const without = (body: Body, key: string): Body => Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
/** A valid policy body with one change made by `edit`. */
const policy = (edit: (body: Body) => void): Body => {
  const body = authPolicyBody('valid-policy');
  edit(body);
  return body;
};

describe(`management API validation (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let existingId: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    existingId = (await admin.post('/identities', { name: 'existing', type: 'User', isAdmin: false, externalId: 'ext-existing' })).json().data.id;
    await admin.post('/auth-policies', authPolicyBody('existing-policy'));
  });
  after(async () => ctl.close());

  /** Everything a bad request might have touched, as the API shows it. */
  const snapshot = async () => [
    (await admin.get('/identities?limit=500&sort=id')).json().data,
    (await admin.get('/auth-policies?limit=500&sort=id')).json().data,
  ];

  async function assertRefused(send: () => Promise<{ status: number; json(): any }>, field: string, code = 'COULD_NOT_VALIDATE') {
    const before = await snapshot();
    const res = await send();
    const { error } = res.json();
    assert.equal(res.status, 400, JSON.stringify(error));
    assert.equal(error.code, code);
    assert.equal(error.cause?.field, field, JSON.stringify(error));
    assert.deepEqual(await snapshot(), before, 'the store changed');
  }

  const identityCases: Array<[string, Body, string]> = [
    ['a name that is not a string', identity({ name: 42 }), 'name'],
    ['an empty name', identity({ name: '' }), 'name'],
    ['a name over 255 characters', identity({ name: 'n'.repeat(256) }), 'name'],
    ['a type outside the enumeration', identity({ type: 'Robot' }), 'type'],
    ['a type that is not a string', identity({ type: 5 }), 'type'],
    ['isAdmin as a string', identity({ isAdmin: 'true' }), 'isAdmin'],
    ['roleAttributes that is not an array', identity({ roleAttributes: '#web' }), 'roleAttributes'],
    ['a role attribute that is not a string', identity({ roleAttributes: [1] }), 'roleAttributes.0'],
    ['an authPolicyId that is not a string', identity({ authPolicyId: 7 }), 'authPolicyId'],
    ['an externalId that is not a string', identity({ externalId: false }), 'externalId'],
    ['tags that are not an object', identity({ tags: 'x' }), 'tags'],
    ['a tag value that is a number', identity({ tags: { a: 1 } }), 'tags.a'],
    ['a tag value that is an object', identity({ tags: { a: { b: 'c' } } }), 'tags.a'],
    ['an enrollment that is not an object', identity({ enrollment: 'ott' }), 'enrollment'],
    ['an ott enrollment that is not a boolean', identity({ enrollment: { ott: 'yes' } }), 'enrollment.ott'],
    ['an updb enrollment that is not a string', identity({ enrollment: { updb: 5 } }), 'enrollment.updb'],
    ['an ottca enrollment that is not a string', identity({ enrollment: { ottca: 5 } }), 'enrollment.ottca'],
    ['an unknown enrollment method', identity({ enrollment: { bogus: 'ca-1' } }), 'enrollment.bogus'],
    ['an unknown field', identity({ colour: 'red' }), 'colour'],
    ['a missing name', without(identity(), 'name'), 'name'],
    ['a missing type', without(identity(), 'type'), 'type'],
    ['a missing isAdmin', without(identity(), 'isAdmin'), 'isAdmin'],
    ['a name already in use', identity({ name: 'existing' }), 'name'],
    ['an externalId already in use', identity({ externalId: 'ext-existing' }), 'externalId'],
  ];
  for (const [what, body, field] of identityCases) {
    it(`refuses to create an identity with ${what} (cause.field ${field})`, async () => {
      await assertRefused(() => admin.post('/identities', body), field);
    });
  }

  it('refuses an identity naming an unknown auth policy with REFERENCED_ENTITY_NOT_FOUND', async () => {
    await assertRefused(() => admin.post('/identities', identity({ authPolicyId: 'no-such-policy' })), 'authPolicyId', 'REFERENCED_ENTITY_NOT_FOUND');
  });

  it('says why a name in use was refused', async () => {
    const { error } = (await admin.post('/identities', identity({ name: 'existing' }))).json();
    assert.equal(error.cause.reason, 'is already in use');
  });

  const updateCases: Array<[string, 'put' | 'patch', Body, string]> = [
    ['a PUT without isAdmin', 'put', without(identity(), 'isAdmin'), 'isAdmin'],
    ['a PUT with an unknown field', 'put', identity({ enrollment: { ott: true } }), 'enrollment'],
    ['a PATCH with isAdmin as a string', 'patch', { isAdmin: 'no' }, 'isAdmin'],
    ['a PATCH with a bad tag value', 'patch', { tags: { a: [] } }, 'tags.a'],
    ['a PATCH to a name in use', 'patch', { name: 'admin' }, 'name'],
    ['a PATCH to an unknown auth policy', 'patch', { authPolicyId: 'no-such-policy' }, 'authPolicyId'],
  ];
  for (const [what, method, body, field] of updateCases) {
    it(`refuses ${what} (cause.field ${field})`, async () => {
      const code = field === 'authPolicyId' ? 'REFERENCED_ENTITY_NOT_FOUND' : 'COULD_NOT_VALIDATE';
      await assertRefused(() => admin[method](`/identities/${existingId}`, body), field, code);
    });
  }

  const disableCases: Array<[string, Body]> = [
    ['a negative duration', { durationMinutes: -1 }],
    ['a fractional duration', { durationMinutes: 1.5 }],
    ['a duration given as a string', { durationMinutes: '5' }],
    ['no duration', {}],
  ];
  for (const [what, body] of disableCases) {
    it(`refuses to disable an identity with ${what}`, async () => {
      await assertRefused(() => admin.post(`/identities/${existingId}/disable`, body), 'durationMinutes');
    });
  }

  const policyCases: Array<[string, Body, string]> = [
    ['a missing name', policy((b) => delete b.name), 'name'],
    ['a name already in use', policy((b) => (b.name = 'existing-policy')), 'name'],
    ['a name over 255 characters', policy((b) => (b.name = 'p'.repeat(256))), 'name'],
    ['a missing primary.updb', policy((b) => delete b.primary.updb), 'primary.updb'],
    ['cert.allowed as a string', policy((b) => (b.primary.cert.allowed = 'yes')), 'primary.cert.allowed'],
    ['minPasswordLength below 5', policy((b) => (b.primary.updb.minPasswordLength = 4)), 'primary.updb.minPasswordLength'],
    ['minPasswordLength above 100', policy((b) => (b.primary.updb.minPasswordLength = 101)), 'primary.updb.minPasswordLength'],
    ['a negative maxAttempts', policy((b) => (b.primary.updb.maxAttempts = -1)), 'primary.updb.maxAttempts'],
    ['a fractional lockoutDurationMinutes', policy((b) => (b.primary.updb.lockoutDurationMinutes = 0.5)), 'primary.updb.lockoutDurationMinutes'],
    ['allowedSigners that is not an array', policy((b) => (b.primary.extJwt.allowedSigners = 'signer')), 'primary.extJwt.allowedSigners'],
    ['an unknown field in updb', policy((b) => (b.primary.updb.maxAge = 3)), 'primary.updb.maxAge'],
    ['requireTotp missing', policy((b) => delete b.secondary.requireTotp), 'secondary.requireTotp'],
    ['neither requireExtJwt nor requireExtJwtSigner', policy((b) => delete b.secondary.requireExtJwt), 'secondary.requireExtJwt'],
    ['requireExtJwt and requireExtJwtSigner that differ', policy((b) => (b.secondary = { requireTotp: false, requireExtJwt: 'a', requireExtJwtSigner: 'b' })), 'secondary.requireExtJwtSigner'],
    ['a tag value that is an array', policy((b) => (b.tags = { a: [] })), 'tags.a'],
    ['an unknown top-level field', policy((b) => (b.isSystem = true)), 'isSystem'],
  ];
  for (const [what, body, field] of policyCases) {
    it(`refuses to create an auth policy with ${what} (cause.field ${field})`, async () => {
      await assertRefused(() => admin.post('/auth-policies', body), field);
    });
  }

  it('refuses a policy PATCH with differing signer names or a bad nested value, changing nothing', async () => {
    await assertRefused(() => admin.patch('/auth-policies/default', { secondary: { requireExtJwt: 'a', requireExtJwtSigner: 'b' } }), 'secondary.requireExtJwtSigner');
    await assertRefused(() => admin.patch('/auth-policies/default', { primary: { updb: { maxAttempts: 'many' } } }), 'primary.updb.maxAttempts');
    await assertRefused(() => admin.put('/auth-policies/default', policy((b) => delete b.primary)), 'primary');
  });
});
