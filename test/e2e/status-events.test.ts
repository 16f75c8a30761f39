/**
 * The live status stream (`GET /edge/management/v1/events/status`, issue 45): server-sent events of a real router
 * coming online and going offline over its control channel, pushed as they happen (no polling), with the router's
 * name and version; refusals for no session, a non-administrator and too many streams; the stream ends when the
 * controller stops, without delaying it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningRouter } from '../../src/router/run.js';
import { STREAMS_PER_IDENTITY } from '../../src/http/edge-management/status-events.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { identityStates, openStatusStream, type StatusStream } from '../helpers/status-stream.js';
import { createIdentity } from '../helpers/fixtures.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';
import { passwordLoginTokens, postForm } from '../helpers/oidc.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';

describe(`live status events (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let token: string;
  let router: EnrolledRouter;
  let running: RunningRouter | undefined;

  before(async () => {
    ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    token = await ctl.adminToken();
    admin = managementClient(ctl, token);
    router = await enrolledRouter(admin, (t, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${t}`, { method: 'POST', body }), 'live-router', {
      endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`],
    });
  });
  after(async () => {
    await running?.stop().catch(() => undefined);
    router?.remove();
    await ctl?.close().catch(() => undefined);
  });

  it('pushes a router coming online and going offline, with its name and version, as it happens', async () => {
    const stream = await openStatusStream(ctl, token);
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')), 'a hello first');
    running = (await runRouterInProcess(router)).running;
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'router' && e.data.isOnline === true)), stream.text());
    const up = stream.events.find((e) => e.event === 'router')!.data;
    assert.equal(up.id, router.id);
    assert.equal(up.name, 'live-router');
    assert.equal(up.version, '0.0.0-test');
    await running.stop();
    running = undefined;
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'router' && e.data.isOnline === false)), JSON.stringify(stream.events));
    assert.equal(stream.events.filter((e) => e.event === 'router').at(-1)!.data.id, router.id);
    stream.close();
  });

  it('refuses no session (401), a non-administrator (403), and a stream over the limit per identity (429)', async () => {
    assert.equal((await openStatusStream(ctl, undefined)).status, 401);
    const plain = await openStatusStream(ctl, await nonAdminToken(ctl, 'live-plain'));
    assert.equal(plain.status, 403);
    const streams: StatusStream[] = [];
    for (let i = 0; i < STREAMS_PER_IDENTITY; i++) streams.push(await openStatusStream(ctl, token));
    assert.deepEqual(streams.map((s) => s.status), streams.map(() => 200));
    const over = await openStatusStream(ctl, token);
    assert.equal(over.status, 429);
    await over.ended;
    // Closing one makes room again.
    streams[0]!.close();
    assert.ok(await eventually(async () => {
      const again = await openStatusStream(ctl, token);
      again.close();
      return again.status === 200;
    }));
    for (const s of streams) s.close();
  });

  /** A new identity with a password, and a way to log it in through the legacy API. */
  async function passwordIdentity(name: string) {
    const identity = await createIdentity(ctl.running.database, { name, username: name, password: 'live-password' });
    const login = async () => {
      const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: name, password: 'live-password' } });
      assert.equal(res.status, 200, res.text);
      return res.json().data as { id: string; token: string };
    };
    return { id: identity.id, login };
  }

  it('pushes an identity going online at a password login and offline at its logout, with its name, as the API reports it', async () => {
    // An unknown query parameter keeps the answer it had: the stream.
    const stream = await openStatusStream(ctl, token, '?unknown=1');
    assert.equal(stream.status, 200);
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
    assert.deepEqual(stream.events.find((e) => e.event === 'hello')!.data.events, ['router', 'identity']);
    const user = await passwordIdentity('live-user');
    const session = await user.login();
    assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === true), stream.text());
    const online = stream.events.find((e) => e.event === 'identity' && e.data.id === user.id)!.data;
    assert.equal(online.name, 'live-user');
    assert.equal(online.hasEdgeRouterConnection, false);
    assert.equal((await admin.get(`/identities/${user.id}`)).json().data.hasApiSession, true);

    const logout = await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': session.token } });
    assert.equal(logout.status, 200, logout.text);
    assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === false), JSON.stringify(stream.events));
    assert.equal((await admin.get(`/identities/${user.id}`)).json().data.hasApiSession, false);
    stream.close();
  });

  it('keeps a quiet stream open past the listener\'s inactivity deadline, and still delivers on it', async () => {
    // The listener closes sockets quiet for its read + write deadlines: 1 s here. A stream with nothing to say for
    // three times that must still be open and deliver the next change (it was cut at that deadline before).
    const quick = await startTestController({
      modify: (config) => (config.web[0].options = { ...(config.web[0].options ?? {}), readTimeout: '500ms', writeTimeout: '500ms' }),
    });
    try {
      const stream = await openStatusStream(quick, await quick.adminToken());
      assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
      let ended = false;
      void stream.ended.then(() => (ended = true));
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal(ended, false, 'the stream was closed while quiet');
      const identity = await createIdentity(quick.running.database, { name: 'live-quiet', username: 'live-quiet', password: 'live-password' });
      const res = await quick.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: 'live-quiet', password: 'live-password' } });
      assert.equal(res.status, 200, res.text);
      assert.ok(await eventually(() => identityStates(stream, identity.id).at(-1) === true), stream.text());
      stream.close();
    } finally {
      await quick.close();
    }
  });

  it('keeps an identity online while one of its sessions lives, and pushes it offline when an administrator deletes the last', async () => {
    const stream = await openStatusStream(ctl, token);
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
    const user = await passwordIdentity('live-twice');
    const first = await user.login();
    const second = await user.login();
    assert.equal((await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': first.token } })).status, 200);
    assert.equal((await admin.get(`/identities/${user.id}`)).json().data.hasApiSession, true);
    const removed = await admin.del(`/api-sessions/${second.id}`);
    assert.equal(removed.status, 200, removed.text);
    assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === false), JSON.stringify(stream.events));
    // Online once, offline once: the second login and the first logout changed nothing, and nothing is told twice.
    assert.deepEqual(identityStates(stream, user.id), [true, false]);
    stream.close();
  });

  it('pushes an identity going online at an OIDC login and offline when its session is revoked', async () => {
    const stream = await openStatusStream(ctl, token);
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
    const user = await passwordIdentity('live-oidc');
    const tokens = await passwordLoginTokens(ctl, 'live-oidc', 'live-password');
    assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === true), stream.text());
    assert.equal((await postForm(ctl, '/oidc/revoke', { token: tokens.refreshToken, client_id: 'svc' })).status, 200);
    assert.ok(await eventually(() => identityStates(stream, user.id).at(-1) === false), JSON.stringify(stream.events));
    assert.equal((await admin.get(`/identities/${user.id}`)).json().data.hasApiSession, false);
    stream.close();
  });

  it('keeps only the latest state of each identity while a stream is behind, so a burst of changes never grows what waits', async () => {
    const stream = await openStatusStream(ctl, token);
    assert.ok(await eventually(() => stream.events.some((e) => e.event === 'hello')));
    const burst = 100_000;
    const ids = 10;
    const at = new Date();
    // Published faster than any socket takes them: each identity flips online and offline 10,000 times.
    for (let i = 0; i < burst; i++) ctl.running.services.statusEvents.publish({ kind: 'identity', id: `burst-${i % ids}`, hasApiSession: i % 2 === 0, hasEdgeRouterConnection: false, at });
    const lastOf = (id: string) => stream.events.filter((e) => e.event === 'identity' && e.data.id === id).at(-1)?.data.hasApiSession;
    // The last change of burst-k was number burst - ids + k: online when that number is even.
    const settled = () => Array.from({ length: ids }, (_, k) => lastOf(`burst-${k}`) === ((burst - ids + k) % 2 === 0)).every(Boolean);
    assert.ok(await eventually(settled), stream.text());
    const written = stream.events.filter((e) => e.event === 'identity' && String(e.data.id).startsWith('burst-')).length;
    assert.ok(written <= ids * 2, `${written} events written for ${burst} changes of ${ids} identities`);
    stream.close();
  });

  it('ends every open stream when the controller stops, without delaying the stop', async () => {
    const stream = await openStatusStream(ctl, token);
    assert.equal(stream.status, 200);
    await ctl.close();
    await stream.ended;
  });
});
