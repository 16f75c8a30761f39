/**
 * SDK-bound terminators and dials at the controller (issue 42): what a router asks on its control channel after a
 * reconnect (ReconcileTerminators), when an SDK dials (DialRequest: policy, posture, the service's terminator
 * strategy, terminators on the asking router only), and the `terminator` revocation it is pushed when a terminator
 * of its SDKs is deleted by an administrator or because its host lost Bind access. A real controller listening on
 * `ctrl.listener`, routers enrolled through the API and run in this process over real mutual TLS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { ReconcileAnswerSchema, TerminatorAnswerSchema, type CreateTerminator } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { enrolledRouter, eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';

const CLIENT = '/edge/client/v1';

describe(`SDK-bound terminators and dials at the controller (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const routers: EnrolledRouter[] = [];
  const running: RunningRouter[] = [];

  const startRouterNamed = async (name: string) => {
    const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`${CLIENT}/enroll?method=erott&token=${token}`, { method: 'POST', body }), name, {
      endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`],
    });
    routers.push(router);
    const { running: er } = await runRouterInProcess(router);
    running.push(er);
    if (!(await eventually(() => er.control.connected))) throw new Error(`router ${name} did not connect`);
    return { ...router, er };
  };

  before(async () => {
    ctl = await startTestController({ extraPorts: 1, modify: (config, ports) => (config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` }) });
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => {
    await Promise.allSettled(running.map((r) => r.stop()));
    for (const router of routers) router.remove();
    await ctl.close();
  });

  const refused = (code: string, pattern: RegExp) => (error: unknown) => error instanceof ControlRefusal && error.code === code && pattern.test(error.message);
  const create = (er: RunningRouter, body: CreateTerminator) => er.control.request(ControlType.CreateTerminator, body, TerminatorAnswerSchema, 5_000);
  const terminatorIds = async (serviceId: string) =>
    ((await admin.get(`/services/${serviceId}/terminators`)).json().data as { id: string }[]).map((t) => t.id).sort();
  /** A service, an identity with Bind access to it (attribute `#<name>-hosts`), and the policy granting it. */
  const hostedService = async (name: string) => {
    const serviceId = await createdId(admin, '/services', { name, roleAttributes: [`${name}-service`] });
    const hostId = await createdId(admin, '/identities', { name: `${name}-host`, type: 'User', isAdmin: false, roleAttributes: [`${name}-hosts`] });
    const policyId = await createdId(admin, '/service-policies', {
      name: `${name}-bind`,
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`#${name}-hosts`],
      serviceRoles: [`#${name}-service`],
    });
    return { serviceId, hostId, policyId };
  };

  describe('ReconcileTerminators', () => {
    it("deletes the asking router's SDK-bound terminators not in keep, and nothing else", async () => {
      const a = await startRouterNamed('er-reconcile-a');
      const b = await startRouterNamed('er-reconcile-b');
      const { serviceId, hostId } = await hostedService('reconcile');
      const kept = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:kept', hostId });
      await create(a.er, { serviceId, binding: 'edge', address: 'sdk:stale-1', hostId });
      await create(a.er, { serviceId, binding: 'edge', address: 'sdk:stale-2', hostId });
      const notSdk = await create(a.er, { serviceId, binding: 'tunnel', address: 'tcp:10.0.0.1:80' });
      const otherRouter = await create(b.er, { serviceId, binding: 'edge', address: 'sdk:b', hostId });

      const answer = await a.er.control.request(ControlType.ReconcileTerminators, { keep: [kept.id, otherRouter.id] }, ReconcileAnswerSchema, 5_000);
      assert.deepEqual(answer, { removed: 2 });
      assert.deepEqual(await terminatorIds(serviceId), [kept.id, notSdk.id, otherRouter.id].sort());
      const again = await a.er.control.request(ControlType.ReconcileTerminators, { keep: [kept.id] }, ReconcileAnswerSchema, 5_000);
      assert.deepEqual(again, { removed: 0 }, 'a second reconcile with the same keep removes nothing');
      const empty = await b.er.control.request(ControlType.ReconcileTerminators, { keep: [] }, ReconcileAnswerSchema, 5_000);
      assert.deepEqual(empty, { removed: 1 }, "router b's own terminator, only");
      assert.deepEqual(await terminatorIds(serviceId), [kept.id, notSdk.id].sort());
    });

    it('refuses a malformed reconcile by field and removes nothing', async () => {
      const a = await startRouterNamed('er-reconcile-bad');
      const { serviceId, hostId } = await hostedService('reconcile-bad');
      const one = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:one', hostId });
      await assert.rejects(a.er.control.request(ControlType.ReconcileTerminators, { keep: 'all' }, ReconcileAnswerSchema, 5_000), refused('BAD_MESSAGE', /body\.keep/));
      await assert.rejects(a.er.control.request(ControlType.ReconcileTerminators, { keep: [''] }, ReconcileAnswerSchema, 5_000), refused('BAD_MESSAGE', /body\.keep\.0/));
      await assert.rejects(a.er.control.request(ControlType.ReconcileTerminators, {}, ReconcileAnswerSchema, 5_000), refused('BAD_MESSAGE', /keep/));
      assert.deepEqual(await terminatorIds(serviceId), [one.id]);
      assert.deepEqual(await a.er.control.request(ControlType.ReconcileTerminators, { keep: [one.id] }, ReconcileAnswerSchema, 5_000), { removed: 0 });
    });
  });
});
