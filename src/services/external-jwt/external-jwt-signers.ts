/**
 * External JWT signer management (`/edge/management/v1/external-jwt-signers`): list, read, create, replace, patch,
 * delete, and the `check` diagnostic that runs the login verifier on a token. The public client list shows enabled
 * signers only. Every mutation is recorded in the audit trail; a signer an auth policy names cannot be deleted.
 * Changing or deleting a signer drops its cached JWKS.
 */
import type { JWTPayload } from 'jose';
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import {
  CLIENT_EXTERNAL_JWT_SIGNER_FIELDS,
  EXTERNAL_JWT_SIGNER_TABLE,
  type ExternalJwtSignerRepository,
} from '../../persistence/repositories/external-jwt-signers.js';
import type { Clock } from '../../shared/clock.js';
import type { ExtJwtCheck, ExternalJwtVerifier } from './external-jwt.js';
import {
  checkSignerFields,
  patchedSignerFields,
  signerAuditDetails,
  signerFields,
  type ExternalJwtSignerFields,
  type ExternalJwtSignerInput,
  type ExternalJwtSignerPatch,
} from './external-jwt-signer-input.js';
import type { JwksFetcher } from './jwks-fetcher.js';
import type { ListPage } from '../list-page.js';
import type { SecurityEvents } from '../audit/security-events.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';

export type { ExternalJwtSignerInput, ExternalJwtSignerPatch } from './external-jwt-signer-input.js';

/** The answer of the `check` diagnostic: the first failing check in words, or the identity the token maps to. */
export interface ExtJwtCheckReport {
  ok: boolean;
  check?: ExtJwtCheck;
  message: string;
  identityId?: string;
  identityName?: string;
  claims?: JWTPayload;
}

/**
 * Signer management (the resource kit's operations), the public list and the `check` diagnostic. Beyond the kit's
 * checks: 400 COULD_NOT_VALIDATE naming the field for the key source, certificate and URLs; on delete, 409
 * CAN_NOT_DELETE_REFERENCED_ENTITY naming the auth policies that use the signer.
 */
export interface ExternalJwtSignerService extends ResourceService<ExternalJwtSigner, ExternalJwtSignerInput, ExternalJwtSignerPatch> {
  /** The client API list: enabled signers only, filterable on public fields only. */
  listEnabled(params: RawListParams): Promise<ListPage<ExternalJwtSigner>>;
  /** Runs the login verifier on `token` against the signer (which must exist). */
  check(id: string, token: string): Promise<ExtJwtCheckReport>;
}

export interface ExternalJwtSignerServiceDeps {
  signers: ExternalJwtSignerRepository;
  authPolicies: Pick<AuthPolicyRepository, 'findReferencingSigner'>;
  verifier: Pick<ExternalJwtVerifier, 'check'>;
  fetcher: Pick<JwksFetcher, 'forget'>;
  /** A signer's change and its audit entry, in one transaction. */
  changes: AuditedChanges<Pick<ExternalJwtSignerRepository, 'insert' | 'update' | 'delete'>>;
  /** Signer changes are trust changes: each also leaves a log line. */
  events: Pick<SecurityEvents, 'trustChanged'>;
  clock: Clock;
  /** edge.externalJwt.allowHttpJwks */
  allowHttpJwks: boolean;
}

export function createExternalJwtSignerService(deps: ExternalJwtSignerServiceDeps): ExternalJwtSignerService {
  const { signers, authPolicies, verifier, fetcher } = deps;

  const managed = resourceService<ExternalJwtSigner, ExternalJwtSignerFields, ExternalJwtSignerInput, ExternalJwtSignerPatch, ResourceScope<ExternalJwtSigner>>(
    { repository: signers, fields: EXTERNAL_JWT_SIGNER_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'external-jwt-signer',
      label: 'external JWT signer',
      fields: signerFields,
      patched: patchedSignerFields,
      check: (fields) => checkSignerFields(fields, { allowHttpJwks: deps.allowHttpJwks }),
      async checkDelete(signer) {
        const users = await authPolicies.findReferencingSigner(signer.id);
        if (users.length === 0) return;
        const names = users.map((policy) => `'${policy.name}'`).join(', ');
        throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
          message: `The external JWT signer '${signer.name}' is used by auth ${users.length === 1 ? 'policy' : 'policies'} ${names}`,
          cause: { field: 'id', value: signer.id, referencedBy: 'auth-policies', policies: users.map((policy) => ({ id: policy.id, name: policy.name })) },
        });
      },
      auditDetails: (signer) => signerAuditDetails(signer),
      // A signer's change is a trust change: its cached keys go, and it leaves a log line.
      committed(actor, action, signer) {
        if (action !== 'create') fetcher.forget(signer.id);
        deps.events.trustChanged({ actor, entityType: 'external-jwt-signer', entityId: signer.id, action });
      },
    },
  );

  return {
    ...managed,
    async listEnabled(params) {
      const query = parseListParams(params, CLIENT_EXTERNAL_JWT_SIGNER_FIELDS);
      const { items, totalCount } = await signers.listEnabledPage(query);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(CLIENT_EXTERNAL_JWT_SIGNER_FIELDS) };
    },
    async check(id, token) {
      await managed.found(id);
      const result = await verifier.check(id, token);
      if (!result.ok) return { ok: false, check: result.failure.check, message: result.failure.message };
      const { identity, claims } = result;
      return { ok: true, message: `token maps to identity ${identity.name} (${identity.id})`, identityId: identity.id, identityName: identity.name, claims };
    },
  };
}
