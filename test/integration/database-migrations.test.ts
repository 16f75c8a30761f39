import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '../../src/persistence/migrate.js';
import type { Database } from '../../src/persistence/database.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';

describe(`the store on ${testDialect}`, () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => database.close());

  it('creates every table at start and stays unchanged when migrated again', async () => {
    await migrateToLatest(database.db);
    const tables = (await database.db.introspection.getTables()).map((t) => t.name).sort();
    assert.deepEqual(
      tables.filter((t) => !t.startsWith('svc_migrations')),
      [
        'api_session_certificates', 'api_sessions', 'audit_log', 'auth_policies', 'authenticators', 'authorization_changes', 'cas', 'circuits', 'config_types', 'configs', 'controllers', 'edge_router_policies', 'edge_routers', 'edge_sessions', 'enrollment_signing_keys', 'enrollments', 'entity_attributes', 'external_jwt_signers', 'identities', 'links', 'mfa_enrollments', 'oidc_auth_requests', 'oidc_code_refusals', 'oidc_refresh_tokens', 'oidc_sessions', 'oidc_signing_keys', 'password_lockouts', 'policy_roles', 'posture_checks', 'posture_responses', 'router_presence', 'service_configs', 'service_edge_router_policies', 'service_policies', 'service_update_marks', 'services', 'terminators', 'used_enrollment_tokens', 'used_idp_states', 'usernames',
      ],
    );
  });

  it('starts with the system default auth policy', async () => {
    const row = await database.db.selectFrom('auth_policies').selectAll().where('id', '=', 'default').executeTakeFirstOrThrow();
    assert.equal(Boolean(row.is_system), true);
    assert.equal(JSON.parse(row.body).primary.updb.allowed, true);
  });

  it('stores and reads back booleans on both dialects', async () => {
    const now = new Date().toISOString();
    await database.db
      .insertInto('identities')
      .values({ id: 'i1', name: 'alice', type_id: 'Default', is_admin: true, is_default_admin: false, auth_policy_id: null, external_id: null, role_attributes: '[]', tags: '{}', disabled: false, disabled_at: null, disabled_until: null, created_at: now, updated_at: now })
      .execute();
    const row = await database.db.selectFrom('identities').selectAll().where('is_admin', '=', true).executeTakeFirstOrThrow();
    assert.equal(Boolean(row.is_admin), true);
    assert.equal(Boolean(row.disabled), false);
  });

  it('refuses a second identity with the same name', async () => {
    const now = new Date().toISOString();
    const values = { name: 'bob', type_id: 'Default', is_admin: false, is_default_admin: false, auth_policy_id: null, external_id: null, role_attributes: '[]', tags: '{}', disabled: false, disabled_at: null, disabled_until: null, created_at: now, updated_at: now };
    await database.db.insertInto('identities').values({ id: 'b1', ...values }).execute();
    await assert.rejects(database.db.insertInto('identities').values({ id: 'b2', ...values }).execute());
  });
});
