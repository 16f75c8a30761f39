/**
 * The worst inputs of issue 12, point 1 against a real controller: a `filter` of 1 MiB and the longest one a URL can
 * carry, nested parentheses, a sort field repeated 1,500 times, and a 1 MiB OAuth form repeating one name. Each must
 * be answered promptly with a 4xx in the shape of its API (or, for the sort, an ordinary page), never by a stalled
 * event loop or an overflowed stack; how fast is measured in the unit tests, as ratios.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_FILTER_LENGTH, MAX_NESTING_DEPTH } from '../../src/persistence/query/list-query.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, MANAGEMENT, type ManagementClient } from '../helpers/management.js';
import { rawHttpsRequest } from '../helpers/raw-https.js';

const MIB = 1024 * 1024;
/** Far above what any of these takes now (milliseconds), far below the minutes the old form parser took. */
const PROMPTLY = { timeout: 30_000 };

describe(`worst-case inputs end to end (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let token: string;
  before(async () => {
    ctl = await startTestController();
    token = await ctl.adminToken();
    admin = managementClient(ctl, token);
  });
  after(async () => ctl.close());

  it('answers a 1 MiB filter of opening parentheses with 431 in the envelope, before any parsing', PROMPTLY, async () => {
    const res = await rawHttpsRequest(
      { host: '127.0.0.1', port: ctl.ports[0] as number, ca: ctl.ca },
      { method: 'GET', target: `${MANAGEMENT}/identities?filter=${'('.repeat(MIB)}`, headers: [['svc-session', token]] },
    );
    assert.equal(res.status, 431);
    const body = JSON.parse(res.text);
    assert.equal(body.error.code, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    assert.equal(body.error.requestId, res.headers['svc-request-id']?.[0]);
  });

  it('answers the longest filter a URL can carry with 400 INVALID_FILTER naming the length limit', PROMPTLY, async () => {
    const res = await admin.get(`/identities?filter=${'('.repeat(16 * 1024 - 200)}`);
    assert.equal(res.status, 400, res.text);
    const { error } = res.json();
    assert.equal(error.code, 'INVALID_FILTER');
    assert.equal(error.cause.field, 'filter');
    assert.match(error.message, new RegExp(`${MAX_FILTER_LENGTH}-character limit`));
  });

  it('answers parentheses nested within the length limit with 400 INVALID_FILTER naming the depth', PROMPTLY, async () => {
    const depth = (MAX_FILTER_LENGTH - 20) / 2;
    const filter = `${'('.repeat(depth)}name = "x"${')'.repeat(depth)}`;
    const res = await admin.get(`/identities?filter=${encodeURIComponent(filter)}`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json().error.code, 'INVALID_FILTER');
    assert.match(res.json().error.message, new RegExp(`nests deeper than ${MAX_NESTING_DEPTH} levels`));
  });

  it('lists with a sort field repeated as often as the parameter or the filter holds it as with the field once', PROMPTLY, async () => {
    const once = (await admin.get('/identities?sort=name%20desc')).json().data.map((i: { id: string }) => i.id);
    // As many as the 16 KiB request line takes: `name+desc,` is ten characters.
    const parameter = await admin.get(`/identities?sort=${Array(1500).fill('name+desc').join(',')}`);
    assert.equal(parameter.status, 200, parameter.text);
    assert.deepEqual(parameter.json().data.map((i: { id: string }) => i.id), once);
    const clause = await admin.get(`/identities?filter=${encodeURIComponent(`sort by ${Array(360).fill('name desc').join(', ')}`)}`);
    assert.equal(clause.status, 200, clause.text);
    assert.deepEqual(clause.json().data.map((i: { id: string }) => i.id), once);
  });

  it('answers a 1 MiB token request repeating one parameter name with other values with 400 invalid_request', PROMPTLY, async () => {
    const res = await ctl.fetch('/oidc/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=a&grant_type=b&'.repeat(Math.floor((MIB - 64) / 26)),
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json().error, 'invalid_request');
    assert.match(res.json().error_description, /parameter grant_type is given \d+ times with different values/);
  });

  it('reads a 1 MiB token request repeating one parameter with the same value as that one value (decision 0055)', PROMPTLY, async () => {
    const res = await ctl.fetch('/oidc/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=x&'.repeat(Math.floor((MIB - 64) / 13)),
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json().error, 'unsupported_grant_type');
    assert.match(res.json().error_description, /grant_type 'x' is not supported/);
  });
});
