/**
 * SDK-bound terminators and dials at the controller (issue 42): what a router asks on its control channel after a
 * reconnect (ReconcileTerminators), when an SDK dials (DialRequest: policy, posture, the service's terminator
 * strategy, terminators on the asking router only), and the `terminator` revocation it is pushed when a terminator
 * of its SDKs is deleted by an administrator or because its host lost Bind access. A real controller listening on
 * `ctrl.listener`, routers enrolled through the API and run in this process over real mutual TLS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { DialAnswerSchema, EmptySchema, ReconcileAnswerSchema, TerminatorAnswerSchema, type CreateTerminator, type DialRequest, type Revocation } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import type { RunningRouter } from '../../src/router/run.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { passwordLoginTokens } from '../helpers/oidc.js';
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

  describe('DialRequest', () => {
    const dial = (er: RunningRouter, body: DialRequest) => er.control.request(ControlType.DialRequest, body, DialAnswerSchema, 5_000);
    const legacyLogin = async (username: string, password: string) => {
      const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username, password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return { token: res.headers['svc-session'] as string, sessionId: res.json().data.id as string };
    };
    /** A user with a password, the attribute `<name>-dialers`, and a legacy API session. */
    const dialer = async (name: string) => {
      const identity = await createIdentity(ctl.running.database, { name, password: `${name}-password` });
      assert.equal((await admin.patch(`/identities/${identity.id}`, { roleAttributes: [`${name}-dialers`] })).status, 200);
      return { id: identity.id, ...(await legacyLogin(name, `${name}-password`)) };
    };

    it('allows a dial only with Dial access, and only to a terminator the asking router can reach', async () => {
      const a = await startRouterNamed('er-dial-a');
      const b = await startRouterNamed('er-dial-b');
      const { serviceId, hostId } = await hostedService('dial-access');
      const terminator = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:a', hostId });
      const user = await dialer('dial-user');
      const request = { identityId: user.id, serviceId, apiSessionId: user.sessionId };
      await assert.rejects(dial(a.er, request), refused('NOT_ALLOWED', new RegExp(`Identity '${user.id}' may not dial service '${serviceId}': no service policy grants Dial`)));
      await createdId(admin, '/service-policies', { name: 'dial-access-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dial-user-dialers'], serviceRoles: [`@${serviceId}`] });
      const answer = await dial(a.er, request);
      assert.equal(answer.terminator.id, terminator.id);
      assert.equal(answer.terminator.routerId, a.id);
      assert.match(answer.circuitId, /^[0-9A-Za-z]{16}$/);
      await assert.rejects(dial(b.er, request), refused('NOT_FOUND', /hosted only on routers this router has no usable path to/), "a's terminator is not offered to b: no link joins them");
      const oidc = await passwordLoginTokens(ctl, 'dial-user', 'dial-user-password');
      const oidcSessionId = decodeJwt(oidc.accessToken).z_asid as string;
      assert.equal((await dial(a.er, { ...request, apiSessionId: oidcSessionId })).terminator.id, terminator.id, 'an OIDC API session dials too');
      await assert.rejects(dial(a.er, { ...request, serviceId: 'no-such-service' }), refused('NOT_FOUND', /No service has the id 'no-such-service'/));
      await assert.rejects(dial(a.er, { identityId: hostId, serviceId, apiSessionId: user.sessionId }), refused('NOT_ALLOWED', /is not a session of identity/));
      await assert.rejects(dial(a.er, { identityId: user.id, serviceId, apiSessionId: 'no-such-session' }), refused('NOT_FOUND', /names no live API session/));
      await assert.rejects(dial(a.er, { identityId: user.id, serviceId: '' } as DialRequest), refused('BAD_MESSAGE', /body\.serviceId/));
      // The decision is made at every dial: a disabled identity dials no more until enabled, an ended API session never.
      assert.equal((await admin.post(`/identities/${user.id}/disable`, { durationMinutes: 0 })).status, 200);
      await assert.rejects(dial(a.er, request), refused('NOT_FOUND', /names no live API session/));
      await assert.rejects(dial(a.er, { identityId: user.id, serviceId }), refused('NOT_ALLOWED', /the identity is disabled/));
      assert.equal((await admin.post(`/identities/${user.id}/enable`, {})).status, 200);
      assert.equal((await dial(a.er, request)).terminator.id, terminator.id);
      assert.equal((await ctl.fetch(`${CLIENT}/current-api-session`, { method: 'DELETE', headers: { 'svc-session': user.token } })).status, 200);
      await assert.rejects(dial(a.er, request), refused('NOT_FOUND', /names no live API session/));
    });

    it("checks the posture checks of the granting policy for the dialing API session, naming the failing check", async () => {
      const a = await startRouterNamed('er-dial-posture');
      const { serviceId, hostId } = await hostedService('dial-posture');
      await create(a.er, { serviceId, binding: 'edge', address: 'sdk:posture', hostId });
      const checkId = await createdId(admin, '/posture-checks', { name: 'dial-domain', typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes: ['dial-posture'] });
      await createdId(admin, '/service-policies', {
        name: 'dial-posture-dial',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#dial-posture-user-dialers'],
        serviceRoles: [`@${serviceId}`],
        postureCheckRoles: ['#dial-posture'],
      });
      const user = await dialer('dial-posture-user');
      const request = { identityId: user.id, serviceId, apiSessionId: user.sessionId };
      const failing = new RegExp(`posture checks fail for API session '${user.sessionId}': ${checkId} \\(DOMAIN\\)`);
      await assert.rejects(dial(a.er, request), refused('NOT_ALLOWED', failing));
      await assert.rejects(dial(a.er, { identityId: user.id, serviceId }), refused('NOT_ALLOWED', /posture checks fail for a dial naming no API session/));
      const posted = await ctl.fetch(`${CLIENT}/posture-response`, { method: 'POST', headers: { 'svc-session': user.token }, body: { id: checkId, typeId: 'DOMAIN', domain: 'corp.example' } });
      assert.equal(posted.status, 201, posted.text);
      assert.ok((await dial(a.er, request)).terminator.id, 'allowed once the session passes the check');
      // The posture is the API session's: another session of the same identity has reported nothing.
      const other = await legacyLogin('dial-posture-user', 'dial-posture-user-password');
      await assert.rejects(dial(a.er, { ...request, apiSessionId: other.sessionId }), refused('NOT_ALLOWED', /posture checks fail/));
    });

    it("chooses by the service's terminator strategy: precedence first, then lowest cost for smartrouting, any of the best for random", async () => {
      const a = await startRouterNamed('er-dial-strategy');
      const { serviceId, hostId } = await hostedService('dial-strategy');
      const user = await dialer('dial-strategy-user');
      await createdId(admin, '/service-policies', { name: 'dial-strategy-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dial-strategy-user-dialers'], serviceRoles: [`@${serviceId}`] });
      const request = { identityId: user.id, serviceId, apiSessionId: user.sessionId };
      const cheap = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:cheap', hostId, cost: 5 });
      const dear = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:dear', hostId, cost: 50 });
      await create(a.er, { serviceId, binding: 'edge', address: 'sdk:failed', hostId, cost: 0, precedence: 'failed' });
      const chosen = async (times: number) => {
        const ids = new Set<string>();
        for (let i = 0; i < times; i++) ids.add((await dial(a.er, request)).terminator.id);
        return ids;
      };
      assert.deepEqual(await chosen(10), new Set([cheap.id]), 'smartrouting: the lowest cost of the best precedence');
      const required = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:required', hostId, cost: 900, precedence: 'required' });
      assert.deepEqual(await chosen(10), new Set([required.id]), 'a required terminator wins whatever its cost');
      assert.equal((await admin.patch(`/terminators/${required.id}`, { precedence: 'failed' })).status, 200);
      assert.equal((await admin.patch(`/services/${serviceId}`, { terminatorStrategy: 'random' })).status, 200);
      // Two equally likely choices: 40 dials choosing one of them only would happen once in 2^39 runs.
      assert.ok(await eventually(async () => (await chosen(40)).size === 2), 'random: both default terminators, never a failed one');
      assert.deepEqual([...(await chosen(20))].filter((id) => id !== cheap.id && id !== dear.id), []);
    });
  });

  describe('terminator revocations', () => {
    /** Every revocation router `er` is pushed from now on. */
    const collect = (er: RunningRouter) => {
      const items: Revocation[] = [];
      er.revocations.subscribe((pushed) => items.push(...pushed));
      return items;
    };
    // The feed tells at least once (a commit at once, and again when the log is read), so ids are counted once.
    const revokedTerminators = (items: Revocation[]) => [...new Set(items.filter((item) => item.kind === 'terminator').map((item) => item.id))];

    it('pushes a terminator revocation when an administrator deletes an SDK-bound terminator, not for others or its own router', async () => {
      const a = await startRouterNamed('er-revoke-admin');
      const { serviceId, hostId } = await hostedService('revoke-admin');
      const items = collect(a.er);
      const plain = await create(a.er, { serviceId, binding: 'tunnel', address: 'tcp:10.0.0.2:80' });
      const byRouter = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:by-router', hostId });
      const byAdmin = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:by-admin', hostId });
      assert.equal((await admin.del(`/terminators/${plain.id}`)).status, 200);
      await a.er.control.request(ControlType.DeleteTerminators, { ids: [byRouter.id] }, EmptySchema, 5_000);
      assert.equal((await admin.del(`/terminators/${byAdmin.id}`)).status, 200);
      assert.ok(await eventually(() => revokedTerminators(items).includes(byAdmin.id)), 'the revocation reaches the router');
      const revocation = items.find((item) => item.kind === 'terminator')!;
      assert.match(revocation.reason, /deleted/);
      assert.ok(revocation.committedAt > 0);
      // The feed keeps commit order: the two deletes before it would have arrived first.
      assert.deepEqual(revokedTerminators(items), [byAdmin.id], 'nothing for a terminator no SDK bound, nor for its own router deleting one');
    });

    it("deletes and revokes the SDK-bound terminators of a host that lost its Bind attribute, and keeps the others'", async () => {
      const a = await startRouterNamed('er-revoke-attribute');
      const { serviceId, hostId } = await hostedService('revoke-attribute');
      const keeperId = await createdId(admin, '/identities', { name: 'revoke-attribute-keeper', type: 'User', isAdmin: false, roleAttributes: ['revoke-attribute-hosts'] });
      const items = collect(a.er);
      const lost = [await create(a.er, { serviceId, binding: 'edge', address: 'sdk:lost-1', hostId }), await create(a.er, { serviceId, binding: 'edge', address: 'sdk:lost-2', hostId })];
      const kept = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:kept', hostId: keeperId });
      assert.equal((await admin.patch(`/identities/${hostId}`, { roleAttributes: ['something-else'] })).status, 200);
      assert.ok(await eventually(() => lost.every((t) => revokedTerminators(items).includes(t.id))), 'both terminators of the host revoked');
      assert.deepEqual(await terminatorIds(serviceId), [kept.id], 'the host that still may bind keeps its terminator');
      assert.ok(!revokedTerminators(items).includes(kept.id));
      const audit = (await admin.get(`/audit-log?filter=${encodeURIComponent(`entityId = "${lost[0]!.id}"`)}`)).json().data as { action: string; actorId: string | null; actorName: string }[];
      assert.ok(audit.some((entry) => entry.action === 'delete' && entry.actorId === null && /Bind access lost/.test(entry.actorName)), JSON.stringify(audit));
    });

    it('deletes and revokes the SDK-bound terminators whose Bind policy went away', async () => {
      const a = await startRouterNamed('er-revoke-policy');
      const { serviceId, hostId, policyId } = await hostedService('revoke-policy');
      const items = collect(a.er);
      const bound = await create(a.er, { serviceId, binding: 'edge', address: 'sdk:bound', hostId });
      const plain = await create(a.er, { serviceId, binding: 'tunnel', address: 'tcp:10.0.0.3:80' });
      assert.equal((await admin.del(`/service-policies/${policyId}`)).status, 200);
      assert.ok(await eventually(() => revokedTerminators(items).includes(bound.id)), 'revoked once the policy is gone');
      assert.deepEqual(await terminatorIds(serviceId), [plain.id], 'a terminator no SDK bound is not the policy engine\'s to delete');
      assert.equal(revokedTerminators(items).length, 1);
    });

    it('revokes the SDK-bound terminators of a service an administrator deletes, and no other', async () => {
      const a = await startRouterNamed('er-revoke-service');
      const doomed = await hostedService('revoke-service');
      const other = await hostedService('revoke-service-other');
      const items = collect(a.er);
      const bound = await create(a.er, { serviceId: doomed.serviceId, binding: 'edge', address: 'sdk:doomed', hostId: doomed.hostId });
      await create(a.er, { serviceId: doomed.serviceId, binding: 'tunnel', address: 'tcp:10.0.0.4:80' });
      const survivor = await create(a.er, { serviceId: other.serviceId, binding: 'edge', address: 'sdk:other', hostId: other.hostId });
      assert.equal((await admin.del(`/services/${doomed.serviceId}`)).status, 200);
      assert.ok(await eventually(() => revokedTerminators(items).includes(bound.id)), 'revoked with its service');
      assert.deepEqual(revokedTerminators(items), [bound.id]);
      assert.deepEqual(await terminatorIds(other.serviceId), [survivor.id]);
    });
  });
});
