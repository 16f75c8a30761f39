/**
 * The router's web listeners as a probe or Prometheus sees them: real HTTPS on loopback with a server certificate
 * of a real PKI, the `health-checks` binding in the reference shape (full, short, the probe variant) and the
 * `metrics` binding in Prometheus text; nothing else is served (decision 0065).
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createControllerPki } from '../../src/pki/index.js';
import { createHealthChecks } from '../../src/router/health/health-checks.js';
import { createRouterMetrics } from '../../src/router/metrics/router-metrics.js';
import { startRouterWeb } from '../../src/router/web/router-web.js';
import type { RouterWeb } from '../../src/router/web/router-web.js';
import { validateRouterConfig } from '../../src/router-config/validate.js';
import { manualClock } from '../../src/shared/clock.js';
import { request } from '../helpers/https.js';
import { manualTimers } from '../helpers/manual-timers.js';
import { freePort } from '../helpers/ports.js';

const temp = mkdtempSync(join(tmpdir(), 'svc-router-web-'));
const log = pino({ level: 'silent' });
let ca: string;
let tls: { key: string; cert: string };

/** The `web` section of a validated router file: one listener per entry, each on its own port. */
function webSection(listeners: { name: string; port: number; apis: string[] }[]) {
  const web = listeners
    .map((l) => `  - name: ${l.name}\n    bindPoints: [{ interface: "127.0.0.1:${l.port}", address: "localhost:${l.port}" }]\n    apis: [${l.apis.map((a) => `{ binding: ${a} }`).join(', ')}]\n`)
    .join('');
  const text = `v: 3\nidentity: { cert: c.pem, server_cert: s.pem, key: k.pem, ca: ca.pem }\nctrl: { endpoint: "tls:127.0.0.1:6262" }\nweb:\n${web}`;
  const { config, diagnostics } = validateRouterConfig(text, 'router.yml');
  if (config?.web === undefined) throw new Error(JSON.stringify(diagnostics));
  return config.web;
}

/** Health checks whose ping answers when `answering` says so, on a manual clock; metrics with a little recorded. */
function parts() {
  const clock = manualClock(new Date());
  const timers = manualTimers(clock);
  const state = { answering: true };
  const health = createHealthChecks({
    clock,
    timers,
    settings: { ctrlPingCheck: { intervalMs: 30_000, timeoutMs: 15_000, initialDelayMs: 15_000 }, linkCheck: { intervalMs: 5_000, initialDelayMs: 1_000, minLinks: 0 } },
    controllerPing: () => (state.answering ? Promise.resolve() : Promise.reject(new Error('no control channels established yet'))),
    linkCount: () => 0,
  });
  const metrics = createRouterMetrics();
  return { health, metrics, timers, state };
}

before(async () => {
  const pki = await createControllerPki(join(temp, 'pki'), { hosts: ['localhost'], commonName: 'svc-test-router' });
  ca = readFileSync(pki.caBundle, 'utf8');
  tls = { key: readFileSync(pki.serverKey, 'utf8'), cert: readFileSync(pki.serverCert, 'utf8') };
});
after(() => rmSync(temp, { recursive: true, force: true }));

