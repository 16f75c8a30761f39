/**
 * Units of work (issue 13, point 3): a change of an identity, the enrollments it is created with, the lockouts it
 * clears and its audit entry commit together or not at all; so do an enrollment's create, refresh, delete and
 * consumption, an MFA enrollment's changes (with the code that allowed them), an authenticator's delete and a changed
 * password with the lockouts it clears, each with its audit entry. Each test injects a failure between two steps of
 * the real services over the real store and finds nothing half-written; a repository's own transaction joins the
 * unit of work it runs in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_ACTOR } from '../../src/domain/audit.js';
import type { Database } from '../../src/persistence/database.js';
import { createAuthPolicyRepository } from '../../src/persistence/repositories/auth-policies.js';
import { createAuthenticatorRepository } from '../../src/persistence/repositories/authenticators.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createOidcRepository } from '../../src/persistence/repositories/oidc.js';
import { newEntityId } from '../../src/shared/random.js';
import { createMfaRepository } from '../../src/persistence/repositories/mfa.js';
import { createSessionPresenceRepository } from '../../src/persistence/repositories/session-presence.js';
import { atomically, unitOfWork } from '../../src/persistence/unit-of-work.js';
import { createControllerPki, loadIdentity } from '../../src/pki/index.js';
import { createSecretBox, newSecretsKeyText, parseSecretsKey } from '../../src/crypto/secret-box.js';
import { buildAuditDomain } from '../../src/services/audit/index.js';
import { auditedChanges } from '../../src/services/audit/audited-changes.js';
import { buildEnrollmentAdministration, type EnrollmentSettings } from '../../src/services/enrollment/index.js';
import { createEnrollmentJwtSigner } from '../../src/services/enrollment/enrollment-jwt.js';
import { createPasswordGuard } from '../../src/services/authentication/password-guard.js';
import { createPasswordLockoutRepository } from '../../src/persistence/repositories/password-lockouts.js';
import { createIdentityService, type IdentityChangeScope, type IdentityService } from '../../src/services/identities/identities.js';
import { createEnrollmentRepository } from '../../src/persistence/repositories/enrollments.js';
import { createCredentialRepository } from '../../src/persistence/repositories/credentials.js';
import { createEnrollmentService } from '../../src/services/enrollment/enrollments.js';
import { createEnrollService } from '../../src/services/enrollment/enroll.js';
import { createMfaService } from '../../src/services/mfa/mfa.js';
import { createAuthenticatorService, type ReEnrollScope } from '../../src/services/identities/authenticators.js';
import { createOwnAuthenticatorService } from '../../src/services/identities/own-authenticators.js';
import { totpCodeAt } from '../../src/policy/totp.js';
import { systemClock } from '../../src/shared/clock.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

const silent = { info() {}, warn() {}, error() {} };
const injected = () => new Error('injected failure between two steps');

describe(`units of work (${testDialect})`, () => {
  let database: Database;
  let settings: EnrollmentSettings;
  const pkiDir = mkdtempSync(join(tmpdir(), 'svc-uow-pki-'));

  before(async () => {
    database = await openTestDatabase();
    const pki = await createControllerPki(pkiDir, { hosts: ['127.0.0.1'] });
    const identity = await loadIdentity({ cert: pki.clientCert, key: pki.clientKey, serverCert: pki.serverCert, serverKey: pki.serverKey, ca: pki.caBundle });
    settings = { clock: systemClock, jwt: createEnrollmentJwtSigner({ identity, issuer: 'https://127.0.0.1:1280' }), edgeIdentityDurationMs: 3_600_000 };
  });
  after(async () => {
    await database.close();
    rmSync(pkiDir, { recursive: true, force: true });
  });

  /** The identity service over the store, its unit of work's scope changed by `inject` (where a failure goes in). */
  function identityService(inject: (scope: IdentityChangeScope) => IdentityChangeScope = (scope) => scope): IdentityService {
    const work = unitOfWork(database, (store) => {
      const { audit, events } = buildAuditDomain(store, { clock: systemClock, log: silent });
      return inject({
        records: createIdentityRepository(store),
        enrollments: buildEnrollmentAdministration(store, settings),
        audit,
        passwords: createPasswordGuard({ lockouts: createPasswordLockoutRepository(store), events, clock: systemClock }),
      });
    });
    return createIdentityService({
      identities: createIdentityRepository(database),
      authPolicies: createAuthPolicyRepository(database),
      authenticators: createAuthenticatorRepository(database),
      enrollments: buildEnrollmentAdministration(database, settings),
      mfa: createMfaRepository(database, createSecretBox(parseSecretsKey(newSecretsKeyText()))),
      sessions: { presence: createSessionPresenceRepository(database), legacyTimeoutMs: 1_800_000, accessTokenLifetimeMs: 1_800_000 },
      clock: systemClock,
      work,
    });
  }
  const failingAudit = (scope: IdentityChangeScope): IdentityChangeScope => ({ ...scope, audit: { record: async () => Promise.reject(injected()) } });
  const count = async (table: 'identities' | 'enrollments' | 'usernames' | 'audit_log' | 'authenticators', where?: [string, string]) => {
    let query = database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
    if (where) query = query.where(where[0] as any, '=', where[1]);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const input = (name: string, enrollment?: { ott?: boolean; updb?: string }) => ({ name, type: 'User', isAdmin: false, ...(enrollment ? { enrollment } : {}) });

  it('commits an identity with its enrollments, the username claim and the audit entry together', async () => {
    const auditBefore = await count('audit_log');
    const created = await identityService().create(SYSTEM_ACTOR, input('whole', { ott: true, updb: 'whole-user' }) as any);
    assert.equal(await count('enrollments', ['identity_id', created.id]), 2);
    assert.equal(await count('usernames', ['username_key', 'whole-user']), 1);
    assert.equal(await count('audit_log', ['entity_id', created.id]), 1, 'the identity entry');
    assert.equal((await count('audit_log')) - auditBefore, 3, 'and one entry per enrollment');
  });

  it('writes nothing of a create when the audit entry fails after the identity and its enrollments', async () => {
    const before = { identities: await count('identities'), enrollments: await count('enrollments'), audit: await count('audit_log') };
    await assert.rejects(identityService(failingAudit).create(SYSTEM_ACTOR, input('half-audited', { ott: true, updb: 'half-user' }) as any), /injected/);
    assert.equal(await count('identities', ['name', 'half-audited']), 0);
    assert.deepEqual({ identities: await count('identities'), enrollments: await count('enrollments'), audit: await count('audit_log') }, before);
    assert.equal(await count('usernames', ['username_key', 'half-user']), 0, 'the username is not held by a ghost');
  });

  it('rolls back the identity and its first enrollment when the second enrollment fails, instead of deleting afterwards', async () => {
    let calls = 0;
    const secondFails = (scope: IdentityChangeScope): IdentityChangeScope => ({
      ...scope,
      enrollments: {
        create: async (actor, request) => {
          if (++calls === 2) throw injected();
          return scope.enrollments.create(actor, request);
        },
      },
    });
    const before = { identities: await count('identities'), enrollments: await count('enrollments'), audit: await count('audit_log') };
    await assert.rejects(identityService(secondFails).create(SYSTEM_ACTOR, input('half-enrolled', { ott: true, updb: 'half-enrolled' }) as any), /injected/);
    assert.equal(calls, 2, 'the first enrollment was written before the failure');
    assert.deepEqual({ identities: await count('identities'), enrollments: await count('enrollments'), audit: await count('audit_log') }, before);
  });

  it('keeps an identity as it was when the audit entry of its update or delete fails', async () => {
    const created = await identityService().create(SYSTEM_ACTOR, input('steady') as any);
    await assert.rejects(identityService(failingAudit).replace(SYSTEM_ACTOR, created.id, input('renamed') as any), /injected/);
    assert.equal((await createIdentityRepository(database).findById(created.id))?.name, 'steady');
    await assert.rejects(identityService(failingAudit).delete(SYSTEM_ACTOR, created.id), /injected/);
    assert.ok(await createIdentityRepository(database).findById(created.id), 'still there');
    await assert.rejects(identityService(failingAudit).disable(SYSTEM_ACTOR, created.id, 0), /injected/);
    assert.equal((await createIdentityRepository(database).findById(created.id))?.disabled, false);
  });

  it("joins a repository's own transaction to the transaction around it, so both roll back", async () => {
    const created = await identityService().create(SYSTEM_ACTOR, input('nested') as any);
    await assert.rejects(
      atomically(database.db, async (trx) => {
        // IdentityRepository.delete is several statements in a transaction of its own; here it joins the outer one.
        assert.equal(await createIdentityRepository({ ...database, db: trx }).delete(created.id), true);
        throw injected();
      }),
      /injected/,
    );
    assert.ok(await createIdentityRepository(database).findById(created.id), 'the delete rolled back with the outer transaction');
  });

  it('leaves no auth policy behind when the work fails after inserting it and before its audit entry', async () => {
    const changes = auditedChanges(database, systemClock, createAuthPolicyRepository);
    const policy = { ...(await createAuthPolicyRepository(database).findById('default'))!, id: 'uow-policy', name: 'uow-policy', isSystem: false };
    await assert.rejects(
      changes(async ({ records }) => {
        await records.insert(policy);
        throw injected(); // before the audit entry
      }),
      /injected/,
    );
    assert.equal(await createAuthPolicyRepository(database).findById('uow-policy'), undefined);
    await changes(async ({ records, audit }) => {
      await records.insert(policy);
      await audit.record(SYSTEM_ACTOR, 'create', 'auth-policy', policy.id, {});
    });
    assert.ok(await createAuthPolicyRepository(database).findById('uow-policy'));
    assert.equal(await count('audit_log', ['entity_id', 'uow-policy']), 1);
  });

  it('leaves an authorization code unspent and no session when the redemption fails before its refresh token is stored', async () => {
    const oidc = createOidcRepository(database);
    const owner = await identityService().create(SYSTEM_ACTOR, input('code-owner') as any);
    const now = new Date();
    const sessionId = newEntityId();
    const session = { id: sessionId, identityId: owner.id, clientId: 'svc', issuer: 'https://127.0.0.1:1280/oidc', scope: 'openid offline_access', amr: ['pwd'], authTime: now, configTypes: [], revokedAt: null, createdAt: now };
    const refresh = (id: string) => ({ record: { id, sessionId, status: 'active' as const, createdAt: now, expiresAt: new Date(now.getTime() + 3_600_000), rotatedAt: null, successorSealed: null }, hash: `hash-${id}` });
    // The injected failure: a refresh token whose hash is already stored (the table's key) fails its insert, the
    // redemption's last step.
    const other = await identityService().create(SYSTEM_ACTOR, input('code-other') as any);
    const otherSession = { ...session, id: newEntityId(), identityId: other.id };
    await oidc.insertSession(otherSession);
    await oidc.insertRefreshToken({ ...refresh('other-id').record, sessionId: otherSession.id }, refresh('taken-id').hash);
    await assert.rejects(oidc.redeemCode(session, refresh('taken-id'), 3));
    assert.equal(await oidc.findSession(sessionId), undefined, 'no session was stored, so the code is still unspent');
    assert.equal(await oidc.redeemCode(session, refresh(newEntityId()), 3), 'redeemed', 'the redemption then succeeds once');
    assert.ok(await oidc.findSession(sessionId));
    assert.equal(await oidc.redeemCode(session, refresh(newEntityId()), 3), 'spent', 'and never twice');
  });

  it('refuses to redeem a code refused as often as allowed, and writes nothing', async () => {
    const oidc = createOidcRepository(database);
    const owner = await identityService().create(SYSTEM_ACTOR, input('refused-code-owner') as any);
    const now = new Date();
    const session = { id: newEntityId(), identityId: owner.id, clientId: 'svc', issuer: 'https://127.0.0.1:1280/oidc', scope: 'openid', amr: ['pwd'], authTime: now, configTypes: [], revokedAt: null, createdAt: now };
    const expiresAt = new Date(now.getTime() + 60_000);
    assert.deepEqual([await oidc.countCodeRefusal(session.id, expiresAt), await oidc.countCodeRefusal(session.id, expiresAt)], [1, 2]);
    assert.equal(await oidc.redeemCode(session, undefined, 3), 'redeemed', 'two refusals of three allowed leave the code good');
    const next = { ...session, id: newEntityId() };
    for (let i = 0; i < 3; i++) await oidc.countCodeRefusal(next.id, expiresAt);
    assert.equal(await oidc.redeemCode(next, undefined, 3), 'exhausted');
    assert.equal(await oidc.findSession(next.id), undefined);
    const gone = { ...session, id: newEntityId(), identityId: 'no-such-identity' };
    assert.equal(await oidc.redeemCode(gone, undefined, 3), 'no-identity', 'an identity deleted since the login');
  });

  /** A unit of work over the repository `recordsOf` builds whose audit entry fails: after the change, before its entry. */
  const auditFails = <Records>(recordsOf: (store: Database) => Records) =>
    unitOfWork(database, (store) => ({ records: recordsOf(store), audit: { record: async () => Promise.reject(injected()) } }));
  const enrollmentAdministration = (changes = auditedChanges(database, systemClock, createEnrollmentRepository)) =>
    createEnrollmentService({ enrollments: createEnrollmentRepository(database), identities: createIdentityRepository(database), changes, clock: systemClock, jwt: settings.jwt, edgeIdentityDurationMs: 3_600_000 });
  const enroller = (changes = auditedChanges(database, systemClock, createEnrollmentRepository)) =>
    createEnrollService({
      enrollments: createEnrollmentRepository(database),
      identities: createIdentityRepository(database),
      authPolicies: createAuthPolicyRepository(database),
      changes,
      clock: systemClock,
      jwt: settings.jwt,
      signingCa: undefined,
    });

  it("writes no enrollment nor username claim when the audit entry of an enrollment's create fails, and keeps it as it was when a refresh's or delete's fails", async () => {
    const owner = await identityService().create(SYSTEM_ACTOR, input('enrollment-owner') as any);
    const request = { identityId: owner.id, method: 'updb' as const, username: 'uow-enrollee' };
    await assert.rejects(enrollmentAdministration(auditFails(createEnrollmentRepository)).create(SYSTEM_ACTOR, request), /injected/);
    assert.equal(await count('enrollments', ['identity_id', owner.id]), 0);
    assert.equal(await count('usernames', ['username_key', 'uow-enrollee']), 0, 'the username is not held by a ghost');

    const pending = await enrollmentAdministration().create(SYSTEM_ACTOR, request);
    const failing = enrollmentAdministration(auditFails(createEnrollmentRepository));
    await assert.rejects(failing.refresh(SYSTEM_ACTOR, pending.id), /injected/);
    assert.equal((await createEnrollmentRepository(database).findById(pending.id))?.token, pending.token, 'the old token still holds');
    await assert.rejects(failing.delete(SYSTEM_ACTOR, pending.id), /injected/);
    assert.ok(await createEnrollmentRepository(database).findById(pending.id), 'still pending');
    assert.equal(await count('usernames', ['username_key', 'uow-enrollee']), 1, 'and still holding its username');
    assert.equal(await count('audit_log', ['entity_id', pending.id]), 1, 'only the create is recorded');
  });

  it('leaves an enrollment pending and no authenticator when the audit entry of its consumption fails', async () => {
    const owner = await identityService().create(SYSTEM_ACTOR, input('enrollee', { updb: 'uow-consumer' }) as any);
    const [pending] = await createEnrollmentRepository(database).listForIdentity(owner.id);
    assert.ok(pending);
    const password = 'Correct-Horse-Battery-9';
    await assert.rejects(enroller(auditFails(createEnrollmentRepository)).enroll('updb', pending.token, { password }), /injected/);
    assert.ok(await createEnrollmentRepository(database).findByToken(pending.token), 'the token is unspent');
    assert.equal(await count('authenticators', ['identity_id', owner.id]), 0);
    const claim = await database.db.selectFrom('usernames').select(['enrollment_id', 'authenticator_id']).where('username_key', '=', 'uow-consumer').executeTakeFirst();
    assert.deepEqual(claim, { enrollment_id: pending.id, authenticator_id: null }, 'the enrollment still holds the username');

    assert.equal((await enroller().enroll('updb', pending.token, { password })).username, 'uow-consumer', 'the token then enrolls once');
    assert.equal(await count('authenticators', ['identity_id', owner.id]), 1);
    assert.equal(await count('enrollments', ['identity_id', owner.id]), 0);
  });

  /** Authenticator administration over the store: `changes` for deletes, re-enrolls' scope changed by `inject`. */
  const authenticatorAdministration = (options: { changes?: ReturnType<typeof auditFails<any>>; inject?: (scope: ReEnrollScope) => ReEnrollScope } = {}) =>
    createAuthenticatorService({
      authenticators: createAuthenticatorRepository(database),
      identities: createIdentityRepository(database),
      changes: options.changes ?? auditedChanges(database, systemClock, createAuthenticatorRepository),
      reEnrollments: unitOfWork(database, (store) => {
        const scope: ReEnrollScope = {
          records: createAuthenticatorRepository(store),
          audit: buildAuditDomain(store, { clock: systemClock, log: silent }).audit,
          enrollments: buildEnrollmentAdministration(store, settings),
        };
        return options.inject ? options.inject(scope) : scope;
      }),
    });
  /** An identity holding a password authenticator for `username` (enrolled through its updb enrollment). */
  async function passwordHolder(name: string, username: string) {
    const owner = await identityService().create(SYSTEM_ACTOR, input(name, { updb: username }) as any);
    const [pending] = await createEnrollmentRepository(database).listForIdentity(owner.id);
    await enroller().enroll('updb', pending!.token, { password: 'Correct-Horse-Battery-9' });
    const [authenticator] = await createAuthenticatorRepository(database).listForIdentity(owner.id);
    return { owner, authenticator: authenticator! };
  }
  const inAnHour = () => new Date(Date.now() + 3_600_000);

  it('re-enrolls a password authenticator as a updb enrollment of the same username, with both audit entries, in one commit', async () => {
    const { owner, authenticator } = await passwordHolder('re-enrolled', 'uow-re-enrolled');
    const enrollment = await authenticatorAdministration().reEnroll(SYSTEM_ACTOR, authenticator.id, inAnHour());
    assert.equal(await count('authenticators', ['identity_id', owner.id]), 0);
    assert.deepEqual({ method: enrollment.method, identityId: enrollment.identityId, username: enrollment.username }, { method: 'updb', identityId: owner.id, username: 'uow-re-enrolled' });
    assert.equal(await count('usernames', ['username_key', 'uow-re-enrolled']), 1, 'the username passes from the authenticator to the enrollment');
    assert.equal(await count('audit_log', ['entity_id', authenticator.id]), 1, "the authenticator's delete");
    assert.equal(await count('audit_log', ['entity_id', enrollment.id]), 1, "the enrollment's create");
  });

  it('keeps a password authenticator and issues no enrollment when a re-enroll fails after the delete, at the enrollment or at an audit entry', async () => {
    const { owner, authenticator } = await passwordHolder('re-enroll-refused', 'uow-re-enroll-refused');
    const failures: Array<(scope: ReEnrollScope) => ReEnrollScope> = [
      (scope) => ({ ...scope, enrollments: { create: async () => Promise.reject(injected()) } }),
      (scope) => ({ ...scope, audit: { record: async () => Promise.reject(injected()) } }),
      (scope) => ({ ...scope, enrollments: { create: async (actor, request) => { await scope.enrollments.create(actor, request); throw injected(); } } }),
    ];
    const auditBefore = await count('audit_log');
    for (const inject of failures) {
      await assert.rejects(authenticatorAdministration({ inject }).reEnroll(SYSTEM_ACTOR, authenticator.id, inAnHour()), /injected/);
      assert.ok(await createAuthenticatorRepository(database).findById(authenticator.id), 'the authenticator is still there');
      assert.equal(await count('enrollments', ['identity_id', owner.id]), 0, 'and no enrollment was issued');
      assert.equal(await count('usernames', ['username_key', 'uow-re-enroll-refused']), 1, 'the username is held once, by the authenticator');
    }
    assert.equal(await count('audit_log'), auditBefore, 'nothing was recorded');
  });

  it('keeps an authenticator when the audit entry of its delete fails, and a password and its lockouts when clearing them fails', async () => {
    const owner = await identityService().create(SYSTEM_ACTOR, input('credential-owner', { updb: 'uow-holder' }) as any);
    const [pending] = await createEnrollmentRepository(database).listForIdentity(owner.id);
    const password = 'Correct-Horse-Battery-9';
    await enroller().enroll('updb', pending!.token, { password });
    const [authenticator] = await createAuthenticatorRepository(database).listForIdentity(owner.id);
    assert.ok(authenticator);

    const administration = authenticatorAdministration({ changes: auditFails(createAuthenticatorRepository) });
    await assert.rejects(administration.delete(SYSTEM_ACTOR, authenticator.id), /injected/);
    assert.ok(await createAuthenticatorRepository(database).findById(authenticator.id), 'the authenticator is still there');
    assert.equal(await count('usernames', ['username_key', 'uow-holder']), 1, 'with its username');

    const { events } = buildAuditDomain(database, { clock: systemClock, log: silent });
    const own = createOwnAuthenticatorService({
      authenticators: createAuthenticatorRepository(database),
      credentials: createCredentialRepository(database),
      authPolicies: createAuthPolicyRepository(database),
      passwords: createPasswordGuard({ lockouts: createPasswordLockoutRepository(database), events, clock: systemClock }),
      // The injected failure: clearing the lockouts, after the new credential is written.
      changes: unitOfWork(database, (store) => ({ credentials: createCredentialRepository(store), passwords: { clear: async () => Promise.reject(injected()) } })),
      clock: systemClock,
    });
    const before = await createCredentialRepository(database).findPasswordById(authenticator.id);
    const identity = (await createIdentityRepository(database).findById(owner.id))!;
    await assert.rejects(own.update(identity, authenticator.id, { username: 'uow-renamed', password: 'New-Horse-Battery-10', currentPassword: password }, null), /injected/);
    assert.deepEqual(await createCredentialRepository(database).findPasswordById(authenticator.id), before, 'the old password still holds');
    assert.equal((await createAuthenticatorRepository(database).findById(authenticator.id))?.username, 'uow-holder');
    assert.equal(await count('usernames', ['username_key', 'uow-renamed']), 0, 'the new username is not claimed');
  });

  it('leaves an MFA enrollment as it was, and the code that allowed the change unspent, when the audit entry of a change fails', async () => {
    const box = createSecretBox(parseSecretsKey(newSecretsKeyText()));
    const records = (store: Database) => createMfaRepository(store, box);
    const { events } = buildAuditDomain(database, { clock: systemClock, log: silent });
    const mfaService = (changes = auditedChanges(database, systemClock, records)) =>
      createMfaService({ mfa: records(database), identities: createIdentityRepository(database), changes, clock: systemClock, issuer: 'uow', events });
    const failing = mfaService(auditFails(records));
    const owner = await identityService().create(SYSTEM_ACTOR, input('mfa-owner') as any);
    const stored = () => records(database).findByIdentity(owner.id);

    await assert.rejects(failing.start(owner), /injected/);
    assert.equal(await stored(), undefined, 'no enrollment started');
    await mfaService().start(owner);
    const { secret } = (await stored())!;
    const code = totpCodeAt(secret, new Date());
    await assert.rejects(failing.verify(owner, code), /injected/);
    assert.equal((await stored())?.isVerified, false);
    assert.equal((await stored())?.lastUsedStep, null, 'the time step is not spent');
    await mfaService().verify(owner, code);
    assert.equal((await stored())?.isVerified, true, 'so the same code then verifies');

    const verified = (await stored())!;
    const recovery = verified.recoveryCodes[0]!;
    await assert.rejects(failing.regenerateRecoveryCodes(owner, recovery), /injected/);
    assert.deepEqual((await stored())?.recoveryCodes, verified.recoveryCodes, 'the codes are the same, the one used still unspent');
    await assert.rejects(failing.remove(owner, recovery), /injected/);
    assert.deepEqual((await stored())?.recoveryCodes, verified.recoveryCodes, 'still there, the code unspent');
    await assert.rejects(failing.removeByAdmin(owner.id, SYSTEM_ACTOR), /injected/);
    assert.equal((await stored())?.revision, verified.revision, 'still there, unchanged');
    assert.equal(await count('audit_log', ['entity_id', verified.id]), 2, 'only the start and the verification are recorded');
    await mfaService().remove(owner, recovery);
    assert.equal(await stored(), undefined, 'the unspent code then removes it');
  });
});
