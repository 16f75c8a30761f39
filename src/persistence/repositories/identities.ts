/**
 * Identities and their password authenticators in the store. Creating an identity with its first
 * authenticator happens in one transaction so that a half-made admin can never exist; deleting one removes
 * what hangs off it (authenticators, API sessions, enrollments) in one transaction too. The common operations come
 * from the resource kit (resource-table.ts).
 */
import { atomically } from '../unit-of-work.js';
import type { Insertable, Selectable } from 'kysely';
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import { HOSTING_PRECEDENCES, isIdentityType, type ClientInfo, type HostingPrecedence, type Identity } from '../../domain/identity.js';
import { usernameKey } from '../../policy/names.js';
import type { Database } from '../database.js';
import type { FieldMap } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
import type { IdentitiesTable } from '../tables.js';
import { parseJson, toBool, toDate, toDateOrNull, toIso, toIsoOrNull } from './row-values.js';
import { recordChange } from './authorization-changes.js';
import { claimUsername } from './usernames.js';
import { indexAttributes, unindexEntity } from './role-index.js';

/** Public field name -> column, for `filter` and `sort` on the identities list. */
export const IDENTITY_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  type: { column: 'type_id', type: 'string' },
  isAdmin: { column: 'is_admin', type: 'boolean' },
  isDefaultAdmin: { column: 'is_default_admin', type: 'boolean' },
  disabled: { column: 'disabled', type: 'boolean' },
  externalId: { column: 'external_id', type: 'string' },
  authPolicyId: { column: 'auth_policy_id', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
  roleAttributes: { column: 'role_attributes', type: 'stringSet' },
  tags: { column: 'tags', type: 'tags' },
};

export interface PasswordAuthenticatorInput {
  id: string;
  username: string;
  passwordHash: string;
}

export interface IdentityRepository extends ResourceRepository<Identity> {
  findDefaultAdmin(): Promise<Identity | undefined>;
  insertWithPassword(identity: Identity, authenticator: PasswordAuthenticatorInput): Promise<void>;
  findByExternalId(externalId: string): Promise<Identity | undefined>;
  /**
   * Replaces the `sdkInfo` and/or `envInfo` given (a login's); leaves `updatedAt` alone: a login is not an edit.
   * The kit's `update` never writes them, so an administrator's edit of a copy read before a login cannot put back
   * the older info.
   */
  recordClientInfo(id: string, info: { sdkInfo?: ClientInfo; envInfo?: ClientInfo }): Promise<void>;
  /** Deletes the identity with its authenticators, API sessions and enrollments; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** How many identities name the auth policy `policyId`. */
  countUsingAuthPolicy(policyId: string): Promise<number>;
  /** The first `limit` identities (by name) that name the auth policy `policyId`, id and name. */
  namesUsingAuthPolicy(policyId: string, limit: number): Promise<{ id: string; name: string }[]>;
}