describe('the router web listener', () => {
  let web: RouterWeb;
  let base: string;
  let metricsBase: string;
  const { health, metrics, timers, state } = parts();

  before(async () => {
    const [one, two] = [await freePort(), await freePort()];
    web = await startRouterWeb(
      webSection([
        { name: 'probes', port: one, apis: ['health-checks'] },
        { name: 'scrape', port: two, apis: ['metrics', 'health-checks'] },
      ]),
      { tls, health, metrics, log },
    );
    [base, metricsBase] = web.urls as [string, string];
    health.start();
  });
  after(async () => {
    health.stop();
    await web.close();
  });

  it('returns the URL of every bind point, as its address names it', () => {
    assert.match(base, /^https:\/\/localhost:\d+$/);
    assert.equal(web.urls.length, 2);
  });

  it('answers GET /health-checks with 200 and the reference JSON, unhealthy before a controller answered', async () => {
    const res = await request(`${base}/health-checks`, { ca });

    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.json(), health.report());
    assert.equal(res.json().data.healthy, false);
    assert.deepEqual(Object.keys(res.json()), ['data', 'meta']);
    assert.match(res.text, /^\{\n {4}"data": \{\n {8}"checks": \[/, 'indented by four spaces as the reference');
  });

  it('answers 503 with the same body to ?failWith=503 while unhealthy, and 200 once healthy', async () => {
    const unhealthy = await request(`${base}/health-checks?failWith=503`, { ca });
    assert.equal(unhealthy.status, 503);
    assert.equal(unhealthy.json().data.checks[0].err, 'not checked yet: the first ping runs 15s after start');

    await timers.advance(15_000);
    const healthy = await request(`${base}/health-checks?failWith=503`, { ca });
    assert.equal(healthy.status, 200);
    assert.equal(healthy.json().data.healthy, true);

    state.answering = false;
    await timers.advance(30_000);
    const failing = await request(`${base}/health-checks?failWith=503`, { ca });
    assert.equal(failing.status, 503);
    assert.equal(failing.json().data.checks[0].err, 'no control channels established yet');
    assert.equal((await request(`${base}/health-checks`, { ca })).status, 200, 'without failWith, 200 as the reference');
    state.answering = true;
    await timers.advance(30_000);
  });

  it('refuses any other failWith with 400 naming the parameter and the accepted value', async () => {
    const res = await request(`${base}/health-checks?failWith=500`, { ca });

    assert.equal(res.status, 400);
    assert.deepEqual(res.json(), {
      error: { code: 'INVALID_PARAMETER', message: "failWith: '500' is not supported; use failWith=503 to answer 503 while unhealthy" },
      meta: {},
    });
  });

  it('answers ?type=short with only id and health, and any path under /health-checks/ as /health-checks', async () => {
    const short = await request(`${base}/health-checks?type=short`, { ca });
    assert.deepEqual(short.json(), health.report({ short: true }));
    assert.deepEqual(Object.keys(short.json().data.checks[0]), ['id', 'healthy']);

    const nested = await request(`${base}/health-checks/anything`, { ca });
    assert.equal(nested.status, 200);
    assert.deepEqual(nested.json(), health.report());
  });

  it('serves Prometheus text with the router series and the process metrics on the metrics binding', async () => {
    metrics.controlMessage('out', 'heartbeat');
    metrics.controlMessage('in', 'hello-answer');
    metrics.controlConnected(true);
    metrics.controlLatency(0.002);
    metrics.reconnect();
    metrics.renewal('success');

    const res = await request(`${metricsBase}/metrics`, { ca });

    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const line of [
      'svc_router_control_messages_total{direction="out",type="heartbeat"} 1',
      'svc_router_control_messages_total{direction="in",type="hello-answer"} 1',
      'svc_router_control_connected 1',
      'svc_router_control_latency_seconds_count 1',
      'svc_router_control_reconnects_total 1',
      'svc_router_certificate_renewals_total{outcome="success"} 1',
    ]) {
      assert.ok(res.text.split('\n').includes(line), `${line} in\n${res.text.slice(0, 2000)}`);
    }
    assert.match(res.text, /^process_cpu_user_seconds_total /m);
  });

  it('answers 404 naming what the listener serves for any other path, and for /metrics where it is not bound', async () => {
    const other = await request(`${metricsBase}/edge/client/v1/version`, { ca });
    assert.equal(other.status, 404);
    assert.equal(other.json().error.message, 'nothing is served at /edge/client/v1/version on this listener; it serves /metrics, /health-checks');

    const unbound = await request(`${base}/metrics`, { ca });
    assert.equal(unbound.status, 404);
    assert.equal(unbound.json().error.message, 'nothing is served at /metrics on this listener; it serves /health-checks');
  });

  it('answers 405 to other methods on a served path', async () => {
    const res = await request(`${base}/health-checks`, { ca, method: 'POST', body: {} });

    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
  });
});

describe('starting the router web listener', () => {
  it('refuses a taken address naming the listener and the address, leaving no listener of it open', async () => {
    const free = await freePort();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const { health, metrics } = parts();
    try {
      const section = webSection([
        { name: 'first', port: free, apis: ['health-checks'] },
        { name: 'second', port, apis: ['metrics'] },
      ]);

      await assert.rejects(startRouterWeb(section, { tls, health, metrics, log }), {
        message: new RegExp(`^web listener 'second' cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      });
      // The first listener was closed again: its port can be bound.
      const again = createServer();
      await new Promise<void>((resolve, reject) => again.once('error', reject).listen(free, '127.0.0.1', resolve));
      again.close();
    } finally {
      taken.close();
    }
  });

  it('serves renewed certificates to new connections after updateTls', async () => {
    const pki = await createControllerPki(join(temp, 'renewed'), { hosts: ['localhost'], commonName: 'svc-test-router-renewed' });
    const { health, metrics } = parts();
    const web = await startRouterWeb(webSection([{ name: 'probes', port: await freePort(), apis: ['health-checks'] }]), { tls, health, metrics, log });
    try {
      const newCa = readFileSync(pki.caBundle, 'utf8');
      await assert.rejects(request(`${web.urls[0]}/health-checks`, { ca: newCa }), 'the old certificate is not of the new CA');

      web.updateTls({ key: readFileSync(pki.serverKey, 'utf8'), cert: readFileSync(pki.serverCert, 'utf8') });

      assert.equal((await request(`${web.urls[0]}/health-checks`, { ca: newCa })).status, 200);
    } finally {
      await web.close();
    }
  });
});
