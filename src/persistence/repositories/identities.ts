/**
 * Identities and their password authenticators in the store. Creating an identity with its first
 * authenticator happens in one transaction so that a half-made admin can never exist.
 */
import type { Identity } from '../../domain/identity.js';
import type { Database } from '../database.js';
import type { IdentitiesTable } from '../tables.js';
import { parseJson, toBool, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';

export interface PasswordAuthenticatorInput {
  id: string;
  username: string;
  passwordHash: string;
}

export interface PasswordCredential {
  authenticatorId: string;
  identityId: string;
  passwordHash: string;
}

export interface IdentityRepository {
  findById(id: string): Promise<Identity | undefined>;
  findPasswordCredential(username: string): Promise<PasswordCredential | undefined>;
  findDefaultAdmin(): Promise<Identity | undefined>;
  insertWithPassword(identity: Identity, authenticator: PasswordAuthenticatorInput): Promise<void>;
}

function fromRow(row: IdentitiesTable): Identity {
  return {
    id: row.id,
    name: row.name,
    typeId: row.type_id === 'Router' ? 'Router' : 'Default',
    isAdmin: toBool(row.is_admin),
    isDefaultAdmin: toBool(row.is_default_admin),
    authPolicyId: row.auth_policy_id,
    externalId: row.external_id,
    roleAttributes: parseJson<string[]>(row.role_attributes),
    tags: parseJson<Identity['tags']>(row.tags),
    disabled: toBool(row.disabled),
    disabledAt: toDateOrNull(row.disabled_at),
    disabledUntil: toDateOrNull(row.disabled_until),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(identity: Identity): IdentitiesTable {
  return {
    id: identity.id,
    name: identity.name,
    type_id: identity.typeId,
    is_admin: identity.isAdmin,
    is_default_admin: identity.isDefaultAdmin,
    auth_policy_id: identity.authPolicyId,
    external_id: identity.externalId,
    role_attributes: JSON.stringify(identity.roleAttributes),
    tags: JSON.stringify(identity.tags),
    disabled: identity.disabled,
    disabled_at: toIsoOrNull(identity.disabledAt),
    disabled_until: toIsoOrNull(identity.disabledUntil),
    created_at: toIso(identity.createdAt),
    updated_at: toIso(identity.updatedAt),
  };
}

export function createIdentityRepository({ db }: Database): IdentityRepository {
  return {
    async findById(id) {
      const row = await db.selectFrom('identities').selectAll().where('id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },
    async findPasswordCredential(username) {
      const row = await db
        .selectFrom('authenticators')
        .select(['id', 'identity_id', 'password_hash'])
        .where('method', '=', 'updb')
        .where('username', '=', username)
        .executeTakeFirst();
      if (!row || row.password_hash === null) return undefined;
      return { authenticatorId: row.id, identityId: row.identity_id, passwordHash: row.password_hash };
    },
    async findDefaultAdmin() {
      const row = await db.selectFrom('identities').selectAll().where('is_default_admin', '=', true).executeTakeFirst();
      return row && fromRow(row);
    },
    async insertWithPassword(identity, authenticator) {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('identities').values(toRow(identity)).execute();
        await trx
          .insertInto('authenticators')
          .values({
            id: authenticator.id,
            identity_id: identity.id,
            method: 'updb',
            username: authenticator.username,
            password_hash: authenticator.passwordHash,
            cert_fingerprint: null,
            cert_pem: null,
            failed_attempts: 0,
            is_issued_by_network: false,
            created_at: toIso(identity.createdAt),
            updated_at: toIso(identity.createdAt),
          })
          .execute();
      });
    },
  };
}
