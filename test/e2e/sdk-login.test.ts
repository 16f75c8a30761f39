/**
 * The SDK's login and client API calls against a real controller over TLS (issue 42 item 6): an identity file logs
 * in by OIDC with its certificate (the controller offers OIDC) or by the legacy cert login when asked, learns who it
 * is, lists every page of the services it may see, and refreshes its OIDC session in the same API session. What it
 * may not do is refused with one sentence: an unregistered certificate, a service it may not see or may not dial,
 * a service no router serves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { openApiSession } from '../../src/sdk/api-session.js';
import { controllerHttp } from '../../src/sdk/controller-http.js';
import { loadIdentity } from '../../src/sdk/identity-file.js';
import { createContext, SdkError } from '../../src/sdk/index.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createServiceRow, issueClientCertificate } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { sdkIdentity, sdkService, type SdkTestIdentity } from '../helpers/sdk.js';

describe(`SDK login and client API (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let alice: SdkTestIdentity;
  let bob: SdkTestIdentity;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    alice = await sdkIdentity(ctl, 'alice');
    bob = await sdkIdentity(ctl, 'bob');
    await sdkService(admin, 'echo', { dialers: [alice.id], hosts: [bob.id] });
  });
  after(async () => ctl.close());

  /** The SdkError a promise rejects with. */
  const refusal = async (p: Promise<unknown>): Promise<SdkError> => {
    try {
      await p;
    } catch (error) {
      assert.ok(error instanceof SdkError, String(error));
      return error;
    }
    assert.fail('it succeeded');
  };

  it('logs in by OIDC with the certificate when the controller offers it, and knows its identity and its services', async () => {
    const ctx = await createContext({ identity: alice.file });
    try {
      assert.deepEqual(ctx.identity, { id: alice.id, name: 'alice' });
      const services = await ctx.services();
      assert.deepEqual(
        services.map((s) => ({ name: s.name, permissions: s.permissions, encryptionRequired: s.encryptionRequired })),
        [{ name: 'echo', permissions: ['Dial'], encryptionRequired: true }],
      );
    } finally {
      await ctx.close();
    }
  });

  it('logs in by the legacy cert login when asked (auth: legacy), with a non-JWT session token', async () => {
    const id = loadIdentity(bob.file);
    const http = controllerHttp(id);
    const session = await openApiSession({ http, clientApi: id.clientApi, auth: 'legacy' });
    try {
      assert.equal(session.mode, 'legacy');
      assert.ok(!session.token.startsWith('ey'));
      const ctx = await createContext({ identity: bob.file, auth: 'legacy' });
      assert.deepEqual(ctx.identity, { id: bob.id, name: 'bob' });
      assert.deepEqual((await ctx.services()).map((s) => s.permissions), [['Bind']]);
      await ctx.close();
    } finally {
      await session.close();
    }
  });

  it('refreshes an OIDC session in place: a new access token for the same API session, told to listeners, accepted by the controller', async () => {
    const id = loadIdentity(alice.file);
    const http = controllerHttp(id);
    const session = await openApiSession({ http, clientApi: id.clientApi, auth: 'auto' });
    try {
      assert.equal(session.mode, 'oidc');
      const before = session.token;
      const told: string[] = [];
      session.onToken((t) => told.push(t));
      await session.refresh();
      assert.notEqual(session.token, before);
      assert.deepEqual(told, [session.token]);
      assert.equal(decodeJwt(session.token).z_asid, decodeJwt(before).z_asid);
      assert.equal(decodeJwt(session.token).sub, alice.id);
      const me = await http(new URL(`${ctl.baseUrl}/edge/client/v1/current-identity`), { headers: session.authHeaders() });
      assert.equal(me.status, 200, me.text);
    } finally {
      await session.close();
    }
  });

  it('reads every page of a long service list', async () => {
    const many = await sdkIdentity(ctl, 'many-services');
    const at = new Date();
    for (let i = 0; i < 505; i++) await createServiceRow(ctl.running.database, `bulk-${String(i).padStart(3, '0')}`, at);
    await createdId(admin, '/service-policies', { name: 'many-dial-all', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${many.id}`], serviceRoles: ['#all'] });
    const ctx = await createContext({ identity: many.file });
    try {
      const names = (await ctx.services()).map((s) => s.name);
      assert.equal(names.filter((n) => n.startsWith('bulk-')).length, 505);
      assert.equal(new Set(names).size, names.length);
    } finally {
      await ctx.close();
    }
  });

  it('refuses a certificate the controller does not know, in one sentence, for both login kinds', async () => {
    const stranger = await issueClientCertificate(ctl.pki, 'stranger');
    const file = { ...alice.file, id: { ...alice.file.id, key: `pem:${stranger.keyPem}`, cert: `pem:${stranger.certPem}` } };
    const oidc = await refusal(createContext({ identity: file }));
    assert.equal(oidc.code, 'NOT_AUTHENTICATED');
    assert.match(oidc.message, /^OIDC login with the certificate failed at the certificate login: 401/);
    const legacy = await refusal(createContext({ identity: file, auth: 'legacy' }));
    assert.equal(legacy.code, 'NOT_AUTHENTICATED');
    assert.match(legacy.message, /^legacy login with the certificate failed: 401/);
  });

  it('refuses to dial a service it may not see, one it may only host, and one no router serves, naming the service', async () => {
    const ctx = await createContext({ identity: bob.file });
    const dialer = await createContext({ identity: alice.file });
    try {
      const unknown = await refusal(ctx.dial('no-such-service'));
      assert.equal(unknown.code, 'NO_SUCH_SERVICE');
      assert.equal(unknown.message, "service 'no-such-service' does not exist or this identity may not see it");
      const hostOnly = await refusal(ctx.dial('echo'));
      assert.equal(hostOnly.code, 'NOT_AUTHORIZED');
      assert.equal(hostOnly.message, "identity 'bob' may not dial service 'echo' (its permissions: Bind)");
      // Alice may dial echo, but no edge router policy gives her a router.
      const noRouter = await refusal(dialer.dial('echo'));
      assert.equal(noRouter.code, "NO_ROUTER", noRouter.message);
      assert.equal(noRouter.message, "no edge router is assigned to both identity and service 'echo' (edge router policies and service edge router policies)");
      const listenRefused = await refusal(dialer.listen('echo', () => {}));
      assert.equal(listenRefused.code, 'NOT_AUTHORIZED');
    } finally {
      await ctx.close();
      await dialer.close();
    }
  });
});
