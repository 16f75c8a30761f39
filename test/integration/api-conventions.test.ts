/**
 * The conventions both Edge APIs share, against a real controller over TLS: envelopes, request ids, error
 * codes for malformed input, 404/405, the body limit before authentication, and rule 1 of the 401 answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`API conventions (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
  });
  after(async () => ctl.close());

  it('answers a success in the {data, meta} envelope with a request id header', async () => {
    const res = await ctl.fetch('/edge/client/v1/version');
    assert.equal(res.status, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'meta']);
    assert.match(String(res.headers['svc-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('gives every response its own request id, and repeats it in error bodies', async () => {
    const first = await ctl.fetch('/edge/client/v1/nope');
    const second = await ctl.fetch('/edge/client/v1/nope');
    assert.notEqual(first.headers['svc-request-id'], second.headers['svc-request-id']);
    assert.equal(first.json().error.requestId, first.headers['svc-request-id']);
  });

  it('answers an unknown path with 404 NOT_FOUND in the envelope', async () => {
    const res = await ctl.fetch('/edge/client/v1/no-such-thing');
    assert.equal(res.status, 404);
    const body = res.json();
    assert.equal(body.error.code, 'NOT_FOUND');
    assert.match(body.error.message, /GET \/edge\/client\/v1\/no-such-thing/);
    assert.deepEqual(body.meta, {});
  });

  it('answers a wrong method with 405 METHOD_NOT_ALLOWED and an Allow header', async () => {
    const res = await ctl.fetch('/edge/client/v1/version', { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(res.json().error.code, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET, HEAD');
  });

  it('refuses a body over 1 MiB with 413 before looking at credentials', async () => {
    const big = JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10) });
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.equal(res.json().error.code, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('refuses unparsable JSON with 400 COULD_NOT_PARSE_BODY', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: '{"username": ', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.code, 'COULD_NOT_PARSE_BODY');
  });

  it('refuses a schema violation with 400 COULD_NOT_VALIDATE naming the field in cause', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'abc', password: 'long-enough' } });
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, 'COULD_NOT_VALIDATE');
    assert.equal(error.cause.field, 'username');
    assert.equal(error.cause.value, 'abc');
  });

  it('refuses an unknown body field instead of dropping it', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'admin', password: 'secret', isAdmin: true } });
    assert.equal(res.status, 400);
    assert.equal(res.json().error.cause.field, 'isAdmin');
  });

  it('refuses a missing or unknown authenticate method with 400 naming the query parameter', async () => {
    for (const url of ['/edge/client/v1/authenticate', '/edge/client/v1/authenticate?method=magic']) {
      const res = await ctl.fetch(url, { method: 'POST', body: {} });
      assert.equal(res.status, 400, url);
      const { error } = res.json();
      assert.equal(error.code, 'COULD_NOT_VALIDATE');
      assert.equal(error.cause.in, 'query');
    }
  });

  it('refuses a body with an unsupported content type with 415', async () => {
    const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: '<x/>', headers: { 'content-type': 'application/xml' } });
    assert.equal(res.status, 415);
    assert.equal(res.json().error.code, 'INVALID_CONTENT_TYPE');
  });

  it('answers an operation needing a session, called with no token, with 401 and both challenges (rule 1)', async () => {
    for (const path of ['/edge/client/v1/controllers', '/edge/client/v1/current-api-session', '/edge/management/v1/controllers']) {
      const res = await ctl.fetch(path);
      assert.equal(res.status, 401, path);
      assert.equal(res.json().error.code, 'UNAUTHORIZED');
      const challenges = res.headerValues('www-authenticate');
      assert.equal(challenges.length, 2);
      assert.match(challenges[0]!, /^svc-session realm="svc-session" error="missing" error_description="no matching token was provided"$/);
      assert.match(challenges[1]!, /^Bearer realm="svc-oidc" error="missing" error_description="no matching token was provided"$/);
    }
  });

  it('answers an unknown session token with 401 realm svc-session error invalid', async () => {
    const res = await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': 'not-a-real-token' } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.headerValues('www-authenticate'), ['svc-session realm="svc-session" error="invalid" error_description="token is invalid"']);
  });

  it('answers a Bearer token it did not issue with 401 realm svc-oidc error invalid', async () => {
    const res = await ctl.fetch('/edge/client/v1/controllers', { headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.headerValues('www-authenticate'), ['Bearer realm="svc-oidc" error="invalid" error_description="token is invalid"']);
  });
});
