/**
 * A list operation end to end: `GET /controllers` with limit, offset, filter and sort compiled to SQL on the
 * dialect under test, its pagination meta, and 400s that name what was wrong in a filter or page parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createControllerRepository } from '../../src/persistence/repositories/controllers.js';
import { createIdentity } from '../helpers/fixtures.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';

describe(`listing controllers (${testDialect})`, () => {
  let ctl: TestController;
  let token: string;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    token = await ctl.adminToken();
    const repo = createControllerRepository(ctl.running.database);
    for (let i = 1; i <= 12; i++) {
      const at = new Date(Date.UTC(2026, 0, i));
      await repo.upsert({
        id: `ctrl-${String(i).padStart(2, '0')}`,
        name: `peer-${String(i).padStart(2, '0')}`,
        certPem: 'pem',
        fingerprint: `fp${i}`,
        apiAddresses: {},
        ctrlAddress: `tls:peer-${String(i).padStart(2, '0')}.example:6262`,
        isOnline: i % 2 === 0,
        // Joined now: the heartbeat is then fresh, and the running controller's sweep leaves the online peers online.
        lastJoinedAt: new Date(),
        createdAt: at,
        updatedAt: at,
      });
    }
  });
  after(async () => ctl.close());

  const list = (query: string) => ctl.fetch(`/edge/client/v1/controllers${query}`, { headers: { 'svc-session': token } });

  it('pages with the default limit of 10 and reports the total', async () => {
    const { data, meta } = (await list('')).json();
    assert.equal(data.length, 10);
    assert.deepEqual(meta.pagination, { limit: 10, offset: 0, totalCount: 13 });
    assert.ok(meta.filterableFields.includes('name'));
  });

  it('filters, sorts and pages in the database', async () => {
    const filter = encodeURIComponent('name contains "peer" and isOnline = true sort by name desc');
    const { data, meta } = (await list(`?filter=${filter}&limit=2&offset=1`)).json();
    assert.deepEqual(data.map((c: { name: string }) => c.name), ['peer-10', 'peer-08']);
    assert.deepEqual(meta.pagination, { limit: 2, offset: 1, totalCount: 6 });
  });

  it("shows each controller's control-plane address to administrators and hides it from clients", async () => {
    const filter = encodeURIComponent('name = "peer-02"');
    const client = (await list(`?filter=${filter}`)).json();
    assert.equal(client.data[0].ctrlAddress, null);
    const admin = (await ctl.fetch(`/edge/management/v1/controllers?filter=${filter}`, { headers: { 'svc-session': token } })).json();
    assert.equal(admin.data[0].ctrlAddress, 'tls:peer-02.example:6262');
  });

  it('compares datetimes and accepts the sort parameter', async () => {
    const filter = encodeURIComponent('createdAt < datetime(2026-01-04T00:00:00Z)');
    const { data } = (await list(`?filter=${filter}&sort=createdAt desc`)).json();
    assert.deepEqual(data.map((c: { name: string }) => c.name), ['peer-03', 'peer-02', 'peer-01']);
  });

  it('refuses a malformed filter with 400 INVALID_FILTER naming the position', async () => {
    const res = await list(`?filter=${encodeURIComponent('name = ')}`);
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, 'INVALID_FILTER');
    assert.match(error.message, /column \d+/);
  });

  it('refuses a filter on an unknown field with a suggestion', async () => {
    const res = await list(`?filter=${encodeURIComponent('nmae = "x"')}`);
    assert.equal(res.status, 400);
    assert.match(res.json().error.message, /name/);
  });

  it('refuses non-integer paging with 400 INVALID_PAGINATION and an unknown sort field with INVALID_SORT_IDENTIFIER', async () => {
    assert.equal((await list('?limit=ten')).json().error.code, 'INVALID_PAGINATION');
    assert.equal((await list('?offset=-1')).json().error.code, 'INVALID_PAGINATION');
    assert.equal((await list('?sort=colour')).json().error.code, 'INVALID_SORT_IDENTIFIER');
  });

  it('clamps a limit above 500 to 500', async () => {
    assert.equal((await list('?limit=9000')).json().meta.pagination.limit, 500);
  });

  it('refuses the management list to a session that is not an administrator', async () => {
    const plainUser = await createIdentity(ctl.running.database, { name: 'plain-user' });
    const { token: plain } = await ctl.running.services.apiSessions.start(plainUser.id, 'password', null);
    const res = await ctl.fetch('/edge/management/v1/controllers', { headers: { 'svc-session': plain } });
    assert.equal(res.status, 403);
    assert.equal(res.json().error.code, 'FORBIDDEN');
    assert.equal((await ctl.fetch('/edge/client/v1/controllers', { headers: { 'svc-session': plain } })).status, 200);
  });
});
