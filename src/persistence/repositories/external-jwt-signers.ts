/**
 * External JWT signers in the store. The management list filters on every stored setting; the client list (open to
 * anyone) only on what the client view shows, and always only on enabled signers. The common operations come from
 * the resource kit (resource-table.ts).
 */
import { TARGET_TOKENS, type ExternalJwtSigner, type TargetToken } from '../../domain/external-jwt-signer.js';
import type { Database } from '../database.js';
import type { FieldMap, FilterExpr, ListQuery } from '../query/list-query.js';
import { resourceRepository, type ResourceRepository, type ResourceTable } from '../resource-table.js';
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

export interface ExternalJwtSignerRepository extends ResourceRepository<ExternalJwtSigner> {
  /** Every enabled signer, by name (the candidates of an ext-jwt login). */
  listEnabled(): Promise<ExternalJwtSigner[]>;
  /** A page of enabled signers only; `query` was parsed with CLIENT_EXTERNAL_JWT_SIGNER_FIELDS. */
  listEnabledPage(query: ListQuery): Promise<{ items: ExternalJwtSigner[]; totalCount: number }>;
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

/** How external JWT signers are stored. */
export const EXTERNAL_JWT_SIGNER_TABLE: ResourceTable<'external_jwt_signers', ExternalJwtSigner> = {
  table: 'external_jwt_signers',
  fields: EXTERNAL_JWT_SIGNER_FIELDS,
  fromRow,
  toRow,
  changeLog: 'external-jwt-signer',
};

export function createExternalJwtSignerRepository(database: Database): ExternalJwtSignerRepository {
  const common = resourceRepository(database, EXTERNAL_JWT_SIGNER_TABLE);
  return {
    ...common,
    async listEnabled() {
      const rows = await database.db.selectFrom('external_jwt_signers').selectAll().where('enabled', '=', true).orderBy('name').execute();
      return rows.map(fromRow);
    },
    // The client's filter was checked against the client field map (a subset); `enabled` is added here, compiled
    // with the full map, so the public list can never reach a disabled signer whatever the filter says.
    listEnabledPage: (query) => common.list({ ...query, where: query.where === undefined ? ENABLED : { kind: 'and', operands: [ENABLED, query.where] } }),
  };
}
