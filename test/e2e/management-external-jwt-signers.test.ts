/**
 * External JWT signers end to end: management CRUD with field-named 400s, the audit trail, deletion refused while an
 * auth policy names the signer (and policies naming unknown signers refused), the public client list that shows
 * enabled signers and public fields only, and the `check` diagnostic against a real JWKS server.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { AUDIENCE, ISSUER, signerBody, signingCertificate, signingKey, signToken, startJwksServer, type JwksServer, type SigningKey } from '../helpers/external-jwt.js';
import { createIdentity } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

const CLIENT_FIELDS = ['_links', 'audience', 'clientId', 'createdAt', 'enrollToCertEnabled', 'enrollToTokenEnabled', 'externalAuthUrl', 'id', 'name', 'scopes', 'tags', 'targetToken', 'updatedAt'];

describe(`external JWT signer management (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let server: JwksServer;
  let key: SigningKey;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
    server = await startJwksServer(ctl.pki);
    key = await signingKey('idp-key');
    server.jwks.keys.push(key.publicJwk);
  });
  after(async () => {
    await server.close();
    await ctl.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await admin.post('/external-jwt-signers', body);
    assert.equal(res.status, 201, res.text);
    return res.json().data.id as string;
  };
  const read = async (id: string) => (await admin.get(`/external-jwt-signers/${id}`)).json().data;
  const count = async () => (await admin.get('/external-jwt-signers?limit=500')).json().meta.pagination.totalCount as number;
  const refusedField = async (send: Promise<{ status: number; json(): any; text: string }>, field: string, code = 'COULD_NOT_VALIDATE') => {
    const res = await send;
    assert.equal(res.status, 400, res.text);
    assert.deepEqual([res.json().error.code, res.json().error.cause?.field], [code, field], res.text);
    return res.json().error;
  };

  it('creates a signer, answers 201 with its id and link, and reads it back with the defaults filled in', async () => {
    const res = await admin.post('/external-jwt-signers', signerBody('defaults'));
    assert.equal(res.status, 201);
    const { id, _links } = res.json().data;
    assert.deepEqual(_links, { self: { href: `./external-jwt-signers/${id}` } });
    const signer = await read(id);
    const { createdAt, updatedAt, ...rest } = signer;
    assert.deepEqual(rest, {
      id,
      name: 'defaults',
      issuer: ISSUER,
      audience: AUDIENCE,
      enabled: true,
      certPem: null,
      jwksEndpoint: 'https://idp.example.test/jwks',
      kid: null,
      claimsProperty: 'sub',
      useExternalId: false,
      externalAuthUrl: null,
      clientId: null,
      scopes: [],
      targetToken: 'ACCESS',
      enrollToCertEnabled: false,
      enrollToTokenEnabled: false,
      // A JWKS signer has no one certificate to describe.
      commonName: '',
      fingerprint: null,
      notBefore: null,
      notAfter: null,
      tags: {},
      _links,
    });
    assert.equal(createdAt, updatedAt);
  });

  it('keeps every optional field of a certPem signer', async () => {
    const { certPem } = await signingCertificate(ctl.pki);
    const body = signerBody('with-cert', {
      jwksEndpoint: undefined,
      certPem,
      kid: 'cert-kid',
      claimsProperty: '/email',
      useExternalId: true,
      externalAuthUrl: 'https://idp.example.test/authorize',
      clientId: 'svc-client',
      scopes: ['openid', 'email'],
      targetToken: 'ID',
      tags: { owner: 'security' },
    });
    const signer = await read(await create(body));
    for (const field of ['certPem', 'kid', 'claimsProperty', 'useExternalId', 'externalAuthUrl', 'clientId', 'scopes', 'targetToken', 'tags']) {
      assert.deepEqual(signer[field], body[field], field);
    }
    assert.equal(signer.jwksEndpoint, null);
    const certificate = new X509Certificate(certPem);
    assert.deepEqual(
      { commonName: signer.commonName, fingerprint: signer.fingerprint, notBefore: signer.notBefore, notAfter: signer.notAfter },
      {
        commonName: 'idp-signing',
        fingerprint: certificate.fingerprint.replace(/:/g, '').toLowerCase(),
        notBefore: new Date(certificate.validFrom).toISOString(),
        notAfter: new Date(certificate.validTo).toISOString(),
      },
    );
  });

  it('lists signers with filters, sort and paging', async () => {
    for (const n of ['b', 'a', 'c']) await create(signerBody(`list-${n}`, { enabled: n !== 'c', issuer: `https://${n}.example` }));
    const names = async (filter: string) => (await admin.get(`/external-jwt-signers?filter=${encodeURIComponent(filter)}`)).json().data.map((s: { name: string }) => s.name);
    assert.deepEqual(await names('name contains "list-" sort by name desc'), ['list-c', 'list-b', 'list-a']);
    assert.deepEqual(await names('name contains "list-" and enabled = false'), ['list-c']);
    assert.deepEqual(await names('issuer = "https://a.example"'), ['list-a']);
    const page = (await admin.get(`/external-jwt-signers?filter=${encodeURIComponent('name contains "list-"')}&sort=name&limit=1&offset=1`)).json();
    assert.deepEqual(page.data.map((s: { name: string }) => s.name), ['list-b']);
    assert.deepEqual(page.meta.pagination, { limit: 1, offset: 1, totalCount: 3 });
    assert.ok(page.meta.filterableFields.includes('issuer'));
  });

  it('replaces a signer with PUT (absent optional fields return to defaults) and patches single fields', async () => {
    const id = await create(signerBody('to-change', { claimsProperty: 'email', scopes: ['openid'], tags: { a: 'b' } }));
    const put = await admin.put(`/external-jwt-signers/${id}`, signerBody('changed', { audience: 'other-audience' }));
    assert.deepEqual([put.status, put.json()], [200, { data: {}, meta: {} }]);
    let signer = await read(id);
    assert.deepEqual([signer.name, signer.audience, signer.claimsProperty, signer.scopes, signer.tags], ['changed', 'other-audience', 'sub', [], {}]);
    assert.equal((await admin.patch(`/external-jwt-signers/${id}`, { enabled: false, clientId: 'client-1' })).status, 200);
    signer = await read(id);
    assert.deepEqual([signer.enabled, signer.clientId, signer.name, signer.audience], [false, 'client-1', 'changed', 'other-audience']);
  });

  it('switches the key source by PATCH only when the other source is cleared in the same request', async () => {
    const id = await create(signerBody('switch-source'));
    const { certPem } = await signingCertificate(ctl.pki);
    await refusedField(admin.patch(`/external-jwt-signers/${id}`, { certPem }), 'jwksEndpoint');
    assert.equal((await admin.patch(`/external-jwt-signers/${id}`, { certPem, jwksEndpoint: null })).status, 200);
    const signer = await read(id);
    assert.deepEqual([signer.certPem, signer.jwksEndpoint], [certPem, null]);
  });

  it('refuses invalid signers with a 400 naming the field, and creates nothing', async () => {
    const before = await count();
    const { certPem } = await signingCertificate(ctl.pki);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['both key sources', signerBody('bad', { certPem }), 'jwksEndpoint'],
      ['no key source', signerBody('bad', { jwksEndpoint: null }), 'certPem'],
      ['a certPem that is not PEM', signerBody('bad', { jwksEndpoint: null, certPem: 'hello' }), 'certPem'],
      ['a certPem with a broken certificate', signerBody('bad', { jwksEndpoint: null, certPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }), 'certPem'],
      ['a certPem with two certificates', signerBody('bad', { jwksEndpoint: null, certPem: `${certPem}${certPem}` }), 'certPem'],
      ['a plain http jwksEndpoint', signerBody('bad', { jwksEndpoint: 'http://idp.example.test/jwks' }), 'jwksEndpoint'],
      ['a jwksEndpoint that is not a URL', signerBody('bad', { jwksEndpoint: 'idp.example.test/jwks' }), 'jwksEndpoint'],
      ['a jwksEndpoint on a link-local address', signerBody('bad', { jwksEndpoint: 'https://169.254.169.254/jwks' }), 'jwksEndpoint'],
      ['an externalAuthUrl that is not http(s)', signerBody('bad', { externalAuthUrl: 'ftp://idp.example.test' }), 'externalAuthUrl'],
      ['an unknown targetToken', signerBody('bad', { targetToken: 'BOTH' }), 'targetToken'],
      ['scopes that are not an array', signerBody('bad', { scopes: 'openid' }), 'scopes'],
      ['no issuer', signerBody('bad', { issuer: undefined }), 'issuer'],
      ['an empty audience', signerBody('bad', { audience: '' }), 'audience'],
      ['an unknown field', signerBody('bad', { enrollToCertEnabled: true }), 'enrollToCertEnabled'],
      ['a name in use', signerBody('defaults'), 'name'],
    ];
    for (const [what, body, field] of cases) {
      const error = await refusedField(admin.post('/external-jwt-signers', body), field);
      assert.ok(error.message.length > 0, what);
    }
    const http = await refusedField(admin.post('/external-jwt-signers', signerBody('bad', { jwksEndpoint: 'http://idp.example.test/jwks' })), 'jwksEndpoint');
    assert.match(http.message, /must be an https URL \(http needs edge\.externalJwt\.allowHttpJwks\)/);
    assert.equal(await count(), before);
  });

  it('answers 404 for an unknown signer, 401 without a session and 403 for a non-admin', async () => {
    assert.equal((await admin.get('/external-jwt-signers/nope')).status, 404);
    assert.equal((await admin.patch('/external-jwt-signers/nope', { enabled: true })).status, 404);
    assert.equal((await admin.del('/external-jwt-signers/nope')).status, 404);
    assert.equal((await managementClient(ctl, undefined).get('/external-jwt-signers')).status, 401);
    assert.equal((await managementClient(ctl, await nonAdminToken(ctl)).post('/external-jwt-signers', signerBody('x'))).status, 403);
  });

  it('records every mutation in the audit log with its actor, without the certificate body', async () => {
    const { certPem } = await signingCertificate(ctl.pki);
    const id = await create(signerBody('audited', { jwksEndpoint: null, certPem }));
    await admin.put(`/external-jwt-signers/${id}`, signerBody('audited-2'));
    await admin.patch(`/external-jwt-signers/${id}`, { enabled: false });
    await admin.del(`/external-jwt-signers/${id}`);
    const entries = (await admin.get(`/audit-log?limit=500&filter=${encodeURIComponent(`entityId = "${id}"`)}`)).json().data;
    assert.deepEqual(entries.map((e: { action: string }) => e.action).sort(), ['create', 'delete', 'patch', 'update']);
    assert.ok(entries.every((e: { entityType: string; actorName: string }) => e.entityType === 'external-jwt-signer' && e.actorName === 'admin'));
    const created = entries.find((e: { action: string }) => e.action === 'create');
    assert.deepEqual([created.details.name, created.details.certPem], ['audited', 'set']);
    assert.doesNotMatch(JSON.stringify(entries), /BEGIN CERTIFICATE/);
  });

  it('refuses to delete a signer an auth policy names, naming the policy, and deletes it once unused', async () => {
    const primary = await create(signerBody('primary-signer'));
    const secondary = await create(signerBody('secondary-signer'));
    const body = authPolicyBody('uses-signers');
    body.primary.extJwt = { allowed: true, allowedSigners: [primary] };
    body.secondary = { requireTotp: false, requireExtJwt: secondary };
    const policy = (await admin.post('/auth-policies', body)).json().data.id;
    for (const id of [primary, secondary]) {
      const res = await admin.del(`/external-jwt-signers/${id}`);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.json().error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      assert.match(res.json().error.message, /is used by auth policy 'uses-signers'/);
      assert.deepEqual(res.json().error.cause.policies, [{ id: policy, name: 'uses-signers' }]);
    }
    assert.equal((await admin.patch(`/auth-policies/${policy}`, { primary: { extJwt: { allowedSigners: [] } }, secondary: { requireExtJwt: null } })).status, 200);
    assert.equal((await admin.del(`/external-jwt-signers/${primary}`)).status, 200);
    assert.equal((await admin.get(`/external-jwt-signers/${primary}`)).status, 404);
  });

  it('refuses auth policies that name a signer that does not exist', async () => {
    const unknownPrimary = authPolicyBody('unknown-primary');
    unknownPrimary.primary.extJwt = { allowed: true, allowedSigners: ['no-such-signer'] };
    await refusedField(admin.post('/auth-policies', unknownPrimary), 'primary.extJwt.allowedSigners', 'REFERENCED_ENTITY_NOT_FOUND');
    const unknownSecondary = authPolicyBody('unknown-secondary');
    unknownSecondary.secondary = { requireTotp: false, requireExtJwtSigner: 'no-such-signer' };
    await refusedField(admin.post('/auth-policies', unknownSecondary), 'secondary.requireExtJwt', 'REFERENCED_ENTITY_NOT_FOUND');
    const policy = (await admin.post('/auth-policies', authPolicyBody('later-unknown'))).json().data.id;
    await refusedField(admin.patch(`/auth-policies/${policy}`, { secondary: { requireExtJwt: 'no-such-signer' } }), 'secondary.requireExtJwt', 'REFERENCED_ENTITY_NOT_FOUND');
    await refusedField(admin.put(`/auth-policies/${policy}`, unknownPrimary), 'primary.extJwt.allowedSigners', 'REFERENCED_ENTITY_NOT_FOUND');
    assert.equal((await admin.get(`/auth-policies?filter=${encodeURIComponent('name in ["unknown-primary", "unknown-secondary"]')}`)).json().data.length, 0);
  });

  describe('the client list', () => {
    const client = (query = '') => ctl.fetch(`/edge/client/v1/external-jwt-signers${query}`);

    it('lists enabled signers to anyone, with the public fields only', async () => {
      const id = await create(
        signerBody('client-list-public', { externalAuthUrl: 'https://idp.example.test/login', clientId: 'public-client', scopes: ['openid'], claimsProperty: 'email', kid: 'secret-kid' }),
      );
      await create(signerBody('client-list-hidden', { enabled: false }));
      const res = await client(`?filter=${encodeURIComponent('name contains "client-list-"')}&limit=500`);
      assert.equal(res.status, 200, res.text);
      const { data, meta } = res.json();
      assert.deepEqual(data.map((s: { name: string }) => s.name), ['client-list-public']);
      assert.deepEqual(Object.keys(data[0]).sort(), CLIENT_FIELDS);
      assert.deepEqual([data[0].id, data[0].externalAuthUrl, data[0].clientId, data[0].scopes, data[0].audience, data[0].targetToken], [
        id,
        'https://idp.example.test/login',
        'public-client',
        ['openid'],
        AUDIENCE,
        'ACCESS',
      ]);
      assert.doesNotMatch(res.text, /idp\.example\.test\/jwks|secret-kid|"email"|https:\/\/idp\.example\.test"/);
      assert.deepEqual(meta.filterableFields.sort(), ['audience', 'clientId', 'createdAt', 'externalAuthUrl', 'id', 'name', 'targetToken', 'updatedAt']);
      assert.equal((await client(`?filter=${encodeURIComponent('name = "client-list-hidden"')}`)).json().data.length, 0);
    });

    it('refuses filters on fields it does not show', async () => {
      for (const filter of ['issuer = "x"', 'enabled = false', 'jwksEndpoint contains "x"', 'claimsProperty = "sub"']) {
        const res = await client(`?filter=${encodeURIComponent(filter)}`);
        assert.deepEqual([res.status, res.json().error.code], [400, 'INVALID_FILTER'], filter);
      }
    });
  });

  describe('the check operation', () => {
    it('says which identity a valid token maps to, with its claims', async () => {
      const alice = await createIdentity(ctl.running.database, { name: 'alice-ext' });
      const signer = await create(signerBody('checked', { jwksEndpoint: `${server.origin}/jwks` }));
      const res = await admin.post(`/external-jwt-signers/${signer}/check`, { token: await signToken({ sub: alice.id, email: 'a@x' }, { key }) });
      assert.equal(res.status, 200, res.text);
      const { data } = res.json();
      assert.deepEqual([data.ok, data.message, data.identityId, data.identityName, data.claims.email], [true, `token maps to identity alice-ext (${alice.id})`, alice.id, 'alice-ext', 'a@x']);
      assert.equal(data.check, undefined);
    });

    it('names the first failing check in plain words', async () => {
      const signer = await create(signerBody('checked-2', { jwksEndpoint: `${server.origin}/jwks` }));
      const res = await admin.post(`/external-jwt-signers/${signer}/check`, { token: await signToken({ sub: 'x' }, { key, issuer: 'https://wrong.example' }) });
      assert.deepEqual(res.json().data, { ok: false, check: 'issuer', message: `issuer mismatch: the token's iss is "https://wrong.example", the signer expects "${ISSUER}"` });
    });

    it('answers 404 for an unknown signer and 400 without a token', async () => {
      assert.equal((await admin.post('/external-jwt-signers/nope/check', { token: 'a.b.c' })).status, 404);
      const signer = await create(signerBody('checked-3'));
      await refusedField(admin.post(`/external-jwt-signers/${signer}/check`, {}), 'token');
    });
  });
});

describe(`external JWT signers with allowHttpJwks (${testDialect})`, () => {
  let ctl: TestController;
  before(async () => {
    ctl = await startTestController({ modify: (config) => (config.edge.externalJwt = { allowHttpJwks: true }) });
  });
  after(async () => ctl.close());

  it('accepts a plain http JWKS endpoint', async () => {
    const admin = managementClient(ctl, await ctl.adminToken());
    const res = await admin.post('/external-jwt-signers', signerBody('plain', { jwksEndpoint: 'http://idp.example.test/jwks' }));
    assert.equal(res.status, 201, res.text);
  });
});
