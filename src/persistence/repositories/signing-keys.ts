/**
 * The keys the OIDC providers sharing the store sign with (migrations 0004 and 0018): per controller (`owner`), the
 * current one (`retired_at` null) and retired ones, which stay published until `publish_until`; each with the `iss`
 * values its owner signs for. No rules here: the service decides how long a key stays.
 */
import { atomically } from '../unit-of-work.js';
import type { JWK } from 'jose';
import type { Database } from '../database.js';
import type { OidcSigningKeysTable } from '../tables.js';
import { parseJson, toDate, toDateOrNull, toIso } from './row-values.js';

export interface PublishedSigningKey {
  kid: string;
  publicJwk: JWK;
  /** The controller signing with it; null for a key published before owners were recorded. */
  owner: string | null;
  /** The `iss` values its owner signs for. */
  issuers: string[];
  firstUsedAt: Date;
  retiredAt: Date | null;
  publishUntil: Date | null;
}

export interface SigningKeyRepository {
  /**
   * In one transaction: records `current` as the key `owner` signs with (re-activating it if it had been retired),
   * and retires the other keys of `owner` still in use, and those of no recorded owner, with `publishUntil`. Keys of
   * other controllers are left as they are.
   */
  makeCurrent(owner: string, current: { kid: string; publicJwk: JWK; issuers: readonly string[] }, now: Date, publishUntil: Date): Promise<void>;
  /** Every key published at `now`: the current key of every controller, and retired keys until `publish_until`. */
  published(now: Date): Promise<PublishedSigningKey[]>;
}

function fromRow(row: OidcSigningKeysTable): PublishedSigningKey {
  return {
    kid: row.kid,
    publicJwk: parseJson<JWK>(row.public_jwk),
    owner: row.owner,
    issuers: parseJson<string[]>(row.issuers),
    firstUsedAt: toDate(row.first_used_at),
    retiredAt: toDateOrNull(row.retired_at),
    publishUntil: toDateOrNull(row.publish_until),
  };
}

export function createSigningKeyRepository({ db }: Database): SigningKeyRepository {
  return {
    async makeCurrent(owner, current, now, publishUntil) {
      const issuers = JSON.stringify([...current.issuers]);
      await atomically(db, async (trx) => {
        await trx
          .updateTable('oidc_signing_keys')
          .set({ retired_at: toIso(now), publish_until: toIso(publishUntil) })
          .where('kid', '!=', current.kid)
          .where('retired_at', 'is', null)
          .where((eb) => eb.or([eb('owner', '=', owner), eb('owner', 'is', null)]))
          .execute();
        await trx
          .insertInto('oidc_signing_keys')
          .values({ kid: current.kid, public_jwk: JSON.stringify(current.publicJwk), first_used_at: toIso(now), retired_at: null, publish_until: null, owner, issuers })
          .onConflict((oc) => oc.column('kid').doUpdateSet({ retired_at: null, publish_until: null, owner, issuers }))
          .execute();
      });
    },
    async published(now) {
      const rows = await db
        .selectFrom('oidc_signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('retired_at', 'is', null), eb('publish_until', '>', toIso(now))]))
        .orderBy('first_used_at', 'desc')
        .orderBy('kid')
        .execute();
      return rows.map(fromRow);
    },
  };
}
