/**
 * Identities' edge router connections (issue 45): a router run in this process reports the identities holding SDK
 * channels on its edge listener (IdentityConnections), and the controller answers `hasEdgeRouterConnection` in the
 * Management API and /current-identity from it and pushes the change on the live status stream. An SDK opens real
 * channels with the TypeScript SDK's router link over mutual TLS; the router's control channel going down (router
 * disabled, router stopped) clears its identities, and its reconnect reports them again. A malformed report is refused
 * with BAD_MESSAGE naming the field and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { EmptySchema } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import type { RunningRouter } from '../../src/router/run.js';
import { openApiSession, type ApiSession } from '../../src/sdk/api-session.js';
import { controllerHttp } from '../../src/sdk/controller-http.js';
import { loadIdentity } from '../../src/sdk/identity-file.js';
import { routerLink, type RouterLink } from '../../src/sdk/router-link.js';
import type { TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';
import { eventually, runRouterInProcess, type EnrolledRouter } from '../helpers/routers.js';
import { sdkIdentity, sdkRouter, sdkTestController, type SdkTestIdentity } from '../helpers/sdk.js';
import { openStatusStream, type StatusStream } from '../helpers/status-stream.js';

describe(`identities' edge router connections (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let token: string;
  let router: EnrolledRouter;
  let er: RunningRouter | undefined;
  const opened: { link: RouterLink; session: ApiSession }[] = [];

  const startRouter = async () => {
    er = (await runRouterInProcess(router)).running;
    const up = er;
    assert.ok(await eventually(() => up.control.connected && up.trust.current !== undefined), 'the router connected with its trust state');
  };
  /** An SDK channel of `who` at the router, with a legacy API session of its own. */
  const channel = async (who: SdkTestIdentity) => {
    const id = loadIdentity(who.file);
    const session = await openApiSession({ http: controllerHttp(id), clientApi: id.clientApi, auth: 'legacy' });
    const link = routerLink(router.name, `tls://127.0.0.1:${router.edgePort}`, { certPem: id.certPem, keyPem: id.keyPem, caPem: ctl.ca, token: () => session.token });
    opened.push({ link, session });
    await link.ready();
    return { link, session };
  };
  const detail = async (identityId: string) => (await admin.get(`/identities/${identityId}`)).json().data;
  const connected = async (identityId: string) => (await detail(identityId)).hasEdgeRouterConnection as boolean;
  /** Waits until the API answers `value` for the identity; whether it did. */
  const becomes = (identityId: string, value: boolean) => eventually(async () => (await connected(identityId)) === value);
  /** The identity's events on the stream so far, as `hasEdgeRouterConnection` values in order. */
  const edgeStates = (stream: StatusStream, identityId: string) =>
    stream.events.filter((e) => e.event === 'identity' && e.data.id === identityId).map((e) => e.data.hasEdgeRouterConnection as boolean);

  before(async () => {
    ctl = await sdkTestController();
    token = await ctl.adminToken();
    admin = managementClient(ctl, token);
    router = await sdkRouter(ctl, admin, 'er-connections');
    await startRouter();
  });
  after(async () => {
    for (const { link, session } of opened) {
      link.close();
      await session.close().catch(() => undefined);
    }
    await er?.stop();
    router?.remove();
    await ctl?.close();
  });

  it('makes an identity hasEdgeRouterConnection true while an SDK channel of it is open at a router, and false once its last one closes, pushing each change', async () => {
    const who = await sdkIdentity(ctl, 'conn-sdk');
    const stream = await openStatusStream(ctl, token);
    try {
      assert.equal(await connected(who.id), false, 'no channel yet');
      assert.equal((await detail(who.id)).edgeRouterConnectionStatus, 'offline');

      const first = await channel(who);
      assert.ok(await becomes(who.id, true), 'true in the identity detail once the channel is open');
      assert.equal((await detail(who.id)).edgeRouterConnectionStatus, 'online');
      const listed = (await admin.get(`/identities?filter=${encodeURIComponent('name="conn-sdk"')}`)).json().data;
      assert.equal(listed[0].hasEdgeRouterConnection, true, 'true in the list');
      const own = await ctl.fetch('/edge/client/v1/current-identity', { headers: first.session.authHeaders() });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.json().data.hasEdgeRouterConnection, true, 'true in /current-identity');
      assert.ok(await eventually(() => edgeStates(stream, who.id).includes(true)), `an identity event with true: ${JSON.stringify(stream.events)}`);

      // A second channel of the same identity: closing either one alone leaves it connected.
      const second = await channel(who);
      assert.ok(await eventually(() => er!.edge?.channelCount === 2), 'two channels at the router');
      first.link.close();
      assert.ok(await eventually(() => er!.edge?.channelCount === 1), 'the router saw the first channel close');
      assert.equal(await connected(who.id), true, 'still true while the second channel is open');
      second.link.close();
      assert.ok(await becomes(who.id, false), 'false once the last channel closed');
      assert.equal((await detail(who.id)).edgeRouterConnectionStatus, 'offline');
      assert.ok(await eventually(() => edgeStates(stream, who.id).at(-1) === false), `an identity event with false: ${JSON.stringify(stream.events)}`);
      // The login's own event (hasApiSession) may come first, with false; the connection is told once each way.
      assert.deepEqual(edgeStates(stream, who.id).filter((value, i, all) => i === 0 || all[i - 1] !== value).slice(-2), [true, false]);
      assert.equal(edgeStates(stream, who.id).filter((value) => value).length, 1, 'true is pushed once, not again for the second channel');
    } finally {
      stream.close();
    }
  });

  it('refuses a malformed IdentityConnections with BAD_MESSAGE naming the field and changes nothing; a well-formed one is applied', async () => {
    const who = await sdkIdentity(ctl, 'conn-malformed');
    const up = er!;
    const refused = (pattern: RegExp) => (error: unknown) => error instanceof ControlRefusal && error.code === 'BAD_MESSAGE' && pattern.test(error.message);
    const send = (body: unknown) => up.control.request(ControlType.IdentityConnections, body, EmptySchema, 5_000);
    await assert.rejects(send({ connected: [who.id], disconnected: [who.id] }), refused(/body\.connected\.0 is also in body\.disconnected/));
    await assert.rejects(send({ connected: who.id, disconnected: [] }), refused(/IdentityConnections: body\.connected must be array/));
    await assert.rejects(send({ connected: [who.id] }), refused(/body must have required property 'disconnected'/));
    await assert.rejects(send({ connected: [who.id], disconnected: [], everyone: true }), refused(/must NOT have additional properties \(everyone\)/));
    await assert.rejects(send({ connected: [''], disconnected: [] }), refused(/body\.connected\.0/));
    assert.equal(await connected(who.id), false, 'nothing was applied');

    // Positive control: the same report, well formed, is applied (and taken back).
    up.control.notify(ControlType.IdentityConnections, { connected: [who.id], disconnected: [] });
    assert.ok(await becomes(who.id, true), 'a well-formed report is applied');
    up.control.notify(ControlType.IdentityConnections, { connected: [], disconnected: [who.id] });
    assert.ok(await becomes(who.id, false));
  });

  it("clears a router's identities when its control channel goes down, and learns them again from its whole set when it reconnects", async () => {
    const who = await sdkIdentity(ctl, 'conn-reconnect');
    const { link } = await channel(who);
    assert.ok(await becomes(who.id, true));
    assert.equal((await admin.patch(`/edge-routers/${router.id}`, { disabled: true })).status, 200);
    assert.ok(await eventually(() => !er!.control.connected), 'the disabled router lost its control channel');
    assert.ok(await becomes(who.id, false), 'false while the router is offline');
    assert.equal(link.connected, true, 'the SDK channel itself stayed open');
    assert.equal((await admin.patch(`/edge-routers/${router.id}`, { disabled: false })).status, 200);
    assert.ok(await eventually(() => er!.control.connected, 30_000), 'the router reconnected');
    assert.ok(await becomes(who.id, true), 'true again from the whole set the router sent');
  });

  it("clears a router's identities when the router stops", async () => {
    const who = await sdkIdentity(ctl, 'conn-stop');
    await channel(who);
    assert.ok(await becomes(who.id, true));
    await er!.stop();
    er = undefined;
    assert.ok(await becomes(who.id, false), 'false once the router stopped');
  });
});
