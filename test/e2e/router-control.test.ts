/**
 * Routers on their control channel (issue 41; docs/control-protocol.md): a real controller listening on
 * `ctrl.listener`, routers enrolled through the API and run in this process over real mutual TLS. What a router gets
 * (online status, trust state, revocations, endpoints), what it may ask (terminators, dial decisions, pings) and what
 * the controller does to it (close at once on disable and re-enroll). Restarts, kills and several controllers are in
 * router-processes.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { DialAnswerSchema, EmptySchema, TerminatorAnswerSchema } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, writeRouterFile, type EnrolledRouter } from '../helpers/routers.js';

const CLIENT = '/edge/client/v1';

describe(`routers on the control channel (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let ctrlEndpoint: string;
  const routers: EnrolledRouter[] = [];
  const running: RunningRouter[] = [];

  const newRouter = async (name: string) => {
    const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), name, { endpoints: [ctrlEndpoint] });
    routers.push(router);
    return router;
  };
  const run = async (router: EnrolledRouter) => {
    const started = await runRouterInProcess(router);
    running.push(started.running);
    return started;
  };
  const detail = async (id: string) => (await admin.get(`/edge-routers/${id}`)).json().data;
  const online = (id: string) => eventually(async () => (await detail(id)).isOnline === true);
  const offline = (id: string) => eventually(async () => (await detail(id)).isOnline === false);

  before(async () => {
    ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    ctrlEndpoint = `tls:127.0.0.1:${ctl.ports[1]}`;
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => {
    await Promise.allSettled(running.map((r) => r.stop()));
    for (const router of routers) router.remove();
    await ctl.close();
  });

  it('shows a running router online with the exact supportedProtocols, its hostname and version, and offline once it stops', async () => {
    const router = await newRouter('er-online');
    const before = await detail(router.id);
    assert.equal(before.isOnline, false);
    assert.equal(before.syncStatus, 'SYNC_NEW');
    const { running: er, lines } = await run(router);
    assert.ok(await online(router.id), 'online within seconds');
    const seen = await detail(router.id);
    assert.deepEqual(seen.supportedProtocols, { tls: 'tls://er-er-online.example:3022' });
    assert.equal(typeof seen.hostname, 'string');
    assert.equal(seen.versionInfo.version, '0.0.0-test');
    assert.ok(lines.some((line) => line.includes('connected to controller')), 'one log line for the connection');
    assert.equal(er.control.connected, true);
    await er.stop();
    assert.ok(await offline(router.id), 'offline once stopped');
  });

  it('counts control messages, routers online and router reports in the controller metrics', async () => {
    const router = await newRouter('er-metrics');
    writeRouterFile(router, { endpoints: [ctrlEndpoint], extra: { metrics: { reportInterval: '200ms' } } });
    await run(router);
    assert.ok(await online(router.id));
    const metric = async (pattern: RegExp) => {
      const { body } = await ctl.running.services.metrics.exposition();
      return Number(pattern.exec(body)?.[1] ?? Number.NaN);
    };
    assert.ok((await metric(/^svc_control_messages_total\{direction="out",type="TrustState"\} (\d+)/m)) >= 1, 'trust state sent');
    // The API reads the router online once the store has its presence; the gauge counts it a moment later, once the
    // write (and on PostgreSQL its change-log notice) has returned.
    assert.ok(await eventually(async () => (await metric(/^svc_routers_online (\d+)/m)) >= 1), 'routers online');
    assert.ok(await eventually(async () => (await metric(/^svc_router_metric_reports_total (\d+)/m)) >= 1), 'a metrics report from the router');
    assert.ok(await eventually(async () => (await metric(/^svc_control_messages_total\{direction="in",type="RouterMetrics"\} (\d+)/m)) >= 1));
    assert.match((await ctl.running.services.metrics.exposition()).body, /^# TYPE svc_router_heartbeat_latency_seconds histogram$/m);
  });

  it('renews its certificates through the controller without dropping its control channel, and reconnects with the new one', async () => {
    const router = await newRouter('er-renew');
    const { running: er, lines } = await run(router);
    assert.ok(await online(router.id));
    assert.ok(await eventually(() => lines.some((line) => line.includes('the controllers known are now'))), 'the endpoints file names the API to renew at');
    await er.renewNow();
    const after = await detail(router.id);
    assert.notEqual(after.fingerprint, router.fingerprint, 'the controller holds the new certificate');
    await ctl.running.routerControl?.recheck(router.id);
    assert.equal(er.control.connected, true, 'the open channel stays, even when its standing is checked again');
    // A new connection presents the new certificate from the files and is accepted.
    await er.stop();
    const again = await run(router);
    assert.ok(await eventually(() => again.running.control.connected), 'reconnects with the renewed certificate');
    assert.ok(await online(router.id));
  });

  it('gives the router the signing keys and CAs, and pushes revocations of sessions, identities and access', async () => {
    const router = await newRouter('er-trust');
    const { running: er } = await run(router);
    assert.ok(await eventually(() => er.trust.current !== undefined));
    const keys = (await ctl.fetch('/oidc/keys')).json().keys as { kid: string }[];
    assert.deepEqual(er.trust.current!.jwks.keys.map((k) => k.kid).sort(), keys.map((k) => k.kid).sort());
    assert.ok(er.trust.current!.cas.some((pem) => ctl.ca.includes(pem.trim().split('\n')[1]!)), 'the controller CA is among the client CAs');

    // A legacy session ended by an administrator.
    const userId = await createdId(admin, '/identities', { name: 'revoked-user', type: 'User', isAdmin: false });
    const session = await ctl.running.services.apiSessions.start(userId, 'password', '127.0.0.1');
    const sessionId = session.session?.id ?? (await admin.get(`/api-sessions?filter=${encodeURIComponent(`identityId = "${userId}"`)}`)).json().data[0].id;
    assert.equal((await admin.del(`/api-sessions/${sessionId}`)).status, 200);
    assert.ok(await eventually(() => er.revocations.isSessionRevoked(sessionId, Date.now())), 'session revocation pushed');

    // The identity disabled, then a policy changed.
    assert.equal((await admin.post(`/identities/${userId}/disable`, { durationMinutes: 0 })).status, 200);
    assert.ok(await eventually(() => er.revocations.isIdentityRevoked(userId, Date.now())), 'identity revocation pushed');
    const before = er.revocations.accessChangedAt;
    await createdId(admin, '/service-policies', { name: 'sp-revoke', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#nobody-here'], serviceRoles: ['#nothing-here'] });
    assert.ok(await eventually(() => er.revocations.accessChangedAt > before), 'access change pushed');
  });

  it('answers terminator requests for its own terminators only, and refuses malformed ones by field', async () => {
    const a = await run(await newRouter('er-term-a'));
    const b = await run(await newRouter('er-term-b'));
    assert.ok(await eventually(() => a.running.control.connected && b.running.control.connected));
    const serviceId = await createdId(admin, '/services', { name: 'svc-term' });
    const created = await a.running.control.request(ControlType.CreateTerminator, { serviceId, binding: 'edge', address: 'hosted:1', cost: 10 }, TerminatorAnswerSchema, 5_000);
    assert.equal(created.serviceId, serviceId);
    const listed = (await admin.get(`/services/${serviceId}/terminators`)).json().data;
    assert.deepEqual(listed.map((t: { id: string; router: { name: string } }) => [t.id, t.router.name]), [[created.id, 'er-term-a']]);

    const updated = await a.running.control.request(ControlType.UpdateTerminator, { id: created.id, cost: 20, precedence: 'required' }, TerminatorAnswerSchema, 5_000);
    assert.equal(updated.cost, 20);
    await assert.rejects(
      b.running.control.request(ControlType.DeleteTerminators, { ids: [created.id] }, EmptySchema, 5_000),
      (error: ControlRefusal) => error.code === 'NOT_FOUND' && /No terminator of this router/.test(error.message),
      "another router's terminator reads as absent",
    );
    await assert.rejects(
      a.running.control.request(ControlType.CreateTerminator, { serviceId, binding: 'edge', address: 'x', cost: 70_000 }, TerminatorAnswerSchema, 5_000),
      (error: ControlRefusal) => error.code === 'BAD_MESSAGE' && error.message.includes('body.cost'),
    );
    await assert.rejects(
      a.running.control.request(ControlType.CreateTerminator, { serviceId: 'no-such-service', binding: 'edge', address: 'x' }, TerminatorAnswerSchema, 5_000),
      (error: ControlRefusal) => error.code === 'NOT_FOUND',
    );
    assert.equal((await admin.get(`/services/${serviceId}/terminators`)).json().data.length, 1, 'refusals changed nothing');

    // The dial decision: refused without a policy, then the terminator by precedence and cost.
    const dialer = await createdId(admin, '/identities', { name: 'dialer', type: 'User', isAdmin: false, roleAttributes: ['dialers'] });
    await assert.rejects(
      a.running.control.request(ControlType.DialRequest, { identityId: dialer, serviceId }, DialAnswerSchema, 5_000),
      (error: ControlRefusal) => error.code === 'NOT_ALLOWED',
    );
    await createdId(admin, '/service-policies', { name: 'sp-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialers'], serviceRoles: [`@${serviceId}`] });
    const dial = await a.running.control.request(ControlType.DialRequest, { identityId: dialer, serviceId }, DialAnswerSchema, 5_000);
    assert.equal(dial.terminator.id, created.id);

    await a.running.control.request(ControlType.DeleteTerminators, { ids: [created.id] }, EmptySchema, 5_000);
    assert.equal((await admin.get(`/services/${serviceId}/terminators`)).json().data.length, 0);
  });

  it('closes the channel at once when the router is disabled, deleted or re-enrolled, and refuses the old certificate', async () => {
    const router = await newRouter('er-closed');
    const { running: er, lines } = await run(router);
    assert.ok(await online(router.id));
    assert.equal((await admin.patch(`/edge-routers/${router.id}`, { disabled: true })).status, 200);
    assert.ok(await eventually(() => !er.control.connected, 2_000), 'closed when disabled');
    assert.ok(await offline(router.id));
    assert.ok(await eventually(() => lines.some((line) => line.includes('ROUTER_DISABLED'))), 'the refusal is logged with its code');
    assert.equal((await admin.patch(`/edge-routers/${router.id}`, { disabled: false })).status, 200);
    assert.ok(await online(router.id), 'back once enabled');

    assert.equal((await admin.post(`/edge-routers/${router.id}/re-enroll`, {})).status, 200);
    assert.ok(await eventually(() => !er.control.connected, 2_000), 'closed when re-enrolled');
    assert.ok(await eventually(() => lines.some((line) => line.includes('UNKNOWN_ROUTER'))), 'the old certificate is refused');
    assert.equal((await detail(router.id)).isOnline, false);

    const deleted = await newRouter('er-deleted');
    const { running: gone, lines: goneLines } = await run(deleted);
    assert.ok(await online(deleted.id));
    assert.equal((await admin.del(`/edge-routers/${deleted.id}`)).status, 200);
    assert.ok(await eventually(() => !gone.control.connected, 2_000), 'closed when deleted');
    assert.ok(await eventually(() => goneLines.some((line) => line.includes('UNKNOWN_ROUTER'))), 'and refused from then on');
  });
});
