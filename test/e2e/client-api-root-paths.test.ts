/**
 * The Edge Client API without its prefix (issue 11, point 5), as SDKs in legacy mode call it: `/authenticate` at
 * the server root and `/edge/v1/…` are the client API; the other roots keep their owners. And restart detection
 * (point 6): every response carries `svc-instance-id`, new at each start.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';

describe(`the client API at the server root (${testDialect})`, () => {
  let ctl: TestController;
  let token: string;
  before(async () => {
    ctl = await startTestController();
    await createIdentity(ctl.running.database, { name: 'rooted', username: 'rooted', password: 'rooted-password' });
    const login = await ctl.fetch('/authenticate?method=password', { method: 'POST', body: { username: 'rooted', password: 'rooted-password' } });
    assert.equal(login.status, 200, login.text);
    token = String(login.headers['svc-session']);
  });
  after(async () => ctl.close());

  it('logs in at /authenticate and serves the session at the root and under /edge/v1', async () => {
    for (const path of ['/current-api-session', '/edge/v1/current-api-session', '/edge/client/v1/current-api-session']) {
      const res = await ctl.fetch(path, { headers: { 'svc-session': token } });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.json().data.identity.name, 'rooted');
    }
    const identity = await ctl.fetch('/current-identity?x=1', { headers: { 'svc-session': token } });
    assert.equal(identity.status, 200, identity.text);
  });

  it('logs in by certificate at /authenticate?method=cert, as legacy SDKs post it', async () => {
    const device = await createIdentity(ctl.running.database, { name: 'root-device' });
    const cert = await issueClientCertificate(ctl.pki, device.id);
    await addCertAuthenticator(ctl.running.database, device.id, cert.leafPem);
    const res = await ctl.fetch('/authenticate?method=cert', { method: 'POST', cert: cert.certPem, key: cert.keyPem, body: {} });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json().data.identity.id, device.id);
  });

  it('leaves the other roots to their owners', async () => {
    const version = await ctl.fetch('/version');
    assert.equal(version.status, 200);
    assert.ok(version.json().data.version);
    assert.equal((await ctl.fetch('/')).status, 200);
    assert.equal((await ctl.fetch('/.well-known/openid-configuration')).status, 200);
    assert.equal((await ctl.fetch('/oidc/keys')).status, 200);
    // The management API is not reachable through the client API's root mapping, nor the reverse.
    const management = await ctl.fetch('/edge/management/v1/identities', { headers: { 'svc-session': token } });
    assert.equal(management.status, 403, management.text);
    assert.equal((await ctl.fetch('/identities', { headers: { 'svc-session': token } })).status, 404);
  });

  it('answers an unknown root path with 404 in the envelope and a wrong method with 405', async () => {
    const unknown = await ctl.fetch('/no-such-thing');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error.code, 'NOT_FOUND');
    const wrong = await ctl.fetch('/current-api-session', { method: 'PUT', headers: { 'svc-session': token } });
    assert.equal(wrong.status, 405);
    assert.ok(String(wrong.headers.allow).includes('GET'));
    assert.equal((await ctl.fetch('/edge/v2/current-api-session', { headers: { 'svc-session': token } })).status, 404);
  });
});

describe(`restart detection (${testDialect})`, () => {
  it('sends the same svc-instance-id on every response of one run, and a new one after a restart', async () => {
    const first = await startTestController();
    let before: string;
    let ports: number[];
    try {
      ports = first.ports;
      const answers = await Promise.all(['/edge/client/v1/version', '/edge/management/v1/version', '/oidc/keys', '/no-such-thing'].map((path) => first.fetch(path)));
      before = String(answers[0]!.headers['svc-instance-id']);
      assert.match(before, /^[0-9a-f-]{36}$/);
      for (const res of answers) assert.equal(res.headers['svc-instance-id'], before);
    } finally {
      await first.close();
    }
    const second = await startTestController({ ports });
    try {
      const after = String((await second.fetch('/edge/client/v1/version')).headers['svc-instance-id']);
      assert.match(after, /^[0-9a-f-]{36}$/);
      assert.notEqual(after, before);
    } finally {
      await second.close();
    }
  });
});
