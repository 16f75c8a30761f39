/**
 * Refresh tokens keyed by their hash (decision 0051). A refresh token is only ever found by the SHA-256 of its value,
 * and a rotation now names it the same way, so the unique index on `id` served nothing and cost every rotation a page
 * written: a refresh grant inserts a row and updates one, and each index of the table is one more page in the commit.
 * `id` stays as a plain column: the successor of a rotated token is sealed for its predecessor's id, and such sealed
 * values may be in the store when this runs.
 *
 * SQLite cannot change a table's primary key: the table is rebuilt with its rows. PostgreSQL swaps the constraints in
 * one statement, building the one index on `token_hash` the table keeps.
 */
import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

export const refreshTokensByHash: Migration = {
  async up(db: Kysely<any>) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      // The unique constraint's index cannot become the primary key's: one index on the hash is built in their place.
      await sql`alter table oidc_refresh_tokens
        drop constraint oidc_refresh_tokens_pkey,
        drop constraint oidc_refresh_tokens_token_hash_key,
        add constraint oidc_refresh_tokens_pkey primary key (token_hash)`.execute(db);
      return;
    }
    await db.schema
      .createTable('oidc_refresh_tokens_by_hash')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull().references('oidc_sessions.id').onDelete('cascade'))
      /** active | rotated | revoked */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('rotated_at', 'text')
      .addColumn('successor_sealed', 'text')
      .execute();
    await sql`insert into oidc_refresh_tokens_by_hash (token_hash, id, session_id, status, created_at, expires_at, rotated_at, successor_sealed)
      select token_hash, id, session_id, status, created_at, expires_at, rotated_at, successor_sealed from oidc_refresh_tokens`.execute(db);
    await db.schema.dropTable('oidc_refresh_tokens').execute();
    await db.schema.alterTable('oidc_refresh_tokens_by_hash').renameTo('oidc_refresh_tokens').execute();
    await db.schema.createIndex('oidc_refresh_tokens_session').on('oidc_refresh_tokens').column('session_id').execute();
  },
};
