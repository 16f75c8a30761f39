/**
 * Authenticators as management lists, reads and deletes them. The domain value has no password hash, so the
 * hash never leaves this file: it stays with the credential look-ups of authentication (credentials.ts).
 */
import type { Authenticator, AuthenticatorMethod } from '../../domain/authenticator.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type ListQuery } from '../query/list-query.js';
import type { AuthenticatorsTable } from '../tables.js';
import { recordChange } from './authorization-changes.js';
import { toBool, toDate, toDateOrNull } from './row-values.js';
import type { Selectable } from 'kysely';
import { atomically } from '../unit-of-work.js';

/** Public field name -> column, for `filter` and `sort` on authenticator lists. */
export const AUTHENTICATOR_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  identityId: { column: 'identity_id', type: 'string' },
  method: { column: 'method', type: 'string' },
  username: { column: 'username', type: 'string' },
  certFingerprint: { column: 'cert_fingerprint', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
};

export interface AuthenticatorRepository {
  /** One page; with `identityId`, only that identity's authenticators (the filter is combined with it). */
  list(query: ListQuery, identityId?: string): Promise<{ items: Authenticator[]; totalCount: number }>;
  findById(id: string): Promise<Authenticator | undefined>;
  /** Every authenticator of one identity, oldest first. */
  listForIdentity(identityId: string): Promise<Authenticator[]>;
  /** Every authenticator of each of `identityIds`, oldest first (one query for a page of identities). */
  listForIdentities(identityIds: readonly string[]): Promise<Authenticator[]>;
  delete(id: string): Promise<boolean>;
}

// The key is how the store compares usernames (decision 0016); views show the username as it was given. The
// pending certificate of an extension (migration 0020) is read by authenticator-extensions.ts only; the request to
// extend and whether the last extension rolled the key (migrations 0020, 0021) are shown to management.
const COLUMNS = [
  'id',
  'identity_id',
  'method',
  'username',
  'cert_fingerprint',
  'cert_pem',
  'is_issued_by_network',
  'is_extend_requested',
  'is_key_roll_requested',
  'extend_requested_at',
  'last_extend_rolled_keys',
  'created_at',
  'updated_at',
] as const;

type AuthenticatorRow = Pick<Selectable<AuthenticatorsTable>, (typeof COLUMNS)[number]>;

function fromRow(row: AuthenticatorRow, identityName: string): Authenticator {
  return {
    id: row.id,
    identityId: row.identity_id,
    identityName,
    method: row.method as AuthenticatorMethod,
    username: row.username,
    certFingerprint: row.cert_fingerprint,
    certPem: row.cert_pem,
    isIssuedByNetwork: toBool(row.is_issued_by_network),
    isExtendRequested: toBool(row.is_extend_requested),
    isKeyRollRequested: toBool(row.is_key_roll_requested),
    extendRequestedAt: toDateOrNull(row.extend_requested_at),
    lastExtendRolledKeys: toBool(row.last_extend_rolled_keys),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

export function createAuthenticatorRepository(database: Database): AuthenticatorRepository {
  const { db } = database;

  /** Names of the identities owning `rows`, in one query. */
  async function withIdentityNames(rows: AuthenticatorRow[]): Promise<Authenticator[]> {
    const ids = [...new Set(rows.map((row) => row.identity_id))];
    const names = new Map<string, string>();
    if (ids.length > 0) {
      for (const { id, name } of await db.selectFrom('identities').select(['id', 'name']).where('id', 'in', ids).execute()) names.set(id, name);
    }
    return rows.map((row) => fromRow(row, names.get(row.identity_id) ?? ''));
  }

  return {
    async list(query, identityId) {
      const scoped: ListQuery =
        identityId === undefined
          ? query
          : {
              ...query,
              where: {
                kind: 'and',
                operands: [{ kind: 'compare', field: 'identityId', operator: '=', value: identityId }, ...(query.where ? [query.where] : [])],
              },
            };
      const { rows, totalCount } = await listRows(database, 'authenticators', AUTHENTICATOR_FIELDS, scoped);
      return { items: await withIdentityNames(rows), totalCount };
    },
    async findById(id) {
      const row = await db.selectFrom('authenticators').select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && (await withIdentityNames([row]))[0];
    },
    async listForIdentity(identityId) {
      const rows = await db.selectFrom('authenticators').select(COLUMNS).where('identity_id', '=', identityId).orderBy('created_at').orderBy('id').execute();
      return withIdentityNames(rows);
    },
    async listForIdentities(identityIds) {
      if (identityIds.length === 0) return [];
      const rows = await db.selectFrom('authenticators').select(COLUMNS).where('identity_id', 'in', [...identityIds]).orderBy('created_at').orderBy('id').execute();
      return withIdentityNames(rows);
    },
    async delete(id) {
      return atomically(db, async (trx) => {
        const row = await trx.deleteFrom('authenticators').where('id', '=', id).returning('identity_id').executeTakeFirst();
        // An identity's detail lists its authenticators; controllers keep details in memory (decision 0035).
        if (row) await recordChange({ ...database, db: trx }, 'identity', row.identity_id);
        return row !== undefined;
      });
    },
  };
}
