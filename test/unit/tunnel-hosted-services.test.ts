/**
 * The router tunnel's hosted-services manager (issue 43, decision 0071): it asks the controller which services the
 * router's identity may host (all pages), keeps one `tunnel` terminator per hosting definition with that identity as
 * hostId, deletes the ones no longer listed, asks again after access changes (debounced) and terminator revocations,
 * logs unhostable configs and a router that is not tunneler-enabled once. The control client is a recording seam;
 * timers are manual, started from now.
 * @store-independent: no store; the controller is a recording stub.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import type { HostedService } from '../../src/control-protocol/bodies.js';
import { ACCESS_DEBOUNCE_MS, createHostedServices } from '../../src/router/tunnel/hosted-services.js';
import { manualClock } from '../../src/shared/clock.js';
import { manualTimers } from '../helpers/manual-timers.js';
import { recordingControl, recordingLog, refusal } from '../helpers/tunnel.js';

const web: HostedService = { id: 'svc-a', name: 'web', encryptionRequired: true, configType: 'host.v1', config: { protocol: 'tcp', address: '127.0.0.1', port: 8080, listenOptions: { cost: 9, precedence: 'required' } } };
const db: HostedService = {
  id: 'svc-b',
  name: 'db',
  encryptionRequired: false,
  configType: 'host.v2',
  config: { terminators: [{ protocol: 'tcp', address: 'db1.internal', port: 5432 }, { protocol: 'tcp', address: 'db2.internal', port: 5432, listenOptions: { precedence: 'failed' } }] },
};
const broken: HostedService = { id: 'svc-c', name: 'broken', encryptionRequired: false, configType: 'host.v1', config: { protocol: 'tcp', address: 'x.internal', port: 99999 } };

/** A controller stub whose HostedServices answer is `pages()` (page by `after`); terminators get ids t1, t2, … */
function setup(pages: () => HostedService[][] | Error) {
  let next = 0;
  const control = recordingControl((type, body) => {
    if (type === ControlType.HostedServices) {
      const answer = pages();
      if (answer instanceof Error) throw answer;
      const index = body.after ? Number(body.after.slice(5)) : 0;
      return { identityId: 'er1-id', services: answer[index] ?? [], ...(index + 1 < answer.length ? { next: `page-${index + 1}` } : {}) };
    }
    if (type === ControlType.CreateTerminator) return { id: `t${++next}`, serviceId: body.serviceId, binding: 'tunnel', address: body.address, cost: body.cost ?? 0, precedence: body.precedence };
    return {};
  });
  const clock = manualClock();
  const timers = manualTimers(clock);
  const { log, lines } = recordingLog();
  const hosted = createHostedServices({ control, log, timers });
  const of = (type: number) => control.asked.filter((a) => a.contentType === type).map((a) => a.body);
  return { hosted, control, timers, lines, of };
}