function fromRow(row: Selectable<IdentitiesTable>): Identity {
  return {
    id: row.id,
    name: row.name,
    // Rows written before types were kept as given hold only Default or Router; anything unknown reads as Default.
    typeId: isIdentityType(row.type_id) ? row.type_id : 'Default',
    isAdmin: toBool(row.is_admin),
    isDefaultAdmin: toBool(row.is_default_admin),
    authPolicyId: row.auth_policy_id,
    externalId: row.external_id,
    roleAttributes: parseJson<string[]>(row.role_attributes),
    tags: parseJson<Identity['tags']>(row.tags),
    disabled: toBool(row.disabled),
    disabledAt: toDateOrNull(row.disabled_at),
    disabledUntil: toDateOrNull(row.disabled_until),
    sdkInfo: parseJson<ClientInfo>(row.sdk_info),
    envInfo: parseJson<ClientInfo>(row.env_info),
    defaultHostingPrecedence: hostingPrecedence(row.default_hosting_precedence),
    defaultHostingCost: Number(row.default_hosting_cost),
    serviceHostingPrecedences: parseJson<Identity['serviceHostingPrecedences']>(row.service_hosting_precedences),
    serviceHostingCosts: parseJson<Identity['serviceHostingCosts']>(row.service_hosting_costs),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

/** Every column of a row. */
function toRow(identity: Identity): Insertable<IdentitiesTable> {
  return {
    id: identity.id,
    name: identity.name,
    type_id: identity.typeId,
    is_admin: identity.isAdmin,
    is_default_admin: identity.isDefaultAdmin,
    // Stored explicitly (never null) so that `authPolicyId = "default"` filters and the in-use count see it.
    auth_policy_id: identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID,
    external_id: identity.externalId,
    role_attributes: JSON.stringify(identity.roleAttributes),
    tags: JSON.stringify(identity.tags),
    disabled: identity.disabled,
    disabled_at: toIsoOrNull(identity.disabledAt),
    disabled_until: toIsoOrNull(identity.disabledUntil),
    created_at: toIso(identity.createdAt),
    updated_at: toIso(identity.updatedAt),
    sdk_info: JSON.stringify(identity.sdkInfo),
    env_info: JSON.stringify(identity.envInfo),
    default_hosting_precedence: identity.defaultHostingPrecedence,
    default_hosting_cost: identity.defaultHostingCost,
    service_hosting_precedences: JSON.stringify(identity.serviceHostingPrecedences),
    service_hosting_costs: JSON.stringify(identity.serviceHostingCosts),
  };
}

/** A stored precedence; anything unknown reads as `default` (the column only ever receives the three). */
function hostingPrecedence(value: string): HostingPrecedence {
  return (HOSTING_PRECEDENCES as readonly string[]).includes(value) ? (value as HostingPrecedence) : 'default';
}

/** How identities are stored; an administrator's update leaves the client info logins record. */
export const IDENTITY_TABLE: ResourceTable<'identities', Identity> = {
  table: 'identities',
  changeLog: 'identity',
  fields: IDENTITY_FIELDS,
  fromRow,
  toRow,
  keptOnUpdate: ['sdk_info', 'env_info'],
  // The role attribute index the policy engine reads (migration 0012) follows every write of the identity.
  dependents: {
    written: (db, identity) => indexAttributes(db, 'identity', identity.id, identity.roleAttributes),
    deleted: (db, id) => unindexEntity(db, 'identity', id),
  },
};

export function createIdentityRepository(database: Database): IdentityRepository {
  const { db } = database;
  return {
    ...resourceRepository(database, IDENTITY_TABLE),
    async findDefaultAdmin() {
      const row = await db.selectFrom('identities').selectAll().where('is_default_admin', '=', true).executeTakeFirst();
      return row && fromRow(row);
    },
    async insertWithPassword(identity, authenticator) {
      await atomically(db, async (trx) => {
        await trx.insertInto('identities').values(toRow(identity)).execute();
        await trx
          .insertInto('authenticators')
          .values({
            id: authenticator.id,
            identity_id: identity.id,
            method: 'updb',
            username: authenticator.username,
            username_key: usernameKey(authenticator.username),
            password_hash: authenticator.passwordHash,
            cert_fingerprint: null,
            cert_pem: null,
            is_issued_by_network: false,
            created_at: toIso(identity.createdAt),
            updated_at: toIso(identity.createdAt),
          })
          .execute();
        await claimUsername(trx, authenticator.username, { authenticatorId: authenticator.id }, toIso(identity.createdAt));
        await indexAttributes(trx, 'identity', identity.id, identity.roleAttributes);
      });
    },
    async findByExternalId(externalId) {
      const row = await db.selectFrom('identities').selectAll().where('external_id', '=', externalId).executeTakeFirst();
      return row && fromRow(row);
    },
    async recordClientInfo(id, { sdkInfo, envInfo }) {
      const values = {
        ...(sdkInfo === undefined ? {} : { sdk_info: JSON.stringify(sdkInfo) }),
        ...(envInfo === undefined ? {} : { env_info: JSON.stringify(envInfo) }),
      };
      if (Object.keys(values).length === 0) return;
      // Logged: request authentication keeps identities in memory, and posture reads the SDK it reported.
      await atomically(db, async (trx) => {
        await trx.updateTable('identities').set(values).where('id', '=', id).execute();
        await recordChange({ ...database, db: trx }, 'identity', id);
      });
    },
    async delete(id) {
      // The foreign keys cascade too; deleting explicitly keeps the outcome independent of how they are declared.
      return atomically(db, async (trx) => {
        await trx.deleteFrom('enrollments').where('identity_id', '=', id).execute();
        await trx.deleteFrom('authenticators').where('identity_id', '=', id).execute();
        await trx.deleteFrom('api_sessions').where('identity_id', '=', id).execute();
        await unindexEntity(trx, 'identity', id);
        const result = await trx.deleteFrom('identities').where('id', '=', id).executeTakeFirst();
        await recordChange({ ...database, db: trx }, 'identity', id);
        return Number(result.numDeletedRows) > 0;
      });
    },
    async countUsingAuthPolicy(policyId) {
      const row = await db
        .selectFrom('identities')
        .select((eb) => eb.fn.countAll().as('total'))
        .where('auth_policy_id', '=', policyId)
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },
    async namesUsingAuthPolicy(policyId, limit) {
      return db.selectFrom('identities').select(['id', 'name']).where('auth_policy_id', '=', policyId).orderBy('name').limit(limit).execute();
    },
  };
}
