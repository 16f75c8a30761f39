/**
 * Informational and well-known operations: version (and its aliases), capabilities, protocols, the served
 * OpenAPI specs, and the EST CA bundle, all without a session.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`informational operations (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController();
  });
  after(async () => ctl.close());

  it('reports version, build info and the base URL of every bound API', async () => {
    const { data, meta } = (await ctl.fetch('/edge/client/v1/version')).json();
    assert.deepEqual(meta, {});
    assert.match(data.version, /^\d+\.\d+\.\d+/);
    assert.equal(typeof data.revision, 'string');
    assert.equal(data.runtimeVersion, process.version);
    assert.deepEqual(data.apiVersions['edge-client'].v1, { path: '/edge/client/v1', version: '1', apiBaseUrls: [`${ctl.baseUrl}/edge/client/v1`] });
    assert.deepEqual(data.apiVersions['edge-management'].v1.apiBaseUrls, [`${ctl.baseUrl}/edge/management/v1`]);
    assert.deepEqual(data.apiVersions['edge-oidc'].v1.apiBaseUrls, [`${ctl.baseUrl}/oidc`]);
    assert.ok(data.capabilities.includes('OIDC_AUTH'));
  });

  it('serves the same version document at /, /version and the client API root', async () => {
    const expected = (await ctl.fetch('/edge/client/v1/version')).json().data;
    for (const path of ['/', '/version', '/edge/client/v1/', '/edge/management/v1/version']) {
      const res = await ctl.fetch(path);
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.json().data, expected, path);
    }
  });

  it('lists every capability it knows, enabled or not', async () => {
    const { data } = (await ctl.fetch('/edge/client/v1/enumerated-capabilities')).json();
    assert.deepEqual(data, ['OIDC_AUTH', 'HA_CONTROLLER']);
  });

  it('lists the listening edge protocols with the edge API address', async () => {
    const { data } = (await ctl.fetch('/edge/client/v1/protocols')).json();
    assert.deepEqual(data, { https: { address: ctl.baseUrl.replace('https://', '') } });
  });

  it('lists the API specs and serves each one, with 404 for an unknown id', async () => {
    const list = (await ctl.fetch('/edge/client/v1/specs')).json();
    assert.deepEqual(list.data.map((s: { id: string }) => s.id), ['edge-client', 'edge-management']);
    assert.equal(list.meta.pagination.totalCount, 2);
    const one = (await ctl.fetch('/edge/client/v1/specs/edge-client')).json();
    assert.equal(one.data._links.spec.href, './specs/edge-client/spec');
    const missing = await ctl.fetch('/edge/client/v1/specs/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.json().error.message, /nope/);
  });

  it('serves an OpenAPI document generated from the same schemas that validate requests', async () => {
    const doc = (await ctl.fetch('/edge/client/v1/specs/edge-client/spec')).json().data;
    assert.equal(doc.openapi, '3.0.3');
    assert.deepEqual(doc.servers, [{ url: `${ctl.baseUrl}/edge/client/v1` }]);
    const auth = doc.paths['/authenticate'].post;
    const method = auth.parameters.find((p: { name: string }) => p.name === 'method');
    assert.equal(method.required, true);
    const body = auth.requestBody.content['application/json'].schema;
    assert.equal(body.properties.username.minLength, 4);
    assert.equal(body.properties.password.maxLength, 100);
    assert.deepEqual(doc.paths['/controllers'].get.security, [{ svcSession: [] }, { oauth2: ['openid'] }]);
    assert.deepEqual(doc.paths['/version'].get.security, []);
    assert.deepEqual(Object.keys(doc.paths['/enroll/ott'].post.requestBody.content), ['application/x-pem-file', 'application/pkcs10', 'text/plain']);
    assert.equal(doc.components.securitySchemes.svcSession.name, 'svc-session');
  });

  it('serves the CA bundle as base64 PKCS#7 without authentication, at the root and under the client API', async () => {
    for (const path of ['/.well-known/est/cacerts', '/edge/client/v1/.well-known/est/cacerts']) {
      const res = await ctl.fetch(path);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/pkcs7-mime');
      assert.match(res.text, /^[A-Za-z0-9+/=\n]+$/);
      const der = Buffer.from(res.text, 'base64');
      if (existsSync('/usr/bin/openssl')) {
        const printed = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: der, encoding: 'utf8' });
        assert.equal(printed.match(/-----BEGIN CERTIFICATE-----/g)?.length, 2, 'root and intermediate CA');
      }
    }
  });
});
