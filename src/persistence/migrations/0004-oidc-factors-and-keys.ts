/**
 * The OIDC provider, second step (docs/decisions/0006-oidc.md): an authorization request remembers the secondary
 * factors still outstanding after its primary login (state `partially_authenticated`), and the signing keys the
 * provider has published are kept so that a replaced server key stays in the JWKS until its tokens have expired.
 */
import type { Kysely, Migration } from 'kysely';

export const oidcFactorsAndKeys: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('oidc_auth_requests')
      /** JSON array of outstanding factors (`{kind: 'totp'}`, `{kind: 'ext-jwt', signerId}`); `[]` once none is. */
      .addColumn('outstanding_factors', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();

    await db.schema
      .createTable('oidc_signing_keys')
      /** Lowercase hex SHA-1 of the server certificate whose key signs (the JWS `kid`). */
      .addColumn('kid', 'text', (c) => c.primaryKey())
      /** The public JWK (RFC 7517) as served in the JWKS. */
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('first_used_at', 'text', (c) => c.notNull())
      /** Null while the key is the current one. */
      .addColumn('retired_at', 'text')
      /** Retired keys stay in the JWKS until then: retirement + the longest token lifetime. */
      .addColumn('publish_until', 'text')
      .execute();
  },
};
