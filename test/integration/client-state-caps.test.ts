/**
 * What a non-administrator may keep in the store through the client API (issue 40, must-have 4; decision 0058):
 * `tags` on a session (count and bytes), sessions, unexpired ephemeral certificates and posture response slots per
 * API session. Each refusal is a 4xx naming the bound and the value found, and stores nothing; the same call works
 * once there is room, and an administrator is not bounded. A real controller in process, real store and CA.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  MAX_CERTIFICATES_PER_API_SESSION,
  MAX_CLIENT_TAG_BYTES,
  MAX_CLIENT_TAG_KEYS,
  MAX_POSTURE_SLOTS_PER_API_SESSION,
  MAX_SESSIONS_PER_API_SESSION,
} from '../../src/services/client-limits.js';
import { manualClock } from '../../src/shared/clock.js';
import { newEntityId } from '../../src/shared/random.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createIdentity } from '../helpers/fixtures.js';
import { createdId, managementClient, type ManagementClient } from '../helpers/management.js';
import { opensslKeyAndCsr } from '../helpers/openssl.js';

const CLIENT = '/edge/client/v1';
type Headers = Record<string, string>;
type Table = 'edge_sessions' | 'api_session_certificates' | 'posture_responses';

describe(`bounds on client-made state (${testDialect})`, () => {
  const clock = manualClock(new Date());
  let ctl: TestController;
  let admin: ManagementClient;
  let web = '';
  let db = '';
  let csrPem = '';

  before(async () => {
    ctl = await startTestController({ clock, inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    web = await createdId(admin, '/services', { name: 'web' });
    db = await createdId(admin, '/services', { name: 'db' });
    await createdId(admin, '/edge-routers', { name: 'r-1', roleAttributes: ['eu'] });
    await createIdentity(ctl.running.database, { name: 'device', username: 'device-user', password: 'device-password' });
    await createdId(admin, '/service-policies', { name: 'all-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'] });
    await createdId(admin, '/edge-router-policies', { name: 'all-eu', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#eu'] });
    await createdId(admin, '/service-edge-router-policies', { name: 'services-eu', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#eu'] });
    csrPem = opensslKeyAndCsr('device-cert').csrPem;
  });
  after(async () => ctl.close());

  async function login(username: string, password: string): Promise<{ headers: Headers; apiSessionId: string }> {
    const res = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username, password } });
    assert.equal(res.status, 200, res.text);
    return { headers: { 'svc-session': res.json().data.token }, apiSessionId: res.json().data.id };
  }
  const device = () => login('device-user', 'device-password');
  const administrator = () => login('admin', 'admin-password');
  const post = (headers: Headers, path: string, body: unknown) => ctl.fetch(`${CLIENT}${path}`, { method: 'POST', headers, body: body as object });
  const held = async (table: Table, apiSessionId: string) =>
    Number(
      (await ctl.running.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(table === 'posture_responses' ? 'session_id' : 'api_session_id', '=', apiSessionId).executeTakeFirstOrThrow())
        .n,
    );

  /** Tags of `keys` keys whose JSON takes about `bytes` bytes. */
  const tagsOf = (keys: number, bytes: number) => Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, 'x'.repeat(Math.max(0, Math.floor(bytes / keys) - 10))]));

  it('refuses session tags with too many keys or too many bytes with 400 naming tags and the bound, and stores nothing', async () => {
    const { headers, apiSessionId } = await device();
    const cases = [
      { tags: tagsOf(MAX_CLIENT_TAG_KEYS + 1, 400), reason: `at most ${MAX_CLIENT_TAG_KEYS} keys`, value: MAX_CLIENT_TAG_KEYS + 1 },
      { tags: { big: 'x'.repeat(1024 * 1024 - 100) }, reason: `at most ${MAX_CLIENT_TAG_BYTES} bytes as JSON` },
      { tags: { big: 'é'.repeat(MAX_CLIENT_TAG_BYTES / 2) }, reason: `at most ${MAX_CLIENT_TAG_BYTES} bytes as JSON` },
    ];
    for (const { tags, reason, value } of cases) {
      const res = await post(headers, '/sessions', { serviceId: web, tags });
      assert.equal(res.status, 400, res.text.slice(0, 300));
      const { code, message, cause } = res.json().error;
      assert.deepEqual({ code, field: cause.field, reason: cause.reason, limit: cause.limit }, {
        code: 'COULD_NOT_VALIDATE',
        field: 'tags',
        reason,
        limit: reason.includes('keys') ? MAX_CLIENT_TAG_KEYS : MAX_CLIENT_TAG_BYTES,
      });
      if (value !== undefined) assert.equal(cause.value, value);
      assert.match(message, /tags/);
    }
    assert.equal(await held('edge_sessions', apiSessionId), 0);

    const fits = tagsOf(MAX_CLIENT_TAG_KEYS, MAX_CLIENT_TAG_BYTES - 200);
    const res = await post(headers, '/sessions', { serviceId: web, tags: fits });
    assert.equal(res.status, 201, res.text.slice(0, 300));
    assert.deepEqual(res.json().data.tags, fits);
  });

  it('lets an administrator give a session tags beyond the client bounds', async () => {
    const { headers } = await administrator();
    const res = await post(headers, '/sessions', { serviceId: web, tags: { big: 'x'.repeat(64 * 1024) } });
    assert.equal(res.status, 201, res.text.slice(0, 300));
  });

  it(`refuses a new session past ${MAX_SESSIONS_PER_API_SESSION} per API session with 409 naming the bound, answers held ones, and opens again once one is deleted`, async () => {
    const { headers, apiSessionId } = await device();
    const opened = await post(headers, '/sessions', { serviceId: web });
    assert.equal(opened.status, 201, opened.text);
    // The rest of the bound filled with sessions of services made for it (rows as a client's opens would leave).
    const store = ctl.running.database.db;
    const now = clock.now().toISOString();
    const filler = Array.from({ length: MAX_SESSIONS_PER_API_SESSION - 1 }, (_, index) => ({ id: newEntityId(), name: `filler-${index}` }));
    for (let start = 0; start < filler.length; start += 500) {
      const chunk = filler.slice(start, start + 500);
      const common = { tags: '{}', created_at: now, updated_at: now };
      await store.insertInto('services').values(chunk.map(({ id, name }) => ({ id, name, role_attributes: '[]', encryption_required: true, max_idle_time_millis: 0, terminator_strategy: 'smartrouting', ...common }))).execute();
      await store
        .insertInto('edge_sessions')
        .values(chunk.map(({ id }) => ({ id: newEntityId(), api_session_id: apiSessionId, legacy_session_id: apiSessionId, oidc_session_id: null, identity_id: opened.json().data.identityId, service_id: id, type: 'Dial', ...common })))
        .execute();
    }
    assert.equal(await held('edge_sessions', apiSessionId), MAX_SESSIONS_PER_API_SESSION);

    const refused = await post(headers, '/sessions', { serviceId: db });
    assert.equal(refused.status, 409, refused.text);
    const { code, message, cause } = refused.json().error;
    assert.deepEqual({ code, field: cause.field, value: cause.value, limit: cause.limit }, { code: 'API_SESSION_LIMIT_REACHED', field: 'sessions', value: MAX_SESSIONS_PER_API_SESSION, limit: MAX_SESSIONS_PER_API_SESSION });
    assert.match(message, new RegExp(`already holds ${MAX_SESSIONS_PER_API_SESSION} sessions.*\\(${MAX_SESSIONS_PER_API_SESSION}\\)`));
    assert.equal(await held('edge_sessions', apiSessionId), MAX_SESSIONS_PER_API_SESSION, 'nothing stored');

    const again = await post(headers, '/sessions', { serviceId: web });
    assert.equal(again.status, 201, 'a session it holds is answered again: that adds nothing');
    assert.equal(again.json().data.id, opened.json().data.id);

    assert.equal((await ctl.fetch(`${CLIENT}/sessions/${opened.json().data.id}`, { method: 'DELETE', headers })).status, 200);
    const room = await post(headers, '/sessions', { serviceId: db });
    assert.equal(room.status, 201, room.text);
  });

  it(`refuses a certificate past ${MAX_CERTIFICATES_PER_API_SESSION} unexpired per API session with 409 before signing, and issues again once one is deleted`, async () => {
    const { headers, apiSessionId } = await device();
    const ids: string[] = [];
    for (let index = 0; index < MAX_CERTIFICATES_PER_API_SESSION; index++) {
      const res = await post(headers, '/current-api-session/certificates', { csr: csrPem });
      assert.equal(res.status, 201, res.text);
      ids.push(res.json().data.id);
    }
    const refused = await post(headers, '/current-api-session/certificates', { csr: csrPem });
    assert.equal(refused.status, 409, refused.text);
    const { code, cause } = refused.json().error;
    assert.deepEqual({ code, field: cause.field, value: cause.value, limit: cause.limit }, {
      code: 'API_SESSION_LIMIT_REACHED',
      field: 'certificates',
      value: MAX_CERTIFICATES_PER_API_SESSION,
      limit: MAX_CERTIFICATES_PER_API_SESSION,
    });
    assert.equal(await held('api_session_certificates', apiSessionId), MAX_CERTIFICATES_PER_API_SESSION, 'nothing issued');

    assert.equal((await ctl.fetch(`${CLIENT}/current-api-session/certificates/${ids[0]}`, { method: 'DELETE', headers })).status, 200);
    assert.equal((await post(headers, '/current-api-session/certificates', { csr: csrPem })).status, 201);
  });

  it('lets an administrator hold more certificates than the client bound', async () => {
    const { headers, apiSessionId } = await administrator();
    for (let index = 0; index <= MAX_CERTIFICATES_PER_API_SESSION; index++) {
      const res = await post(headers, '/current-api-session/certificates', { csr: csrPem });
      assert.equal(res.status, 201, res.text);
    }
    assert.equal(await held('api_session_certificates', apiSessionId), MAX_CERTIFICATES_PER_API_SESSION + 1);
  });

  describe('posture response slots', () => {
    const multiChecks: string[] = [];
    let single = '';
    const PER_CHECK = 256;
    before(async () => {
      for (let check = 0; check < MAX_POSTURE_SLOTS_PER_API_SESSION / PER_CHECK; check++) {
        const processes = Array.from({ length: PER_CHECK }, (_, index) => ({ osType: 'Linux', path: `/opt/c${check}/p${index}` }));
        multiChecks.push(await createdId(admin, '/posture-checks', { name: `multi-${check}`, typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes }));
      }
      single = await createdId(admin, '/posture-checks', { name: 'one-more', typeId: 'PROCESS', process: { osType: 'Linux', path: '/opt/one-more' } });
    });

    /** Reports every process of the PROCESS_MULTI checks, in bulks of 128: exactly the bound's worth of slots. */
    async function fillSlots(headers: Headers): Promise<void> {
      const responses = multiChecks.flatMap((id, check) => Array.from({ length: PER_CHECK }, (_, index) => ({ id, typeId: 'PROCESS', path: `/opt/c${check}/p${index}`, isRunning: true })));
      for (let start = 0; start < responses.length; start += 128) {
        const res = await post(headers, '/posture-response-bulk', responses.slice(start, start + 128));
        assert.equal(res.status, 201, res.text);
      }
    }

    it(`refuses a posture response that would hold more than ${MAX_POSTURE_SLOTS_PER_API_SESSION} facts with 409, and still takes replacements of held ones`, async () => {
      const { headers, apiSessionId } = await device();
      await fillSlots(headers);
      assert.equal(await held('posture_responses', apiSessionId), MAX_POSTURE_SLOTS_PER_API_SESSION);

      const refused = await post(headers, '/posture-response', { id: single, typeId: 'PROCESS', isRunning: true });
      assert.equal(refused.status, 409, refused.text);
      const { code, cause } = refused.json().error;
      assert.deepEqual({ code, field: cause.field, value: cause.value, limit: cause.limit }, {
        code: 'API_SESSION_LIMIT_REACHED',
        field: 'posture responses',
        value: MAX_POSTURE_SLOTS_PER_API_SESSION,
        limit: MAX_POSTURE_SLOTS_PER_API_SESSION,
      });
      assert.equal(await held('posture_responses', apiSessionId), MAX_POSTURE_SLOTS_PER_API_SESSION, 'nothing stored');

      const replaced = await post(headers, '/posture-response', { id: multiChecks[0], typeId: 'PROCESS', path: '/opt/c0/p0', isRunning: false });
      assert.equal(replaced.status, 201, replaced.text);
      assert.equal(await held('posture_responses', apiSessionId), MAX_POSTURE_SLOTS_PER_API_SESSION);
    });

    it('lets an administrator report more facts than the client bound', async () => {
      const { headers, apiSessionId } = await administrator();
      await fillSlots(headers);
      const res = await post(headers, '/posture-response', { id: single, typeId: 'PROCESS', isRunning: true });
      assert.equal(res.status, 201, res.text);
      assert.equal(await held('posture_responses', apiSessionId), MAX_POSTURE_SLOTS_PER_API_SESSION + 1);
    });
  });
});
