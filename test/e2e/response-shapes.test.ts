/**
 * Every JSON operation of both Edge APIs answers with every field the public Edge API v1 definition of its response
 * requires, with the right JSON type (issue 11, point 7): the API session (legacy and OIDC), identities, authenticators,
 * auth policies, external JWT signers, enrollments, MFA, controllers, version, specs and the audit log. The expected
 * fields are written out in test/helpers/shapes.ts; the neutral values of what cannot be known yet are pinned here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { signerBody, signingCertificate } from '../helpers/external-jwt.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from '../helpers/fixtures.js';
import { authPolicyBody, managementClient, MANAGEMENT, type ManagementClient } from '../helpers/management.js';
import { discoverClient, loginToCallback } from '../helpers/oidc.js';
import {
  API_VERSION,
  AUTH_POLICY_DETAIL,
  AUTHENTICATOR_DETAIL,
  CLIENT_EXTERNAL_JWT_SIGNER_DETAIL,
  CONTROLLER_DETAIL,
  CREATE_LOCATION,
  CURRENT_API_SESSION_DETAIL,
  DETAIL_MFA,
  DETAIL_MFA_RECOVERY_CODES,
  ENROLLMENT_DETAIL,
  ENVELOPE,
  EXTERNAL_JWT_SIGNER_DETAIL,
  IDENTITY_DETAIL,
  LIST_ENVELOPE,
  listShapeProblems,
  shapeProblems,
  SPEC_DETAIL,
  VERSION,
  BASE_ENTITY,
  EDGE_ROUTER_DETAIL,
  POSTURE_CHECK_DETAIL,
  POSTURE_CHECK_TYPE_DETAIL,
  POSTURE_CHECK_TYPE_FIELDS,
  TERMINATOR_DETAIL,
  CONFIG_TYPE_DETAIL,
  CONFIG_DETAIL,
  SERVICE_DETAIL,
  type Shape,
} from '../helpers/shapes.js';
import { totpCode } from '../helpers/totp.js';

const CLIENT = '/edge/client/v1';
const APIS = [CLIENT, MANAGEMENT];

describe(`response shapes of both Edge APIs (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let adminToken: string;
  let user: { id: string; token: string };
  before(async () => {
    ctl = await startTestController();
    adminToken = await ctl.adminToken();
    admin = managementClient(ctl, adminToken);
    const identity = await createIdentity(ctl.running.database, { name: 'shape-user', password: 'shape-password' });
    const login = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'shape-user', password: 'shape-password' } });
    user = { id: identity.id, token: login.json().data.token };
  });
  after(async () => ctl.close());

  const get = (path: string, token?: string) => ctl.fetch(path, token === undefined ? {} : { headers: { 'svc-session': token } });
  const bearer = (path: string, accessToken: string) => ctl.fetch(path, { headers: { authorization: `Bearer ${accessToken}` } });

  /** Problems of a detail answer: the envelope, then its data against `shape`. */
  function detailProblems(res: { status: number; text: string; json(): any }, shape: Shape): string[] {
    assert.ok(res.status >= 200 && res.status < 300, res.text);
    return [...shapeProblems(res.json(), ENVELOPE), ...shapeProblems(res.json().data, shape)];
  }
  /** Problems of a list answer: the envelope with its pagination, then every item against `shape`. */
  function listProblems(res: { status: number; text: string; json(): any }, shape: Shape, atLeast = 1): string[] {
    assert.equal(res.status, 200, res.text);
    assert.ok(res.json().data.length >= atLeast, `expected at least ${atLeast} item(s): ${res.text}`);
    return [...shapeProblems(res.json(), LIST_ENVELOPE), ...listShapeProblems(res.json().data, shape)];
  }

  describe('informational operations', () => {
    it('answers version (also at the API root) with every apiVersion holding its path, on both APIs', async () => {
      for (const api of APIS) {
        for (const path of [`${api}/version`, `${api}/`]) {
          const res = await get(path);
          assert.deepEqual(detailProblems(res, VERSION), [], path);
          for (const [binding, versions] of Object.entries(res.json().data.apiVersions as Record<string, Record<string, unknown>>)) {
            for (const [version, entry] of Object.entries(versions)) assert.deepEqual(shapeProblems(entry, API_VERSION), [], `${path} ${binding} ${version}`);
          }
        }
      }
    });

    it('answers capabilities, protocols and specs with their reference shapes', async () => {
      for (const api of APIS) {
        const capabilities = await get(`${api}/enumerated-capabilities`);
        assert.deepEqual(shapeProblems(capabilities.json(), { data: 'array', meta: 'object' }), []);
        const protocols = (await get(`${api}/protocols`)).json();
        for (const protocol of Object.values(protocols.data)) assert.deepEqual(shapeProblems(protocol, { address: 'string' }), []);
        assert.deepEqual(listProblems(await get(`${api}/specs`), SPEC_DETAIL), []);
        assert.deepEqual(detailProblems(await get(`${api}/specs/edge-client`), SPEC_DETAIL), []);
      }
    });

    it('lists controllers with every controllerDetail field, on both APIs', async () => {
      assert.deepEqual(listProblems(await get(`${CLIENT}/controllers`, adminToken), CONTROLLER_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/controllers'), CONTROLLER_DETAIL), []);
      assert.equal((await admin.get('/controllers')).json().data[0].isPreferredLeader, false);
    });

    it('documents the new required fields in the served OpenAPI document', async () => {
      const doc = (await get(`${CLIENT}/specs/edge-client/spec`)).json().data;
      const session = doc.paths['/current-api-session'].get.responses['200'].content['application/json'].schema.properties.data;
      for (const field of ['token', 'authenticatorId', 'configTypes', 'ipAddress', 'isCertExtendable', 'cachedLastActivityAt', 'cachedUpdatedAt', 'improperClientCertChain', 'expiresAt']) {
        assert.ok(session.required.includes(field), field);
      }
      const identity = doc.paths['/current-identity'].get.responses['200'].content['application/json'].schema.properties.data;
      for (const field of ['sdkInfo', 'envInfo', 'hasApiSession', 'hasEdgeRouterConnection', 'edgeRouterConnectionStatus', 'serviceHostingCosts', 'isMfaEnabled', 'permissions']) {
        assert.ok(identity.required.includes(field), field);
      }
      assert.equal(identity.properties.sdkInfo.properties.appId.maxLength, 255);
    });
  });

  describe('the API session', () => {
    it('answers authenticate with every currentApiSessionDetail field on both APIs, and the neutral values pinned', async () => {
      for (const api of APIS) {
        const res = await ctl.fetch(`${api}/authenticate?method=password`, { method: 'POST', body: { username: 'shape-user', password: 'shape-password' } });
        assert.deepEqual(detailProblems(res, CURRENT_API_SESSION_DETAIL), [], api);
        const { data } = res.json();
        assert.equal(data.token, res.headers['svc-session']);
        assert.deepEqual(data.configTypes, []);
        assert.equal(data.ipAddress, '127.0.0.1');
        assert.equal(data.lastActivityAt, data.cachedLastActivityAt);
        assert.equal(data.cachedUpdatedAt, data.updatedAt);
        assert.deepEqual(
          [data.isCertExtendable, data.isCertExtendRequested, data.isCertKeyRollRequested, data.improperClientCertChain, data.isMfaRequired, data.isMfaComplete],
          [false, false, false, false, false, false],
        );
        assert.equal(data.identity.entity, 'identities');
      }
    });

    it('names the authenticator that proved the login: the password one, and the certificate one', async () => {
      const authenticators = (await admin.get(`/identities/${user.id}/authenticators`)).json().data;
      const password = await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'shape-user', password: 'shape-password' } });
      assert.equal(password.json().data.authenticatorId, authenticators[0].id);

      const certUser = await createIdentity(ctl.running.database, { name: 'shape-cert-user' });
      const cert = await issueClientCertificate(ctl.pki, certUser.id);
      await addCertAuthenticator(ctl.running.database, certUser.id, cert.leafPem);
      const certAuthenticator = (await admin.get(`/identities/${certUser.id}/authenticators`)).json().data[0].id;
      const certLogin = await ctl.fetch(`${CLIENT}/authenticate?method=cert`, { method: 'POST', cert: cert.certPem, key: cert.keyPem });
      assert.deepEqual(detailProblems(certLogin, CURRENT_API_SESSION_DETAIL), []);
      assert.equal(certLogin.json().data.authenticatorId, certAuthenticator);
      const read = await get(`${CLIENT}/current-api-session`, certLogin.json().data.token);
      assert.equal(read.json().data.authenticatorId, certAuthenticator);
    });

    it('answers GET current-api-session with every field for a legacy session, on both APIs', async () => {
      for (const api of APIS) {
        const res = await get(`${api}/current-api-session`, user.token);
        assert.deepEqual(detailProblems(res, CURRENT_API_SESSION_DETAIL), [], api);
        assert.equal(res.json().data.token, user.token);
        assert.equal(res.json().data.expiresAt, res.headers['expires-at']);
      }
    });

    it('answers GET current-api-session with every field for an OIDC session, the access token as its token', async () => {
      const config = await discoverClient(ctl);
      const login = await loginToCallback(ctl, config, 'shape-user', 'shape-password');
      const tokens = await client.authorizationCodeGrant(config, login.callback, { pkceCodeVerifier: login.verifier, expectedState: login.state, expectedNonce: login.nonce });
      const [passwordAuthenticator] = (await admin.get(`/identities/${user.id}/authenticators`)).json().data;
      for (const api of APIS) {
        const res = await bearer(`${api}/current-api-session`, tokens.access_token);
        assert.deepEqual(detailProblems(res, CURRENT_API_SESSION_DETAIL), [], api);
        const { data } = res.json();
        assert.equal(data.token, tokens.access_token);
        // What the login used, as the OIDC session recorded it (decision 0038): a password is not extendable.
        assert.deepEqual([data.authenticatorId, data.ipAddress, data.isCertExtendable], [passwordAuthenticator.id, '127.0.0.1', false]);
        assert.equal(data.expiresAt, res.headers['expires-at']);
      }
      const identity = await bearer(`${CLIENT}/current-identity`, tokens.access_token);
      assert.deepEqual(detailProblems(identity, IDENTITY_DETAIL), []);
    });
  });

  describe('identities and authenticators', () => {
    it('answers current-identity with every identityDetail field and the neutral router and hosting values', async () => {
      for (const api of APIS) {
        const res = await get(`${api}/current-identity`, user.token);
        assert.deepEqual(detailProblems(res, IDENTITY_DETAIL), [], api);
        const { data } = res.json();
        assert.deepEqual(
          {
            hasEdgeRouterConnection: data.hasEdgeRouterConnection,
            edgeRouterConnectionStatus: data.edgeRouterConnectionStatus,
            defaultHostingCost: data.defaultHostingCost,
            defaultHostingPrecedence: data.defaultHostingPrecedence,
            serviceHostingCosts: data.serviceHostingCosts,
            serviceHostingPrecedences: data.serviceHostingPrecedences,
            appData: data.appData,
            permissions: data.permissions,
            sdkInfo: data.sdkInfo,
            envInfo: data.envInfo,
            hasApiSession: data.hasApiSession,
            isMfaEnabled: data.isMfaEnabled,
          },
          {
            hasEdgeRouterConnection: false,
            edgeRouterConnectionStatus: 'offline',
            defaultHostingCost: 0,
            defaultHostingPrecedence: 'default',
            serviceHostingCosts: {},
            serviceHostingPrecedences: {},
            appData: {},
            permissions: [],
            sdkInfo: {},
            envInfo: {},
            hasApiSession: true,
            isMfaEnabled: false,
          },
        );
      }
    });

    it('answers the management identity list and detail with every identityDetail field, pending enrollments included', async () => {
      const created = await admin.post('/identities', { name: 'shape-enrolling', type: 'User', isAdmin: false, enrollment: { ott: true, updb: 'shape-enrolling' } });
      assert.deepEqual(detailProblems(created, CREATE_LOCATION), []);
      const id = created.json().data.id;
      const detail = await admin.get(`/identities/${id}`);
      assert.deepEqual(detailProblems(detail, IDENTITY_DETAIL), []);
      const pending = { id: 'string', jwt: 'string', token: 'string', expiresAt: 'string' };
      assert.deepEqual(shapeProblems(detail.json().data.enrollment, { ott: 'object', updb: 'object' }), []);
      assert.deepEqual([...shapeProblems(detail.json().data.enrollment.ott, pending), ...shapeProblems(detail.json().data.enrollment.updb, pending)], []);
      const list = await admin.get('/identities?limit=500');
      assert.deepEqual(listProblems(list, IDENTITY_DETAIL, 3), []);
      const listed = list.json().data.find((item: { id: string }) => item.id === id);
      assert.deepEqual(listed, detail.json().data, 'a list item is the detail');
    });

    it('answers every authenticator read with every authenticatorDetail field, on both APIs', async () => {
      assert.deepEqual(listProblems(await get(`${CLIENT}/current-identity/authenticators`, user.token), AUTHENTICATOR_DETAIL), []);
      assert.deepEqual(listProblems(await get(`${MANAGEMENT}/current-identity/authenticators`, user.token), AUTHENTICATOR_DETAIL), []);
      const own = (await get(`${CLIENT}/current-identity/authenticators`, user.token)).json().data[0];
      assert.deepEqual(detailProblems(await get(`${CLIENT}/current-identity/authenticators/${own.id}`, user.token), AUTHENTICATOR_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/authenticators'), AUTHENTICATOR_DETAIL), []);
      assert.deepEqual(detailProblems(await admin.get(`/authenticators/${own.id}`), AUTHENTICATOR_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get(`/identities/${user.id}/authenticators`), AUTHENTICATOR_DETAIL), []);
      assert.deepEqual(
        [own.isExtendRequested, own.isKeyRollRequested, own.extendRequestedAt, own.lastAuthResolvedToRoot, own.lastExtendRolledKeys],
        [false, false, null, false, false],
      );
    });
  });

  describe('policies, signers, enrollments and the audit log', () => {
    it('answers auth policies with every authPolicyDetail field', async () => {
      const created = await admin.post('/auth-policies', authPolicyBody('shape-policy'));
      assert.deepEqual(detailProblems(created, CREATE_LOCATION), []);
      assert.deepEqual(detailProblems(await admin.get(`/auth-policies/${created.json().data.id}`), AUTH_POLICY_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/auth-policies'), AUTH_POLICY_DETAIL, 2), []);
    });

    it('answers external JWT signers with every field of the management and the client definitions', async () => {
      const { certPem } = await signingCertificate(ctl.pki);
      const withCert = await admin.post('/external-jwt-signers', signerBody('shape-cert-signer', { jwksEndpoint: undefined, certPem, externalAuthUrl: 'https://idp.example.test/login' }));
      const withJwks = await admin.post('/external-jwt-signers', signerBody('shape-jwks-signer'));
      assert.deepEqual([...detailProblems(withCert, CREATE_LOCATION), ...detailProblems(withJwks, CREATE_LOCATION)], []);
      const certSigner = await admin.get(`/external-jwt-signers/${withCert.json().data.id}`);
      assert.deepEqual(detailProblems(certSigner, EXTERNAL_JWT_SIGNER_DETAIL), []);
      assert.deepEqual(shapeProblems(certSigner.json().data, { fingerprint: 'string', notBefore: 'string', notAfter: 'string' }), [], 'a certificate describes itself');
      assert.deepEqual(detailProblems(await admin.get(`/external-jwt-signers/${withJwks.json().data.id}`), EXTERNAL_JWT_SIGNER_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/external-jwt-signers'), EXTERNAL_JWT_SIGNER_DETAIL, 2), []);
      assert.deepEqual(listProblems(await get(`${CLIENT}/external-jwt-signers`), CLIENT_EXTERNAL_JWT_SIGNER_DETAIL, 2), []);
    });

    it('answers enrollments with every enrollmentDetail field, the refresh included', async () => {
      const identity = (await admin.post('/identities', { name: 'shape-enrollee', type: 'User', isAdmin: false })).json().data.id;
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const created = await admin.post('/enrollments', { method: 'ott', identityId: identity, expiresAt });
      assert.deepEqual(detailProblems(created, CREATE_LOCATION), []);
      const id = created.json().data.id;
      assert.deepEqual(detailProblems(await admin.get(`/enrollments/${id}`), ENROLLMENT_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/enrollments'), ENROLLMENT_DETAIL), []);
      assert.deepEqual(detailProblems(await admin.post(`/enrollments/${id}/refresh`, { expiresAt }), { ...ENROLLMENT_DETAIL, ...CREATE_LOCATION }), []);
    });

    it('answers config types, configs and services with every field of their details, the related lists too', async () => {
      const type = await admin.post('/config-types', { name: 'shape-type.v1', schema: { type: 'object' } });
      assert.deepEqual(detailProblems(type, CREATE_LOCATION), []);
      const typeId = type.json().data.id;
      assert.deepEqual(detailProblems(await admin.get(`/config-types/${typeId}`), CONFIG_TYPE_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/config-types'), CONFIG_TYPE_DETAIL, 5), []);
      const config = await admin.post('/configs', { name: 'shape-config', configTypeId: typeId, data: { any: 'thing' } });
      assert.deepEqual(detailProblems(config, CREATE_LOCATION), []);
      const configId = config.json().data.id;
      assert.deepEqual(detailProblems(await admin.get(`/configs/${configId}`), CONFIG_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/configs'), CONFIG_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get(`/config-types/${typeId}/configs`), CONFIG_DETAIL), []);
      const service = await admin.post('/services', { name: 'shape-service', encryptionRequired: true, configs: [configId] });
      assert.deepEqual(detailProblems(service, CREATE_LOCATION), []);
      const serviceId = service.json().data.id;
      assert.deepEqual(detailProblems(await admin.get(`/services/${serviceId}`), SERVICE_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/services'), SERVICE_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get(`/services/${serviceId}/configs`), CONFIG_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get(`/configs/${configId}/services`), SERVICE_DETAIL), []);
    });

    it('answers the audit log with the base entity fields of every entity', async () => {
      const res = await admin.get(`/audit-log?filter=${encodeURIComponent('entityType = "identity"')}`);
      assert.deepEqual(listProblems(res, { ...BASE_ENTITY, actorName: 'string', action: 'string', entityType: 'string', entityId: 'string', details: 'object' }), []);
      const entry = res.json().data[0];
      assert.deepEqual(entry._links, { entity: { href: `./identities/${entry.entityId}` } });
      assert.equal(entry.updatedAt, entry.createdAt);
    });
  });

  describe('MFA', () => {
    it('answers every MFA read with its reference shape, and the identity then shows isMfaEnabled', async () => {
      await createIdentity(ctl.running.database, { name: 'shape-mfa-user', password: 'shape-password' });
      const token = (await ctl.fetch(`${CLIENT}/authenticate?method=password`, { method: 'POST', body: { username: 'shape-mfa-user', password: 'shape-password' } })).json().data.token;
      const headers = { 'svc-session': token };
      const started = await ctl.fetch(`${CLIENT}/current-identity/mfa`, { method: 'POST', headers, body: {} });
      assert.equal(started.status, 201, started.text);
      assert.deepEqual([...detailProblems(started, CREATE_LOCATION), ...shapeProblems(started.json().data, DETAIL_MFA)], []);
      assert.deepEqual(detailProblems(await get(`${CLIENT}/current-identity/mfa`, token), DETAIL_MFA), []);
      const url = started.json().data.provisioningUrl as string;
      const verified = await ctl.fetch(`${CLIENT}/current-identity/mfa/verify`, { method: 'POST', headers, body: { code: totpCode(url, new Date()) } });
      assert.deepEqual(verified.json(), { data: {}, meta: {} });
      const codes = await ctl.fetch(`${CLIENT}/current-identity/mfa/recovery-codes`, { headers: { ...headers, 'mfa-validation-code': totpCode(url, new Date(Date.now() + 30_000)) } });
      assert.deepEqual(detailProblems(codes, DETAIL_MFA_RECOVERY_CODES), []);
      assert.equal((await get(`${CLIENT}/current-identity`, token)).json().data.isMfaEnabled, true);
    });
  });

  describe('edge routers, posture checks and terminators', () => {
    it('answers edge routers with every edgeRouterDetail field, the pending enrollment included', async () => {
      const created = await admin.post('/edge-routers', { name: 'shape-router', roleAttributes: ['shape'] });
      assert.deepEqual(detailProblems(created, CREATE_LOCATION), []);
      const detail = await admin.get(`/edge-routers/${created.json().data.id}`);
      assert.deepEqual(detailProblems(detail, EDGE_ROUTER_DETAIL), []);
      assert.deepEqual(shapeProblems(detail.json().data, { enrollmentJwt: 'string', enrollmentToken: 'string', enrollmentExpiresAt: 'string' }), []);
      assert.deepEqual(listProblems(await admin.get('/edge-routers'), EDGE_ROUTER_DETAIL), []);
      assert.deepEqual((await admin.post(`/edge-routers/${created.json().data.id}/re-enroll`)).json(), { data: {}, meta: {} });
    });

    it('answers posture checks of every type with every postureCheckDetail field and those of its type, and the check types', async () => {
      const bodies: Record<string, Record<string, unknown>> = {
        OS: { operatingSystems: [{ type: 'Linux', versions: [] }] },
        MAC: { macAddresses: ['001a2b3c4d5e'] },
        DOMAIN: { domains: ['corp.example'] },
        PROCESS: { process: { osType: 'Linux', path: '/bin/agent' } },
        PROCESS_MULTI: { semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/bin/agent' }] },
        MFA: {},
      };
      for (const [typeId, fields] of Object.entries(bodies)) {
        const created = await admin.post('/posture-checks', { name: `shape-check-${typeId}`, typeId, ...fields });
        assert.deepEqual(detailProblems(created, CREATE_LOCATION), [], typeId);
        const detail = await admin.get(`/posture-checks/${created.json().data.id}`);
        assert.deepEqual(detailProblems(detail, { ...POSTURE_CHECK_DETAIL, ...POSTURE_CHECK_TYPE_FIELDS[typeId] }), [], typeId);
      }
      assert.deepEqual(listProblems(await admin.get('/posture-checks'), POSTURE_CHECK_DETAIL, 6), []);
      assert.deepEqual(listProblems(await admin.get('/posture-check-types'), POSTURE_CHECK_TYPE_DETAIL, 6), []);
      assert.deepEqual(detailProblems(await admin.get('/posture-check-types/MFA'), POSTURE_CHECK_TYPE_DETAIL), []);
    });

    it('answers terminators with every terminatorDetail field, in both lists', async () => {
      const now = new Date().toISOString();
      const service = 'shape-terminator-service';
      await ctl.running.database.db
        .insertInto('services')
        .values({ id: service, name: service, tags: '{}', role_attributes: '[]', encryption_required: true, max_idle_time_millis: 0, terminator_strategy: 'smartrouting', created_at: now, updated_at: now })
        .execute();
      const router = (await admin.post('/edge-routers', { name: 'shape-terminator-router' })).json().data.id;
      const created = await admin.post('/terminators', { service, router, binding: 'transport', address: 'tcp:127.0.0.1:80' });
      assert.deepEqual(detailProblems(created, CREATE_LOCATION), []);
      assert.deepEqual(detailProblems(await admin.get(`/terminators/${created.json().data.id}`), TERMINATOR_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get('/terminators'), TERMINATOR_DETAIL), []);
      assert.deepEqual(listProblems(await admin.get(`/services/${service}/terminators`), TERMINATOR_DETAIL), []);
    });
  });
});
