/**
 * The memory lane (decision 0042): the SDKs' polling routes answered before Fastify when the caller and the answer
 * are kept in memory. It must answer exactly what Fastify answers (status, headers, body), stand aside for anything
 * else so every refusal is Fastify's, count its answers in the request metrics, and stop when the listener closes.
 * Real controller over TLS (the lane sits on the listening server), both dialects. A query the route ignores makes
 * the same request one the lane never answers: it is how each answer is compared with Fastify's.
 */
import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { memoryLaneOf } from '../../src/http/listener-app.js';
import type { MemoryLane } from '../../src/http/kit/memory-lane.js';
import { manualClock } from '../../src/shared/clock.js';
import { managementClient } from '../helpers/management.js';
import { testDialect } from '../helpers/database.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { createIdentity } from '../helpers/fixtures.js';
import { nonAdminToken } from '../helpers/management.js';
import { passwordLoginTokens } from '../helpers/oidc.js';
import type { TestResponse } from '../helpers/https.js';

const CLIENT = '/edge/client/v1';
/** Fields of a session's own view that hold the time of the request. */
const REQUEST_TIMES = ['lastActivityAt', 'updatedAt', 'cachedLastActivityAt', 'cachedUpdatedAt', 'expiresAt', 'expirationSeconds'];
/** Headers whose values differ from one request to the next. */
const PER_REQUEST_HEADERS = ['svc-request-id', 'date', 'expires-at', 'expiration-seconds'];

/**
 * Requests `path` until the lane answers it (the first requests read the store, and on PostgreSQL a copy read while
 * the change feed learns of the test's own writes is not kept); the lane's answer.
 */
