/**
 * Third-party CA management (`/edge/management/v1/cas`) through the resource kit: list with filter, sort and paging,
 * read, replace (the certificate stays), patch, delete, the audit trail, administrators only, and every operation in
 * the served OpenAPI documents. Refused inputs name their field and change nothing. Certificates come from openssl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';
import { makeOpensslPki, type OpensslPki } from '../helpers/openssl-pki.js';

describe(`CA management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  const pkis: OpensslPki[] = [];
  const ids: Record<string, string> = {};

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    for (const name of ['Alpha', 'Bravo', 'Charlie']) pkis.push(makeOpensslPki(name));
    for (const [index, pki] of pkis.entries()) {
      const name = ['alpha', 'bravo', 'charlie'][index] as string;
      const res = await admin.post('/cas', {
        name,
        certPem: pki.root.certPem,
        isAuthEnabled: index !== 1,
        isAutoCaEnrollmentEnabled: false,
        isOttCaEnrollmentEnabled: true,
        identityRoles: [],
        tags: { team: name },
      });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.json().data.id;
    }
  });
  after(async () => {
    for (const pki of pkis) pki.dispose();
    await ctl.close();
  });

  it('lists CAs with filter, sort and paging', async () => {
    const page = (await admin.get(`/cas?filter=${encodeURIComponent('isAuthEnabled = true')}&sort=${encodeURIComponent('name desc')}&limit=1&offset=1`)).json();
    assert.deepEqual(page.data.map((ca: any) => ca.name), ['alpha']);
    assert.equal(page.meta.pagination.totalCount, 2);
    assert.ok(page.meta.filterableFields.includes('isVerified'));
    const bad = await admin.get(`/cas?filter=${encodeURIComponent('certPem = "x"')}`);
    assert.equal(bad.status, 400);
  });

  it('replaces the settings but keeps the certificate, and refuses a certificate in a PUT', async () => {
    const before_ = (await admin.get(`/cas/${ids.alpha}`)).json().data;
    const put = await admin.put(`/cas/${ids.alpha}`, { name: 'alpha-2', isAuthEnabled: false, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, identityRoles: ['edge'] });
    assert.equal(put.status, 200, put.text);
    const after_ = (await admin.get(`/cas/${ids.alpha}`)).json().data;
    assert.equal(after_.name, 'alpha-2');
    assert.equal(after_.certPem, before_.certPem);
    assert.equal(after_.fingerprint, before_.fingerprint);
    assert.equal(after_.verificationToken, before_.verificationToken);
    assert.equal(after_.identityNameFormat, '[caName]-[commonName]', 'absent optional fields return to their defaults');
    assert.deepEqual(after_.tags, {});
    const withCert = await admin.put(`/cas/${ids.alpha}`, { name: 'alpha-3', certPem: pkis[1]!.root.certPem, isAuthEnabled: false, isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, identityRoles: [] });
    assert.equal(withCert.status, 400);
    assert.match(withCert.text, /certPem/);
    assert.equal((await admin.get(`/cas/${ids.alpha}`)).json().data.name, 'alpha-2');
  });

  it('patches the given fields and refuses bad role attributes, name formats and claims naming the field', async () => {
    const patched = await admin.patch(`/cas/${ids.bravo}`, {
      identityRoles: ['laptops'],
      externalIdClaim: { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'SPLIT', parserCriteria: '/', index: 3 },
    });
    assert.equal(patched.status, 200, patched.text);
    const bravo = (await admin.get(`/cas/${ids.bravo}`)).json().data;
    assert.deepEqual(bravo.identityRoles, ['laptops']);
    assert.equal(bravo.externalIdClaim.location, 'SAN_URI');
    assert.deepEqual(bravo.tags, { team: 'bravo' }, 'untouched fields stay');

    const cases: Array<[object, string]> = [
      [{ identityRoles: ['ok', '#attr'] }, 'identityRoles[1]'],
      [{ identityNameFormat: '[commonName]-[bogus]' }, 'identityNameFormat'],
      [{ externalIdClaim: { location: 'COMMON_NAME', matcher: 'PREFIX', matcherCriteria: '', parser: 'NONE', parserCriteria: '', index: 0 } }, 'externalIdClaim.matcherCriteria'],
      [{ name: 'charlie' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await admin.patch(`/cas/${ids.bravo}`, body);
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.equal(res.json().error.cause.field, field);
    }
    const unknownField = await admin.patch(`/cas/${ids.bravo}`, { isVerified: true });
    assert.equal(unknownField.status, 400);
    assert.deepEqual((await admin.get(`/cas/${ids.bravo}`)).json().data, bravo, 'nothing changed');
  });

  it('deletes a CA, and records every change in the audit trail', async () => {
    assert.equal((await admin.del(`/cas/${ids.charlie}`)).status, 200);
    assert.equal((await admin.get(`/cas/${ids.charlie}`)).status, 404);
    assert.equal((await admin.del(`/cas/${ids.charlie}`)).status, 404);
    const trail = (await admin.get(`/audit-log?limit=100&filter=${encodeURIComponent('entityType = "ca"')}`)).json().data;
    const actions = trail.map((entry: any) => `${entry.action}:${entry.entityId}`);
    for (const expected of [`create:${ids.charlie}`, `delete:${ids.charlie}`, `update:${ids.alpha}`, `patch:${ids.bravo}`]) assert.ok(actions.includes(expected), expected);
    assert.ok(!JSON.stringify(trail).includes('BEGIN CERTIFICATE'), 'no certificate body in the trail');
  });

  it('is for administrators only', async () => {
    const user = managementClient(ctl, await nonAdminToken(ctl, 'ca-curious'));
    assert.equal((await user.get('/cas')).status, 403);
    assert.equal((await user.post(`/cas/${ids.bravo}/verify`, {})).status, 403);
    assert.equal((await managementClient(ctl, undefined).get(`/cas/${ids.bravo}/jwt`)).status, 401);
  });

  it('serves every CA and CA enrollment operation in the OpenAPI documents', async () => {
    const management = (await ctl.fetch('/edge/management/v1/specs/edge-management/spec')).json().data;
    const operationIds = Object.values(management.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    for (const id of ['listCas', 'createCa', 'detailCa', 'updateCa', 'patchCa', 'deleteCa', 'verifyCa', 'getCaJwt']) assert.ok(operationIds.includes(id), id);
    const clientDoc = (await ctl.fetch('/edge/client/v1/specs/edge-client/spec')).json().data;
    assert.ok(clientDoc.paths['/enroll/ottca']?.post);
    assert.ok(clientDoc.paths['/enroll/ca']?.post);
  });
});
