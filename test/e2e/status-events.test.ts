/**
 * The live status stream (`GET /edge/management/v1/events/status`, issue 45): server-sent events of a real router
 * coming online and going offline over its control channel, pushed as they happen (no polling), with the router's
 * name and version; refusals for no session, a non-administrator and too many streams; the stream ends when the
 * controller stops, without delaying it.
 */
import assert from 'node:assert/strict';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { RunningRouter } from '../../src/router/run.js';
import { STREAMS_PER_IDENTITY } from '../../src/http/edge-management/status-events.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, MANAGEMENT, nonAdminToken, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';

interface Stream {
  status: number;
  headers: Record<string, unknown>;
  events: { event: string; data: any }[];
  text: () => string;
  ended: Promise<void>;
  close(): void;
}

/** Opens the stream and parses its events as they arrive. */
function openStream(ctl: TestController, token: string | undefined): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const events: Stream['events'] = [];
    const req: ClientRequest = request(`${ctl.baseUrl}${MANAGEMENT}/events/status`, { ca: ctl.ca, headers: token ? { 'svc-session': token } : {} }, (res) => {
      let ended: () => void;
      const endedPromise = new Promise<void>((r) => (ended = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (;;) {
          const at = text.indexOf('\n\n');
          if (at < 0) break;
          const block = text.slice(0, at);
          text = text.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      });
      res.on('end', () => ended());
      res.on('close', () => ended());
      resolve({ status: res.statusCode ?? 0, headers: res.headers, events, text: () => text, ended: endedPromise, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

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
    const stream = await openStream(ctl, token);
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
    assert.equal((await openStream(ctl, undefined)).status, 401);
    const plain = await openStream(ctl, await nonAdminToken(ctl, 'live-plain'));
    assert.equal(plain.status, 403);
    const streams: Stream[] = [];
    for (let i = 0; i < STREAMS_PER_IDENTITY; i++) streams.push(await openStream(ctl, token));
    assert.deepEqual(streams.map((s) => s.status), streams.map(() => 200));
    const over = await openStream(ctl, token);
    assert.equal(over.status, 429);
    await over.ended;
    // Closing one makes room again.
    streams[0]!.close();
    assert.ok(await eventually(async () => {
      const again = await openStream(ctl, token);
      again.close();
      return again.status === 200;
    }));
    for (const s of streams) s.close();
  });

  it('ends every open stream when the controller stops, without delaying the stop', async () => {
    const stream = await openStream(ctl, token);
    assert.equal(stream.status, 200);
    await ctl.close();
    await stream.ended;
  });
});
