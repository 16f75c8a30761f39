/**
 * The keys the OIDC provider has signed with (migration 0004): the current one (`retired_at` null) and retired
 * ones, which stay published until `publish_until`. No rules here: the service decides how long a key stays.
 */
import { atomically } from '../unit-of-work.js';
import type { JWK } from 'jose';
import type { Database } from '../database.js';
import { parseJson, toDate, toDateOrNull, toIso } from './row-values.js';

export interface PublishedSigningKey {
  kid: string;
  publicJwk: JWK;
  firstUsedAt: Date;
  retiredAt: Date | null;
  publishUntil: Date | null;
}

export interface SigningKeyRepository {
  /**
   * In one transaction: records `current` as the key in use (re-activating it if it had been retired), retires
   * every other key still in use with `publishUntil`, and returns the retired keys published after `now`.
   */
  makeCurrent(current: { kid: string; publicJwk: JWK }, now: Date, publishUntil: Date): Promise<PublishedSigningKey[]>;
}

export function createSigningKeyRepository({ db }: Database): SigningKeyRepository {
  return {
    async makeCurrent(current, now, publishUntil) {
      return atomically(db, async (trx) => {
        await trx
          .updateTable('oidc_signing_keys')
          .set({ retired_at: toIso(now), publish_until: toIso(publishUntil) })
          .where('kid', '!=', current.kid)
          .where('retired_at', 'is', null)
          .execute();
        await trx
          .insertInto('oidc_signing_keys')
          .values({ kid: current.kid, public_jwk: JSON.stringify(current.publicJwk), first_used_at: toIso(now), retired_at: null, publish_until: null })
          .onConflict((oc) => oc.column('kid').doUpdateSet({ retired_at: null, publish_until: null }))
          .execute();
        const rows = await trx
          .selectFrom('oidc_signing_keys')
          .selectAll()
          .where('retired_at', 'is not', null)
          .where('publish_until', '>', toIso(now))
          .orderBy('retired_at', 'desc')
          .execute();
        return rows.map((row) => ({
          kid: row.kid,
          publicJwk: parseJson<JWK>(row.public_jwk),
          firstUsedAt: toDate(row.first_used_at),
          retiredAt: toDateOrNull(row.retired_at),
          publishUntil: toDateOrNull(row.publish_until),
        }));
      });
    },
  };
}