describe('router tunnel: hosted services', () => {
  it('creates one tunnel terminator per hosting definition of every page, with the identity as hostId and the listen options', async () => {
    const { hosted, of } = setup(() => [[web], [db]]);

    await hosted.refresh();

    assert.deepEqual(of(ControlType.HostedServices), [{}, { after: 'page-1' }]);
    assert.deepEqual(of(ControlType.CreateTerminator), [
      { serviceId: 'svc-a', binding: 'tunnel', address: 'tcp:127.0.0.1:8080', hostId: 'er1-id', cost: 9, precedence: 'required' },
      { serviceId: 'svc-b', binding: 'tunnel', address: 'tcp:db1.internal:5432', hostId: 'er1-id', precedence: 'default' },
      { serviceId: 'svc-b', binding: 'tunnel', address: 'tcp:db2.internal:5432', hostId: 'er1-id', precedence: 'failed' },
    ]);
    assert.deepEqual(hosted.terminatorIds(), ['t1', 't2', 't3']);
    assert.equal(hosted.targetFor('t1')?.serviceName, 'web');
    assert.equal(hosted.targetFor('t1')?.encryptionRequired, true);
    assert.equal(hosted.targetFor('t3')?.address, 'tcp:db2.internal:5432');
    await hosted.stop();
  });

  it('keeps what is still listed and deletes the terminators of services no longer listed', async () => {
    let services = [web, db];
    const { hosted, of } = setup(() => [services]);
    await hosted.refresh();

    services = [db];
    await hosted.refresh();

    assert.equal(of(ControlType.CreateTerminator).length, 3, 'nothing created again');
    assert.deepEqual(of(ControlType.DeleteTerminators), [{ ids: ['t1'] }]);
    assert.deepEqual(hosted.terminatorIds(), ['t2', 't3']);
    assert.equal(hosted.targetFor('t1'), undefined);
    await hosted.stop();
  });

  it('replaces the terminator of a service whose config changed', async () => {
    let services = [web];
    const { hosted, of } = setup(() => [services]);
    await hosted.refresh();

    services = [{ ...web, config: { ...web.config, port: 8081 } }];
    await hosted.refresh();

    assert.deepEqual(of(ControlType.DeleteTerminators), [{ ids: ['t1'] }]);
    assert.deepEqual(hosted.terminatorIds(), ['t2']);
    assert.equal(hosted.targetFor('t2')?.address, 'tcp:127.0.0.1:8081');
    await hosted.stop();
  });

  it('skips a config it cannot host and logs it once, naming the service and the field', async () => {
    const { hosted, of, lines } = setup(() => [[broken, web]]);

    await hosted.refresh();
    await hosted.refresh();

    assert.deepEqual(of(ControlType.CreateTerminator).map((b: any) => b.serviceId), ['svc-a']);
    assert.deepEqual(lines.filter((l) => l.msg.includes('broken')).map((l) => l.msg), ["service 'broken' is not hosted as its host.v1 config's port 99999 is not a port (1-65535)"]);
    await hosted.stop();
  });

  it('warns once, naming the router and what to set, when the router is not tunneler-enabled, and hosts nothing', async () => {
    const { hosted, of, lines } = setup(() => refusal('NOT_ALLOWED', 'router er1 is not tunneler-enabled'));

    await hosted.refresh();
    await hosted.refresh();

    const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
    assert.deepEqual(warnings, [
      "router 'er1' (er1-id) has a tunnel listener but is not tunneler-enabled, so it hosts no service: set isTunnelerEnabled to true on the edge router (PATCH /edge/management/v1/edge-routers/<id>) and give its identity Bind access",
    ]);
    assert.deepEqual(of(ControlType.CreateTerminator), []);
    assert.deepEqual(hosted.terminatorIds(), []);
    await hosted.stop();
  });

  it('asks again once per burst of access changes, after the debounce', async () => {
    const { hosted, of, timers } = setup(() => [[web]]);
    await hosted.refresh();

    hosted.revocations([
      { kind: 'access', id: '*', reason: 'policy changed', committedAt: Date.now() },
      { kind: 'access', id: 'someone-else', reason: 'policy changed', committedAt: Date.now() },
    ]);
    hosted.revocations([{ kind: 'access', id: 'er1-id', reason: 'policy changed', committedAt: Date.now() }]);
    assert.equal(of(ControlType.HostedServices).length, 1, 'not before the debounce');
    await timers.advance(ACCESS_DEBOUNCE_MS);

    assert.equal(of(ControlType.HostedServices).length, 2);
    await hosted.stop();
  });

  it('ignores access changes of other identities and revocations of terminators that are not its own', async () => {
    const { hosted, of, timers } = setup(() => [[web]]);
    await hosted.refresh();

    hosted.revocations([
      { kind: 'access', id: 'someone-else', reason: 'policy changed', committedAt: Date.now() },
      { kind: 'terminator', id: 'not-ours', reason: 'deleted', committedAt: Date.now() },
    ]);
    await timers.advance(ACCESS_DEBOUNCE_MS);

    assert.equal(of(ControlType.HostedServices).length, 1);
    assert.deepEqual(hosted.terminatorIds(), ['t1']);
    await hosted.stop();
  });

  it('recreates a revoked terminator when the next answer still lists its service, and not when it does not', async () => {
    let services = [web, db];
    const { hosted, of, timers } = setup(() => [services]);
    await hosted.refresh();

    hosted.revocations([{ kind: 'terminator', id: 't1', reason: 'an administrator deleted it', committedAt: Date.now() }]);
    assert.equal(hosted.targetFor('t1'), undefined, 'forgotten at once');
    await timers.advance(ACCESS_DEBOUNCE_MS);
    assert.deepEqual(of(ControlType.CreateTerminator).slice(3).map((b: any) => b.serviceId), ['svc-a']);
    assert.deepEqual(hosted.terminatorIds().sort(), ['t2', 't3', 't4']);

    services = [web];
    hosted.revocations([{ kind: 'terminator', id: 't2', reason: 'Bind access lost', committedAt: Date.now() }]);
    await timers.advance(ACCESS_DEBOUNCE_MS);

    assert.equal(of(ControlType.CreateTerminator).length, 4, 'db is not listed any more: not recreated');
    assert.deepEqual(of(ControlType.DeleteTerminators), [{ ids: ['t3'] }]);
    assert.deepEqual(hosted.terminatorIds(), ['t4']);
    await hosted.stop();
  });

  it('asks nothing while no controller is connected', async () => {
    const { hosted, control } = setup(() => [[web]]);
    control.connected = false;

    await hosted.refresh();

    assert.deepEqual(control.asked, []);
    await hosted.stop();
  });
});
