/**
 * Enrollments in the Edge Management API: administrators create, read, list, refresh and delete them; the rules
 * (one pending enrollment per method, one authenticator per method, unique usernames, future expiry) answer
 * with the documented codes; every change lands in the audit trail without secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createEnrollment, makeCsr, postEnrollment } from '../helpers/enrollment.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';

const HOUR = 3_600_000;
const inAnHour = () => new Date(Date.now() + HOUR).toISOString();

describe(`enrollment management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: Record<string, string>;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = { 'svc-session': await ctl.adminToken() };
  });
  after(async () => ctl.close());

  const db = () => ctl.running.database;
  const api = (path: string, options: { method?: string; body?: object } = {}) =>
    ctl.fetch(`/edge/management/v1${path}`, { ...options, headers: admin });
  const auditOf = (entityId: string) =>
    db().db.selectFrom('audit_log').selectAll().where('entity_type', '=', 'enrollment').where('entity_id', '=', entityId).orderBy('created_at').execute();

  it('creates an enrollment (201 with its link) whose detail carries token, JWT and expiry, and records who did it', async () => {
    const identity = await createIdentity(db(), { name: 'laptop' });
    const expiresAt = inAnHour();
    const res = await postEnrollment(ctl, { method: 'ott', identityId: identity.id, expiresAt });
    assert.equal(res.status, 201, res.text);
    const { id } = res.json().data;
    assert.deepEqual(res.json(), { data: { id, _links: { self: { href: `./enrollments/${id}` } } }, meta: {} });

    const detail = (await api(`/enrollments/${id}`)).json().data;
    assert.deepEqual(Object.keys(detail).sort(), ['_links', 'createdAt', 'expiresAt', 'id', 'identityId', 'jwt', 'method', 'tags', 'token', 'updatedAt']);
    assert.equal(detail.method, 'ott');
    assert.equal(detail.identityId, identity.id);
    assert.equal(detail.expiresAt, new Date(expiresAt).toISOString());
    assert.match(detail.token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(detail.jwt.split('.').length, 3);
    assert.equal(detail._links.identity.href, `./identities/${identity.id}`);

    const [entry] = await auditOf(id);
    assert.equal(entry?.action, 'create');
    assert.equal(entry?.actor_name, 'admin');
    assert.doesNotMatch(entry?.details ?? '', new RegExp(detail.token), 'the token is a secret');
    assert.deepEqual((await ctl.running.services.enrollments.pendingForIdentity(identity.id)).map((e) => e.id), [id]);
  });

  it('refuses a second pending enrollment of one method, and one for a method whose authenticator exists, with 409 ENROLLMENT_EXISTS', async () => {
    const identity = await createIdentity(db(), { name: 'phone' });
    await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const second = await postEnrollment(ctl, { method: 'ott', identityId: identity.id, expiresAt: inAnHour() });
    assert.equal(second.status, 409);
    assert.equal(second.json().error.code, 'ENROLLMENT_EXISTS');

    const withCert = await createIdentity(db(), { name: 'has-cert' });
    await addCertAuthenticator(db(), withCert.id, (await issueClientCertificate(ctl.pki, withCert.id)).leafPem);
    const ott = await postEnrollment(ctl, { method: 'ott', identityId: withCert.id, expiresAt: inAnHour() });
    assert.equal(ott.status, 409);
    assert.match(ott.json().error.message, /already has a certificate authenticator/);

    const withPassword = await createIdentity(db(), { name: 'has-password', username: 'has-password', password: 'some-password' });
    const updb = await postEnrollment(ctl, { method: 'updb', identityId: withPassword.id, username: 'another-name', expiresAt: inAnHour() });
    assert.equal(updb.status, 409);
    assert.match(updb.json().error.message, /already has a password authenticator/);
    for (const { id } of [withCert, withPassword]) {
      assert.equal((await db().db.selectFrom('enrollments').select('id').where('identity_id', '=', id).execute()).length, 0);
    }
  });

  it('refuses a updb enrollment without a usable username with 400 COULD_NOT_VALIDATE naming username', async () => {
    const identity = await createIdentity(db(), { name: 'username-checks' });
    const other = await createIdentity(db(), { name: 'holds-a-name' });
    await createEnrollment(ctl, { identityId: other.id, method: 'updb', username: 'reserved-name' });
    for (const username of [undefined, 'abc', 'x'.repeat(101), 'admin', 'reserved-name']) {
      const res = await postEnrollment(ctl, { method: 'updb', identityId: identity.id, expiresAt: inAnHour(), ...(username === undefined ? {} : { username }) });
      assert.equal(res.status, 400, String(username));
      assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE');
      assert.equal(res.json().error.cause.field, 'username');
    }
    const ott = await postEnrollment(ctl, { method: 'ott', identityId: identity.id, expiresAt: inAnHour(), username: 'not-for-ott' });
    assert.equal(ott.json().error.cause.field, 'username');
  });

  it('refuses unknown identities, past or malformed expiries, unknown methods and unknown fields', async () => {
    const identity = await createIdentity(db(), { name: 'bad-requests' });
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ method: 'ott', identityId: 'no-such-identity', expiresAt: inAnHour() }, 400, 'REFERENCED_ENTITY_NOT_FOUND', 'identityId'],
      [{ method: 'ott', identityId: identity.id, expiresAt: new Date(Date.now() - 1000).toISOString() }, 400, 'COULD_NOT_VALIDATE', 'expiresAt'],
      [{ method: 'ott', identityId: identity.id, expiresAt: 'tomorrow' }, 400, 'COULD_NOT_VALIDATE', 'expiresAt'],
      [{ method: 'ott', identityId: identity.id }, 400, 'COULD_NOT_VALIDATE', 'expiresAt'],
      [{ method: 'ottca', identityId: identity.id, expiresAt: inAnHour() }, 400, 'COULD_NOT_VALIDATE', 'caId'],
      [{ method: 'ca', identityId: identity.id, expiresAt: inAnHour() }, 400, 'COULD_NOT_VALIDATE', 'method'],
      [{ method: 'ott', identityId: identity.id, expiresAt: inAnHour(), caId: 'x' }, 400, 'COULD_NOT_VALIDATE', 'caId'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await postEnrollment(ctl, body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.json().error.code, code, JSON.stringify(body));
      assert.equal(res.json().error.cause.field, field, JSON.stringify(body));
    }
    assert.equal((await db().db.selectFrom('enrollments').select('id').where('identity_id', '=', identity.id).execute()).length, 0);
  });

  it('lists enrollments with filters, paging and the filterable fields', async () => {
    const identity = await createIdentity(db(), { name: 'listed' });
    const ott = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const updb = await createEnrollment(ctl, { identityId: identity.id, method: 'updb', username: 'listed-user' });
    const res = await api(`/enrollments?filter=${encodeURIComponent(`identityId = "${identity.id}" sort by method`)}`);
    assert.equal(res.status, 200, res.text);
    const { data, meta } = res.json();
    assert.deepEqual(data.map((e: { id: string }) => e.id), [ott.id, updb.id]);
    assert.equal(data[1].username, 'listed-user');
    assert.deepEqual(meta.filterableFields, ['id', 'identityId', 'method', 'expiresAt', 'createdAt']);
    assert.equal(meta.pagination.totalCount, 2);
    const bad = await api('/enrollments?filter=token%20%3D%20%22x%22');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().error.code, 'INVALID_FILTER');
  });

  it('refreshes an enrollment with a new token, JWT and expiry, and refuses a past expiry or an unknown id', async () => {
    const identity = await createIdentity(db(), { name: 'refreshed' });
    const before = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const expiresAt = new Date(Date.now() + 2 * HOUR).toISOString();
    const res = await api(`/enrollments/${before.id}/refresh`, { method: 'POST', body: { expiresAt } });
    assert.equal(res.status, 200, res.text);
    const after = res.json().data;
    assert.equal(after.id, before.id);
    assert.notEqual(after.token, before.token);
    assert.notEqual(after.jwt, before.jwt);
    assert.equal(after.expiresAt, expiresAt);
    assert.deepEqual((await api(`/enrollments/${before.id}`)).json().data, after);
    assert.deepEqual((await auditOf(before.id)).map((e) => e.action), ['create', 'refresh']);

    const past = await api(`/enrollments/${before.id}/refresh`, { method: 'POST', body: { expiresAt: new Date(Date.now() - HOUR).toISOString() } });
    assert.equal(past.status, 400);
    assert.equal(past.json().error.cause.field, 'expiresAt');
    assert.equal((await api('/enrollments/nope/refresh', { method: 'POST', body: { expiresAt } })).status, 404);
  });

  it('deletes an enrollment, after which its token is refused and it is gone', async () => {
    const identity = await createIdentity(db(), { name: 'deleted' });
    const enrollment = await createEnrollment(ctl, { identityId: identity.id, method: 'ott' });
    const res = await api(`/enrollments/${enrollment.id}`, { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { data: {}, meta: {} });
    assert.equal((await api(`/enrollments/${enrollment.id}`)).status, 404);
    assert.equal((await api(`/enrollments/${enrollment.id}`, { method: 'DELETE' })).status, 404);
    const enroll = await ctl.fetch(`/edge/client/v1/enroll/ott?token=${enrollment.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-pem-file' },
      body: (await makeCsr()).pem,
    });
    assert.equal(enroll.json().error.code, 'INVALID_ENROLLMENT_TOKEN');
    assert.deepEqual((await auditOf(enrollment.id)).map((e) => e.action), ['create', 'delete']);
  });

  it('is for administrators only: 401 without a session, 403 for other identities', async () => {
    await createIdentity(db(), { name: 'plain-user', username: 'plain-user', password: 'plain-password' });
    const session = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'plain-user', password: 'plain-password' } });
    const token = session.json().data.token;
    assert.equal((await ctl.fetch('/edge/management/v1/enrollments')).status, 401);
    assert.equal((await ctl.fetch('/edge/management/v1/enrollments', { headers: { 'svc-session': token } })).status, 403);
    const post = await ctl.fetch('/edge/management/v1/enrollments', { method: 'POST', headers: { 'svc-session': token }, body: {} });
    assert.equal(post.status, 403);
  });

  it('describes the enrollment operations in both OpenAPI documents', async () => {
    const management = (await ctl.fetch('/edge/management/v1/specs/edge-management/spec')).json().data;
    for (const path of ['/enrollments', '/enrollments/{id}', '/enrollments/{id}/refresh']) assert.ok(management.paths[path], path);
    const client = (await ctl.fetch('/edge/client/v1/specs/edge-client/spec')).json().data;
    for (const path of ['/enroll', '/enroll/ott', '/enroll/updb', '/enroll/jwks']) assert.ok(client.paths[path], path);
  });
});