async function untilLaneAnswers(ctl: TestController, lane: MemoryLane, path: string, headers: Record<string, string>): Promise<TestResponse> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const before = lane.answered;
    const res = await ctl.fetch(path, { headers });
    if (lane.answered === before + 1) return res;
    assert.equal(res.status, 200, res.text);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the lane never answered ${path}`);
}

describe(`memory lane (${testDialect})`, () => {
  let ctl: TestController;
  let lane: NonNullable<ReturnType<typeof memoryLaneOf>>;
  before(async () => {
    ctl = await startTestController();
    const found = memoryLaneOf(ctl.running.apps[0]!.app);
    assert.ok(found, 'a listening controller has a memory lane');
    lane = found;
  });
  after(async () => ctl.close());

  const laneAnswer = (path: string, headers: Record<string, string>) => untilLaneAnswers(ctl, lane, path, headers);

  /** The same request through Fastify: the lane takes only a route's exact path. */
  async function fastifyAnswer(path: string, headers: Record<string, string>): Promise<TestResponse> {
    const before = lane.answered;
    const res = await ctl.fetch(`${path}?via=fastify`, { headers });
    assert.equal(lane.answered, before, 'a URL with a query is not the lane’s');
    return res;
  }

  const withoutTimes = (body: any) => ({ ...body, data: Object.fromEntries(Object.entries(body.data).filter(([name]) => !REQUEST_TIMES.includes(name))) });
  const stableHeaders = (res: TestResponse) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_REQUEST_HEADERS.includes(name)));

  function assertSameAnswer(fromLane: TestResponse, fromFastify: TestResponse, timed: boolean) {
    assert.equal(fromLane.status, 200);
    assert.equal(fromFastify.status, 200);
    assert.deepEqual(Object.keys(fromLane.headers), Object.keys(fromFastify.headers), 'the same headers, in the same order');
    assert.deepEqual(stableHeaders(fromLane), stableHeaders(fromFastify));
    assert.match(String(fromLane.headers['svc-request-id']), /^[0-9a-f-]{36}$/);
    assert.notEqual(fromLane.headers['svc-request-id'], fromFastify.headers['svc-request-id']);
    assert.ok(Number(fromLane.headers['expiration-seconds']) > 0);
    assert.equal(new Date(String(fromLane.headers['expires-at'])).toISOString(), fromLane.headers['expires-at']);
    if (timed) assert.deepEqual(withoutTimes(fromLane.json()), withoutTimes(fromFastify.json()));
    else assert.equal(fromLane.text, fromFastify.text, 'byte for byte');
  }

  it('answers the three polling routes with what Fastify answers, for a legacy session', async () => {
    const headers = { 'svc-session': await nonAdminToken(ctl, 'lane-legacy') };
    for (const [path, timed] of [
      [`${CLIENT}/current-identity`, false],
      [`${CLIENT}/current-api-session`, true],
    ] as const) {
      const fromLane = await laneAnswer(path, headers);
      assertSameAnswer(fromLane, await fastifyAnswer(path, headers), timed);
    }
    const updates = `${CLIENT}/current-api-session/service-updates`;
    if (testDialect === 'sqlite') assertSameAnswer(await laneAnswer(updates, headers), await fastifyAnswer(updates, headers), false);
    else {
      // On a store shared by several controllers every poll reads the change log, so that they all answer the same
      // time (decision 0041): the lane stands aside, and Fastify answers with the caller the lane authenticated.
      const before = lane.answered;
      const polled = await ctl.fetch(updates, { headers });
      assert.equal(lane.answered, before);
      assert.equal(polled.status, 200);
      assert.equal(polled.text, (await fastifyAnswer(updates, headers)).text);
    }
    const session = (await laneAnswer(`${CLIENT}/current-api-session`, headers)).json().data;
    assert.equal(session.token, headers['svc-session']);
    assert.equal(session.identity.name, 'lane-legacy');
  });

  it('answers an OIDC access token as Fastify does, and the management API’s copy of the routes', async () => {
    await ctl.adminToken();
    const { accessToken } = await passwordLoginTokens(ctl, 'admin', 'admin-password');
    const headers = { authorization: `Bearer ${accessToken}` };
    assertSameAnswer(await laneAnswer(`${CLIENT}/current-identity`, headers), await fastifyAnswer(`${CLIENT}/current-identity`, headers), false);
    const management = '/edge/management/v1/current-api-session';
    const fromLane = await laneAnswer(management, headers);
    assertSameAnswer(fromLane, await fastifyAnswer(management, headers), true);
    assert.equal(fromLane.json().data.token, accessToken);
  });

  it('stands aside for what it does not answer, and Fastify answers it as before', async () => {
    const token = await nonAdminToken(ctl, 'lane-aside');
    const headers = { 'svc-session': token };
    await laneAnswer(`${CLIENT}/current-identity`, headers);
    const before = lane.answered;
    // Not a plain GET of the path: HEAD, a body, a bad or missing credential, a route the lane does not serve.
    assert.equal((await ctl.fetch(`${CLIENT}/current-identity`, { method: 'HEAD', headers })).status, 200);
    assert.equal((await ctl.fetch(`${CLIENT}/current-identity`, { headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })).status, 200);
    const unknown = await ctl.fetch(`${CLIENT}/current-identity`, { headers: { 'svc-session': 'not-a-session' } });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.json().error.code, 'UNAUTHORIZED');
    assert.match(unknown.headerValues('www-authenticate').join(), /svc-session.*invalid/);
    const none = await ctl.fetch(`${CLIENT}/current-identity`);
    assert.equal(none.status, 401);
    assert.equal(none.headerValues('www-authenticate').length, 2, 'both realms challenged');
    assert.equal((await ctl.fetch(`${CLIENT}/current-identity/authenticators`, { headers })).status, 200);
    assert.equal(lane.answered, before, 'none of these was the lane’s');
  });

  it('reads the credential of every request on one kept-alive connection, whatever the connection sent before', async () => {
    // An SDK keeps its connection and sends the same token on each request; what a connection sent last is kept with
    // the tokens read from it (http/kit/credentials.ts). Another token, or none, on the same connection is its own.
    await createIdentity(ctl.running.database, { name: 'lane-conn-a', username: 'lane-conn-a', password: 'lane-conn-a-password' });
    await createIdentity(ctl.running.database, { name: 'lane-conn-b', username: 'lane-conn-b', password: 'lane-conn-b-password' });
    const a = (await passwordLoginTokens(ctl, 'lane-conn-a', 'lane-conn-a-password')).accessToken;
    const b = (await passwordLoginTokens(ctl, 'lane-conn-b', 'lane-conn-b-password')).accessToken;
    const legacy = await nonAdminToken(ctl, 'lane-conn-c');
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: ctl.ca });
    const ports = new Set<number>();
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; name?: string }>((resolve, reject) => {
        const req = httpsRequest(`${ctl.baseUrl}${CLIENT}/current-identity`, { agent, headers }, (res) => {
          ports.add(res.socket.localPort as number);
          let text = '';
          res.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, name: JSON.parse(text).data?.name }));
        });
        req.on('error', reject).end();
      });
    try {
      const as = (token: string) => get({ authorization: `Bearer ${token}` });
      const before = lane.answered;
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(await as(a), { status: 200, name: 'lane-conn-a' });
        assert.deepEqual(await as(a), { status: 200, name: 'lane-conn-a' });
        assert.deepEqual(await as(b), { status: 200, name: 'lane-conn-b' });
        assert.equal((await as(`${a.slice(0, -2)}${a.endsWith('AA') ? 'BB' : 'AA'}`)).status, 401, 'an altered token');
        assert.equal((await get({})).status, 401, 'no credential');
        assert.deepEqual(await get({ 'svc-session': legacy }), { status: 200, name: 'lane-conn-c' });
        assert.deepEqual(await as(b), { status: 200, name: 'lane-conn-b' });
      }
      assert.equal(ports.size, 1, 'every request went over one connection');
      assert.ok(lane.answered > before, 'the lane answered some of them');
    } finally {
      agent.destroy();
    }
  });

  it('never answers a session that has ended: the next request is refused', async () => {
    const headers = { 'svc-session': await nonAdminToken(ctl, 'lane-logout') };
    await laneAnswer(`${CLIENT}/current-api-session`, headers);
    assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers })).status, 200);
    const before = lane.answered;
    for (const path of [`${CLIENT}/current-api-session`, `${CLIENT}/current-identity`, `${CLIENT}/current-api-session/service-updates`]) {
      const res = await ctl.fetch(path, { headers });
      assert.equal(res.status, 401, path);
      assert.match(res.headerValues('www-authenticate').join(), /svc-session/);
    }
    assert.equal(lane.answered, before);
  });

  it('counts its answers in the request metrics under the route template', async () => {
    const headers = { 'svc-session': await nonAdminToken(ctl, 'lane-metrics') };
    const route = `${CLIENT}/current-identity`;
    const count = async () => {
      const { body } = await ctl.running.services.metrics.exposition();
      const line = body.split('\n').find((l) => l.startsWith('svc_http_requests_total{') && l.includes(`route="${route}"`) && l.includes('status="200"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    await laneAnswer(route, headers);
    const before = await count();
    await laneAnswer(route, headers);
    await laneAnswer(route, headers);
    assert.equal(await count(), before + 2);
  });

  it('hands every request to Fastify once closed', async () => {
    const headers = { 'svc-session': await nonAdminToken(ctl, 'lane-closed') };
    await laneAnswer(`${CLIENT}/current-identity`, headers);
    lane.close();
    const before = lane.answered;
    assert.equal((await ctl.fetch(`${CLIENT}/current-identity`, { headers })).status, 200);
    assert.equal(lane.answered, before);
  });
});

describe(`memory lane on a stopped clock (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let lane: MemoryLane;
  before(async () => {
    ctl = await startTestController({ clock });
    lane = memoryLaneOf(ctl.running.apps[0]!.app)!;
  });
  after(async () => ctl.close());

  it('answers an unchanged session view with the same bytes, and a view whose session or identity changed anew', async () => {
    const headers = { 'svc-session': await nonAdminToken(ctl, 'lane-still') };
    const path = `${CLIENT}/current-api-session`;
    const first = await untilLaneAnswers(ctl, lane, path, headers);
    assert.equal((await untilLaneAnswers(ctl, lane, path, headers)).text, first.text, 'nothing moved: the same view');
    clock.advance(1_500);
    const later = (await untilLaneAnswers(ctl, lane, path, headers)).json().data;
    assert.equal(later.lastActivityAt, new Date(Date.parse(first.json().data.lastActivityAt) + 1_500).toISOString(), 'its activity moved');
    const id = first.json().data.identityId;
    const admin = managementClient(ctl, await ctl.adminToken());
    assert.equal((await admin.patch(`/identities/${id}`, { name: 'lane-renamed' })).status, 200);
    // The view must follow at once on SQLite; on PostgreSQL the copy is renewed within the change feed's bound.
    for (let attempt = 0; attempt < 40; attempt++) {
      const name = (await ctl.fetch(path, { headers })).json().data.identity.name;
      if (name === 'lane-renamed') return;
      assert.ok(testDialect === 'postgres', `still ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail('the view kept the old name');
  });
});

describe(`memory lane on the in-process test tier (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
  });
  after(async () => ctl.close());

  it('answers an SDK poll of an in-process controller from memory, as a listening one does, and leaves the rest to Fastify', async () => {
    const lane = memoryLaneOf(ctl.running.apps[0]!.app);
    assert.ok(lane, 'an in-process controller has a memory lane');
    const token = await nonAdminToken(ctl, 'in-process-poller');
    const res = await untilLaneAnswers(ctl, lane, `${CLIENT}/current-api-session`, { 'svc-session': token });
    assert.equal(res.status, 200);
    assert.equal(res.json().data.identity.name, 'in-process-poller');
    // Control: a query makes it Fastify's, which answers the same caller without the lane.
    const before = lane.answered;
    const viaFastify = await ctl.fetch(`${CLIENT}/current-api-session?via=fastify`, { headers: { 'svc-session': token } });
    assert.equal(viaFastify.status, 200);
    assert.equal(lane.answered, before);
  });
});

