/**
 * A third-party CA registered, verified, disabled or deleted at one controller is trusted (or no longer) at another
 * sharing the store (decision 0037): the trusted set follows the change feed, so no restart is needed; the sessions a
 * CA let in end at every controller when its logins are turned off (decision 0057). Two
 * controllers in this process on one PostgreSQL; PostgreSQL only (SQLite is one controller's store): on the SQLite
 * run nothing is registered, so nothing is reported skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';
import type { TestResponse } from '../helpers/https.js';
import { managementClient } from '../helpers/management.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

/** Asks until `done` holds (the other controller learns of a change within the feed's bound); the last answer. */
async function untilDone(probe: () => Promise<TestResponse>, done: (res: TestResponse) => boolean): Promise<TestResponse> {
  for (let attempt = 0; ; attempt++) {
    const res = await probe();
    if (done(res) || attempt >= 200) return res;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

if (testDialect === 'postgres') {
  describe('third-party CAs across two controllers on one PostgreSQL', () => {
    let shared: { db: string; drop(): Promise<void> };
    let a: TestController;
    let b: TestController;
    let pki: OpensslPki;
    let device: Issued;
    let caId: string;

    before(async () => {
      shared = await newSharedDatabase();
      a = await startTestController({ databaseTarget: shared.db });
      b = await startTestController({ databaseTarget: shared.db });
      pki = makeOpensslPki('Shared');
      device = pki.client('device-1');
    });
    after(async () => {
      await b.close();
      await a.close();
      await shared.drop();
      pki.dispose();
    });

    const certLoginAt = (ctl: TestController) =>
      ctl.fetch('/edge/client/v1/authenticate?method=cert', { method: 'POST', body: {}, cert: device.certPem + pki.intermediate.certPem, key: device.keyPem });
    const enrollAt = (ctl: TestController) =>
      ctl.fetch('/edge/client/v1/enroll/ca', { method: 'POST', cert: device.certPem + pki.intermediate.certPem, key: device.keyPem });

    it('auto-enrolls and logs in at the second controller a certificate of a CA verified at the first', async () => {
      const adminA = managementClient(a, await a.adminToken());
      // The second controller reads the empty trusted set first, so that what it keeps must be dropped.
      assert.equal((await enrollAt(b)).status, 400);
      const created = await adminA.post('/cas', { name: 'shared', certPem: pki.root.certPem, isAuthEnabled: true, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, identityRoles: [] });
      assert.equal(created.status, 201, created.text);
      caId = created.json().data.id;
      const token = (await adminA.get(`/cas/${caId}`)).json().data.verificationToken;
      const verification = pki.issue(token, { signer: pki.root, extensions: ['basicConstraints=CA:FALSE'] });
      const verified = await a.fetch(`/edge/management/v1/cas/${caId}/verify`, { method: 'POST', headers: { 'svc-session': await a.adminToken(), 'content-type': 'text/plain' }, body: verification.certPem });
      assert.equal(verified.status, 200, verified.text);

      const enrolled = await untilDone(() => enrollAt(b), (res) => res.status === 200);
      assert.equal(enrolled.status, 200, enrolled.text);
      assert.equal((await certLoginAt(b)).status, 200);
      assert.equal((await certLoginAt(a)).status, 200);
    });

    it('refuses the certificate at the second controller once the first disables the CA for logins, and ends the session it opened there', async () => {
      const adminA = managementClient(a, await a.adminToken());
      const login = await certLoginAt(b);
      assert.equal(login.status, 200, login.text);
      const sessionAtB = () => b.fetch('/edge/client/v1/current-api-session', { headers: { 'svc-session': login.headers['svc-session'] as string } });
      assert.equal((await sessionAtB()).status, 200, 'the second controller now keeps the session in memory');
      assert.equal((await adminA.patch(`/cas/${caId}`, { isAuthEnabled: false })).status, 200);
      const refused = await untilDone(() => certLoginAt(b), (res) => res.status === 401);
      assert.equal(refused.status, 401);
      // Decision 0057: the session the CA let in ends everywhere, through the change feed.
      const ended = await untilDone(sessionAtB, (res) => res.status === 401);
      assert.equal(ended.status, 401);
    });
  });
}
