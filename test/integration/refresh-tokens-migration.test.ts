/**
 * Migration 0023 on a store an older release left: refresh tokens keyed by their hash. Every row comes through with
 * every column (a rotated token's sealed successor among them, still bound to its id), a hash is still stored once,
 * and deleting a session still takes its refresh tokens with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/persistence/migrate.js';
import { earlyIdentityRow, storeBefore, testDialect } from '../helpers/database.js';

const MIGRATION = '0023-refresh-tokens-by-hash';
const now = new Date();
const later = new Date(now.getTime() + 86_400_000).toISOString();

const refreshRows = [
  { id: 'rt-rotated', session_id: 'sess-1', token_hash: 'hash-rotated', status: 'rotated', created_at: now.toISOString(), expires_at: later, rotated_at: now.toISOString(), successor_sealed: 'v1.key.nonce.body' },
  { id: 'rt-active', session_id: 'sess-1', token_hash: 'hash-active', status: 'active', created_at: now.toISOString(), expires_at: later, rotated_at: null, successor_sealed: null },
  { id: 'rt-other', session_id: 'sess-2', token_hash: 'hash-other', status: 'active', created_at: now.toISOString(), expires_at: later, rotated_at: null, successor_sealed: null },
];

describe(`migration ${MIGRATION} (${testDialect})`, () => {
  let raw: Kysely<any>;
  let close: () => Promise<void>;
  before(async () => {
    ({ raw, close } = await storeBefore(MIGRATION));
    await raw.insertInto('identities').values(earlyIdentityRow('someone', now.toISOString())).execute();
    const session = (id: string) => ({
      id,
      identity_id: 'someone',
      client_id: 'svc',
      issuer: 'https://127.0.0.1:1280/oidc',
      scope: 'openid offline_access',
      amr: '["pwd"]',
      auth_time: now.toISOString(),
      revoked_at: null,
      created_at: now.toISOString(),
      config_types: '[]',
      authenticator_id: null,
      ip_address: '127.0.0.1',
    });
    await raw.insertInto('oidc_sessions').values([session('sess-1'), session('sess-2')]).execute();
    await raw.insertInto('oidc_refresh_tokens').values(refreshRows).execute();
    await migrateToLatest(raw);
  });
  after(() => close());

  it('keeps every refresh token with every column, found by its hash', async () => {
    const rows = await raw.selectFrom('oidc_refresh_tokens').selectAll().orderBy('id').execute();
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [...refreshRows].sort((a, b) => a.id.localeCompare(b.id)).map((row) => ({ ...row })),
    );
    const found = await raw.selectFrom('oidc_refresh_tokens').select('id').where('token_hash', '=', 'hash-rotated').executeTakeFirstOrThrow();
    assert.equal(found.id, 'rt-rotated');
  });

  it('still stores a hash once', async () => {
    await assert.rejects(
      raw.insertInto('oidc_refresh_tokens').values({ ...refreshRows[1], id: 'rt-again' }).execute(),
      /UNIQUE constraint failed|duplicate key value/,
    );
    const { count } = await raw.selectFrom('oidc_refresh_tokens').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    assert.equal(Number(count), 3);
  });

  it('still takes a session’s refresh tokens with it when the session is deleted', async () => {
    await raw.deleteFrom('oidc_sessions').where('id', '=', 'sess-1').execute();
    const rows = await raw.selectFrom('oidc_refresh_tokens').select('id').execute();
    assert.deepEqual(rows, [{ id: 'rt-other' }]);
  });
});
