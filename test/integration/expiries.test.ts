/**
 * The expiry board's API (`GET /expiries?within=…`, issue 45): what ends within the window from now, soonest first,
 * with the entity to open: a pending enrollment, a router's enrollment, a CA certificate (a real one whose end is set
 * relative to now); the window decides what is in; paging; bad windows refused naming the value, the forms and the
 * maximum; administrators only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';

const DAY = 86_400_000;

describe(`expiry board (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let pki: OpensslPki;
  let identityId: string;
  let caId: string;

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    pki = makeOpensslPki('Expiring');
    identityId = await createdId(admin, '/identities', { name: 'expiring-phone', type: 'Device', isAdmin: false });
    await createdId(admin, '/enrollments', { identityId, method: 'ott', expiresAt: new Date(Date.now() + 2 * DAY).toISOString() });
    caId = await createdId(admin, '/cas', {
      name: 'expiring-ca',
      certPem: pki.selfSigned('Expiring CA', { days: 10 }).certPem,
      isAuthEnabled: false,
      isAutoCaEnrollmentEnabled: false,
      isOttCaEnrollmentEnabled: false,
      identityRoles: [],
    });
  });
  after(async () => {
    pki?.dispose();
    await ctl?.close();
  });

  const board = async (query: string) => {
    const res = await admin.get(`/expiries${query}`);
    assert.equal(res.status, 200, res.text);
    return res.json() as { data: { kind: string; name: string; expiresAt: string; isExpired: boolean; entity: { type: string; id: string; name: string } }[]; meta: any };
  };

  it('lists what ends within the window, soonest first, with the entity to open', async () => {
    const { data, meta } = await board('?within=P30D');
    const mine = data.filter((item) => item.entity.id === identityId || item.entity.id === caId);
    assert.deepEqual(mine.map((item) => item.kind), ['enrollment', 'ca-certificate']);
    assert.deepEqual(mine[0]!.entity, { type: 'identities', id: identityId, name: 'expiring-phone' });
    assert.match(mine[0]!.name, /ott enrollment of expiring-phone/);
    assert.deepEqual(mine[1]!.entity, { type: 'cas', id: caId, name: 'expiring-ca' });
    assert.equal(mine[1]!.isExpired, false);
    const times = data.map((item) => Date.parse(item.expiresAt));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'soonest first');
    assert.equal(meta.within, 'P30D');
    assert.equal(meta.pagination.totalCount, data.length);
  });

  it('leaves out what ends after the window', async () => {
    const { data } = await board('?within=P7D');
    assert.ok(data.some((item) => item.entity.id === identityId), 'the enrollment ends in 2 days');
    assert.ok(!data.some((item) => item.entity.id === caId), 'the CA ends in 10 days');
    const hours = await board('?within=PT12H');
    assert.ok(!hours.data.some((item) => item.entity.id === identityId));
  });

  it('pages on the server', async () => {
    const all = await board('?within=P30D');
    const second = await board('?within=P30D&limit=1&offset=1');
    assert.equal(second.data.length, 1);
    assert.equal(second.data[0]!.name, all.data[1]!.name);
    assert.equal(second.meta.pagination.totalCount, all.meta.pagination.totalCount);
  });

  it('refuses a window it cannot read, naming the value, the forms and the maximum', async () => {
    for (const [within, expected] of [
      ['30 days', /'30 days' is not a window this board reads: use days \(P30D\), weeks \(P2W\) or hours \(PT12H\)/],
      ['P400D', /'P400D' is longer than a year/],
      ['P0D', /longer than zero/],
    ] as const) {
      const res = await admin.get(`/expiries?within=${encodeURIComponent(within)}`);
      assert.equal(res.status, 400, `${within}: ${res.text}`);
      assert.match(res.json().error.message + JSON.stringify(res.json().error.cause), expected);
    }
    const plain = managementClient(ctl, await nonAdminToken(ctl, 'expiry-plain'));
    assert.equal((await plain.get('/expiries')).status, 403);
  });
});
