/**
 * The `metrics` binding (issue 17, point 5; decision 0033): Prometheus text at `/metrics` on the listeners that carry
 * it, with requests by route template and status, logins by method and outcome, lockouts, live API sessions, the
 * authentication cache and change feed figures, and store query times; refused options in the config file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { CONFIG_FILE, EDGE, HEAD, controllerYaml, loadText, printed } from '../helpers/config-fixture.js';
import { testDialect } from '../helpers/database.js';
import { createAuthPolicy, createIdentity } from '../helpers/fixtures.js';
import type { Clock } from '../../src/shared/clock.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the text exposition format 0.0.4: `# HELP` and `# TYPE` lines, and samples `name{label="value",…} number`.
 * Throws on any line that is neither, so a test that parses a body also proves it is well formed.
 */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') {
        assert.match(comment[3] ?? '', /^(counter|gauge|histogram|summary|untyped)$/, line);
        typed.add(comment[2] ?? '');
      }
      continue;
    }
    // prom-client writes NaN as `Nan`; Prometheus reads floats case-insensitively (Go's strconv.ParseFloat).
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|Nan|[+-]Inf)$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = sample[2] ?? '';
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    let match: RegExpExecArray | null;
    let read = 0;
    while ((match = pair.exec(labelText)) !== null) {
      labels[match[1] ?? ''] = (match[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      read = pair.lastIndex;
    }
    if (read !== labelText.length) throw new Error(`bad labels: ${line}`);
    const name = sample[1] ?? '';
    const family = name.replace(/_(bucket|count|sum)$/, '');
    if (!typed.has(name) && !typed.has(family)) throw new Error(`sample before its TYPE line: ${line}`);
    samples.push({ name, labels, value: Number(sample[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`, 0 when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

describe(`metrics (${testDialect})`, () => {
  // System time plus an offset the tests move: the live-session count is reused for two seconds of the controller's
  // clock, so a test that needs a fresh count moves past that instead of waiting.
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({
      clock,
      extraPorts: 1,
      modify(config, ports) {
        const address = `127.0.0.1:${ports[1]}`;
        config.web.push({ name: 'metrics', bindPoints: [{ interface: address, address }], apis: [{ binding: 'metrics' }] });
      },
    });
  });
  after(() => ctl.close());

  const metricsUrl = (suffix = '') => `https://127.0.0.1:${ctl.ports[1]}/metrics${suffix}`;
  const scrape = async (): Promise<Sample[]> => {
    const res = await ctl.fetch(metricsUrl());
    assert.equal(res.status, 200, res.text);
    return parseExposition(res.text);
  };
  const freshScrape = () => {
    offsetMs += 5_000;
    return scrape();
  };
  const login = (username: string, password: string) =>
    ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username, password } });

  it('serves the Prometheus text exposition on the metrics binding, process metrics included', async () => {
    const res = await ctl.fetch(metricsUrl());

    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const names = new Set(parseExposition(res.text).map((s) => s.name));
    for (const name of ['svc_authentications_total', 'svc_lockouts_total', 'svc_api_sessions', 'svc_change_feed_lag_seconds', 'svc_store_query_duration_seconds_count', 'process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes']) {
      assert.ok(names.has(name), `${name} is served`);
    }
  });

  it('counts a request to another binding under its route template and status, never its URL', async () => {
    const token = await ctl.adminToken();
    const missingId = 'no-such-identity-4f1c';
    const labels = { binding: 'edge-management', method: 'GET', route: '/edge/management/v1/identities/:id', status: '404' };
    const before = await scrape();

    const res = await ctl.fetch(`/edge/management/v1/identities/${missingId}`, { headers: { 'svc-session': token } });
    await ctl.fetch('/no/such/path/7e2a');
    const text = (await ctl.fetch(metricsUrl())).text;

    assert.equal(res.status, 404);
    const afterwards = parseExposition(text);
    assert.equal(valueOf(afterwards, 'svc_http_requests_total', labels) - valueOf(before, 'svc_http_requests_total', labels), 1);
    assert.equal(valueOf(afterwards, 'svc_http_request_duration_seconds_count', labels) - valueOf(before, 'svc_http_request_duration_seconds_count', labels), 1);
    assert.ok(valueOf(afterwards, 'svc_http_requests_total', { route: 'unmatched', status: '404', binding: 'none' }) >= 1, 'an unrouted request counts as unmatched');
    assert.ok(!text.includes(missingId) && !text.includes('7e2a'), 'no label carries a raw URL');
  });

  it('counts failed and successful password logins by method and outcome', async () => {
    await createIdentity(ctl.running.database, { name: 'metrics-login', password: 'right-password' });
    const labels = (outcome: string) => ({ method: 'password', outcome });
    const before = await scrape();

    assert.equal((await login('metrics-login', 'wrong-password')).status, 401);
    assert.equal((await login('metrics-login', 'right-password')).status, 200);
    const afterwards = await scrape();

    for (const outcome of ['failure', 'success']) {
      const name = 'svc_authentications_total';
      assert.equal(valueOf(afterwards, name, labels(outcome)) - valueOf(before, name, labels(outcome)), 1, outcome);
    }
  });

  it('counts a password lockout', async () => {
    const authPolicyId = await createAuthPolicy(ctl.running.database, (body) => Object.assign(body.primary.updb, { maxAttempts: 2, lockoutDurationMinutes: 5 }));
    await createIdentity(ctl.running.database, { name: 'metrics-lockout', password: 'right-password', authPolicyId });
    const before = await scrape();

    for (const guess of ['wrong-1', 'wrong-2']) assert.equal((await login('metrics-lockout', guess)).status, 401);
    const afterwards = await scrape();

    assert.equal(valueOf(afterwards, 'svc_lockouts_total', { kind: 'password' }) - valueOf(before, 'svc_lockouts_total', { kind: 'password' }), 1);
  });

  it('shows a login and a logout in the live API session gauge', async () => {
    await createIdentity(ctl.running.database, { name: 'metrics-session', password: 'right-password' });
    const before = valueOf(await freshScrape(), 'svc_api_sessions');

    const token = (await login('metrics-session', 'right-password')).json().data.token as string;
    const during = valueOf(await freshScrape(), 'svc_api_sessions');
    const logout = await ctl.fetch('/edge/client/v1/current-api-session', { method: 'DELETE', headers: { 'svc-session': token } });
    const afterwards = valueOf(await freshScrape(), 'svc_api_sessions');

    assert.equal(logout.status, 200);
    assert.equal(during - before, 1);
    assert.equal(afterwards, before);
  });

  it('times store queries by dialect', async () => {
    const samples = await scrape();

    assert.ok(valueOf(samples, 'svc_store_query_duration_seconds_count', { dialect: testDialect }) > 0);
    assert.ok(valueOf(samples, 'svc_store_query_duration_seconds_bucket', { dialect: testDialect, le: '+Inf' }) > 0);
  });

  it('counts authentication cache hits and misses, and shows how far behind the change feed is', async () => {
    await createIdentity(ctl.running.database, { name: 'metrics-cache', password: 'right-password' });
    const before = await scrape();
    const counted = (samples: Sample[], result: string) => valueOf(samples, 'svc_auth_cache_requests_total', { kind: 'api-session', result });
    const token = (await login('metrics-cache', 'right-password')).json().data.token as string;
    for (let i = 0; i < 3; i++) {
      assert.equal((await ctl.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': token } })).status, 200);
    }
    const after = await scrape();

    assert.ok(counted(after, 'miss') - counted(before, 'miss') >= 1, 'the first use of the session reads the store');
    assert.ok(counted(after, 'hit') - counted(before, 'hit') >= 2, 'the next ones are served from memory');
    // The login logged a change (the client info it recorded), which the feed has read back from the log by now.
    const lag = valueOf(after, 'svc_change_feed_lag_seconds');
    assert.ok(Number.isFinite(lag) && lag >= 0, String(lag));
  });

  it('answers POST /metrics with 405 and Allow, in the envelope', async () => {
    const res = await ctl.fetch(metricsUrl(), { method: 'POST', body: {} });

    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
    assert.equal(res.json().error.code, 'METHOD_NOT_ALLOWED');
  });

  it('ignores a query string, and counts the scrape under /metrics', async () => {
    const res = await ctl.fetch(metricsUrl('?name[]=svc_api_sessions&debug=1'));
    const samples = await scrape();

    assert.equal(res.status, 200);
    assert.ok(parseExposition(res.text).some((s) => s.name === 'svc_http_requests_total'), 'the whole exposition, not a filtered one');
    assert.ok(valueOf(samples, 'svc_http_requests_total', { binding: 'metrics', method: 'GET', route: '/metrics', status: '200' }) >= 1);
  });

  it('answers 404 for /metrics on a listener without the metrics binding', async () => {
    const res = await ctl.fetch('/metrics');

    assert.equal(res.status, 404);
    assert.equal(res.json().error.code, 'NOT_FOUND');
  });

  it('answers 404 for /metrics on a controller without the metrics binding', async () => {
    const plain = await startTestController({ inProcess: true });
    try {
      const res = await plain.fetch('/metrics');

      assert.equal(res.status, 404);
    } finally {
      await plain.close();
    }
  });
});

describe('the metrics binding in the config file', () => {
  const metricsListener = (options = '') =>
    `  - name: metrics\n    bindPoints:\n      - interface: 127.0.0.1:9100\n        address: 127.0.0.1:9100\n    apis:\n      - binding: metrics\n${options}`;

  it('serves metrics on a listener of its own, apart from the Edge APIs', async () => {
    const text = controllerYaml() + metricsListener();
    const { config, diagnostics } = await loadText(text);

    assert.deepEqual(diagnostics, []);
    assert.deepEqual(config?.web.map((l) => [l.name, l.metrics, l.apis.map((api) => api.binding)]), [
      ['client', false, ['edge-client', 'edge-management', 'edge-oidc']],
      ['metrics', true, []],
    ]);
  });

  it('needs no edge section', async () => {
    const { config, diagnostics } = await loadText(`${HEAD}web:\n${metricsListener()}`);

    assert.deepEqual(diagnostics, []);
    assert.equal(config?.web[0]?.metrics, true);
  });

  it('refuses an unknown option, naming it with its line and column', async () => {
    const text = controllerYaml() + metricsListener('        options:\n          path: /prometheus\n');
    const result = await loadText(text);

    assert.equal(result.config, undefined);
    const line = text.split('\n').findIndex((l) => l.includes('path: /prometheus')) + 1;
    assert.deepEqual(printed(result), [`${CONFIG_FILE}:${line}:11: web[1].apis[0].options.path: unknown key 'path'`]);
  });

  it('refuses the binding twice on one listener', async () => {
    const text = `${HEAD}${EDGE}web:\n${metricsListener()}      - binding: metrics\n`;
    const result = await loadText(text);

    assert.match(printed(result)[0] ?? '', /web\[0\]\.apis\[1\]\.binding: binding 'metrics' is listed twice/);
  });
});
