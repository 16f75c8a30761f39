/**
 * External JWT signers in the store. The management list filters on every stored setting; the client list (open to
 * anyone) only on what the client view shows, and always only on enabled signers.
 */
import { TARGET_TOKENS, type ExternalJwtSigner, type TargetToken } from '../../domain/external-jwt-signer.js';
import type { Database } from '../database.js';
import { listRows, type FieldMap, type FilterExpr, type ListQuery } from '../query/list-query.js';
import type { ExternalJwtSignersTable } from '../tables.js';
import { parseJson, toBool, toDate, toIso } from './row-values.js';

/** What the public (client API) list may filter and sort on: never keys, issuer or claim settings. */
export const CLIENT_EXTERNAL_JWT_SIGNER_FIELDS: FieldMap = {
  id: { column: 'id', type: 'string' },
  name: { column: 'name', type: 'string' },
  externalAuthUrl: { column: 'external_auth_url', type: 'string' },
  clientId: { column: 'client_id', type: 'string' },
  audience: { column: 'audience', type: 'string' },
  targetToken: { column: 'target_token', type: 'string' },
  createdAt: { column: 'created_at', type: 'datetime' },
  updatedAt: { column: 'updated_at', type: 'datetime' },
};

/** Public field name -> column, for `filter` and `sort` on the management list. */
export const EXTERNAL_JWT_SIGNER_FIELDS: FieldMap = {
  ...CLIENT_EXTERNAL_JWT_SIGNER_FIELDS,
  issuer: { column: 'issuer', type: 'string' },
  enabled: { column: 'enabled', type: 'boolean' },
  jwksEndpoint: { column: 'jwks_endpoint', type: 'string' },
  kid: { column: 'kid', type: 'string' },
  claimsProperty: { column: 'claims_property', type: 'string' },
  useExternalId: { column: 'use_external_id', type: 'boolean' },
};

export interface ExternalJwtSignerRepository {
  findById(id: string): Promise<ExternalJwtSigner | undefined>;
  findByName(name: string): Promise<ExternalJwtSigner | undefined>;
  /** The ids among `ids` that name a signer. */
  existingIds(ids: readonly string[]): Promise<Set<string>>;
  /** Every enabled signer, by name (the candidates of an ext-jwt login). */
  listEnabled(): Promise<ExternalJwtSigner[]>;
  list(query: ListQuery): Promise<{ items: ExternalJwtSigner[]; totalCount: number }>;
  /** A page of enabled signers only; `query` was parsed with CLIENT_EXTERNAL_JWT_SIGNER_FIELDS. */
  listEnabledPage(query: ListQuery): Promise<{ items: ExternalJwtSigner[]; totalCount: number }>;
  insert(signer: ExternalJwtSigner): Promise<void>;
  /** Writes every field but `id` and `createdAt`. */
  update(signer: ExternalJwtSigner): Promise<void>;
  delete(id: string): Promise<boolean>;
}

const targetToken = (value: string): TargetToken => (TARGET_TOKENS.includes(value as TargetToken) ? (value as TargetToken) : 'ACCESS');

function fromRow(row: ExternalJwtSignersTable): ExternalJwtSigner {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    audience: row.audience,
    enabled: toBool(row.enabled),
    certPem: row.cert_pem,
    jwksEndpoint: row.jwks_endpoint,
    kid: row.kid,
    claimsProperty: row.claims_property,
    useExternalId: toBool(row.use_external_id),
    externalAuthUrl: row.external_auth_url,
    clientId: row.client_id,
    scopes: parseJson<string[]>(row.scopes),
    targetToken: targetToken(row.target_token),
    tags: parseJson<ExternalJwtSigner['tags']>(row.tags),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toRow(signer: ExternalJwtSigner): ExternalJwtSignersTable {
  return {
    id: signer.id,
    name: signer.name,
    issuer: signer.issuer,
    audience: signer.audience,
    enabled: signer.enabled,
    cert_pem: signer.certPem,
    jwks_endpoint: signer.jwksEndpoint,
    kid: signer.kid,
    claims_property: signer.claimsProperty,
    use_external_id: signer.useExternalId,
    external_auth_url: signer.externalAuthUrl,
    client_id: signer.clientId,
    scopes: JSON.stringify(signer.scopes),
    target_token: signer.targetToken,
    tags: JSON.stringify(signer.tags),
    created_at: toIso(signer.createdAt),
    updated_at: toIso(signer.updatedAt),
  };
}

const ENABLED: FilterExpr = { kind: 'compare', field: 'enabled', operator: '=', value: true };

export function createExternalJwtSignerRepository(database: Database): ExternalJwtSignerRepository {
  const { db } = database;
  const page = async (query: ListQuery) => {
    const { rows, totalCount } = await listRows(database, 'external_jwt_signers', EXTERNAL_JWT_SIGNER_FIELDS, query);
    return { items: rows.map(fromRow), totalCount };
  };
  return {
    async findById(id) {
      const row = await db.selectFrom('external_jwt_signers').selectAll().where('id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },
    async findByName(name) {
      const row = await db.selectFrom('external_jwt_signers').selectAll().where('name', '=', name).executeTakeFirst();
      return row && fromRow(row);
    },
    async existingIds(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return new Set();
      const rows = await db.selectFrom('external_jwt_signers').select('id').where('id', 'in', unique).execute();
      return new Set(rows.map((row) => row.id));
    },
    async listEnabled() {
      const rows = await db.selectFrom('external_jwt_signers').selectAll().where('enabled', '=', true).orderBy('name').execute();
      return rows.map(fromRow);
    },
    list: page,
    // The client's filter was checked against the client field map (a subset); `enabled` is added here, compiled
    // with the full map, so the public list can never reach a disabled signer whatever the filter says.
    listEnabledPage: (query) => page({ ...query, where: query.where === undefined ? ENABLED : { kind: 'and', operands: [ENABLED, query.where] } }),
    async insert(signer) {
      await db.insertInto('external_jwt_signers').values(toRow(signer)).execute();
    },
    async update(signer) {
      const { id, created_at: _createdAt, ...values } = toRow(signer);
      await db.updateTable('external_jwt_signers').set(values).where('id', '=', id).execute();
    },
    async delete(id) {
      const result = await db.deleteFrom('external_jwt_signers').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
