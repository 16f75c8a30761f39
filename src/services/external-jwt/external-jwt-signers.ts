/**
 * External JWT signer management (`/edge/management/v1/external-jwt-signers`): list, read, create, replace, patch,
 * delete, and the `check` diagnostic that runs the login verifier on a token. The public client list shows enabled
 * signers only. Every mutation is recorded in the audit trail; a signer an auth policy names cannot be deleted.
 * Changing or deleting a signer drops its cached JWKS.
 */
import type { JWTPayload } from 'jose';
import type { Actor } from '../../domain/audit.js';
import type { ExternalJwtSigner } from '../../domain/external-jwt-signer.js';
import { ApiError } from '../../errors/api-error.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import {
  CLIENT_EXTERNAL_JWT_SIGNER_FIELDS,
  EXTERNAL_JWT_SIGNER_FIELDS,
  type ExternalJwtSignerRepository,
} from '../../persistence/repositories/external-jwt-signers.js';
import { nameProblem } from '../../policy/names.js';
import type { Clock } from '../../shared/clock.js';
import { newEntityId } from '../../shared/random.js';
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

export interface ExternalJwtSignerService {
  list(params: RawListParams): Promise<ListPage<ExternalJwtSigner>>;
  /** The client API list: enabled signers only, filterable on public fields only. */
  listEnabled(params: RawListParams): Promise<ListPage<ExternalJwtSigner>>;
  /** 404 NOT_FOUND when `id` is unknown (as for every operation on one signer). */
  get(id: string): Promise<ExternalJwtSigner>;
  /** 400 COULD_NOT_VALIDATE naming the field: name in use, key source, certificate, URLs. */
  create(actor: Actor, input: ExternalJwtSignerInput): Promise<ExternalJwtSigner>;
  /** PUT: every field; absent optional fields return to their defaults. */
  replace(actor: Actor, id: string, input: ExternalJwtSignerInput): Promise<ExternalJwtSigner>;
  patch(actor: Actor, id: string, patch: ExternalJwtSignerPatch): Promise<ExternalJwtSigner>;
  /** 409 CAN_NOT_DELETE_REFERENCED_ENTITY naming the auth policies that use the signer. */
  delete(actor: Actor, id: string): Promise<void>;
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
  const { signers, authPolicies, verifier, fetcher, clock } = deps;

  async function found(id: string): Promise<ExternalJwtSigner> {
    const signer = await signers.findById(id);
    if (!signer) throw new ApiError('NOT_FOUND', { message: `No external JWT signer has the id '${id}'`, cause: { field: 'id', value: id } });
    return signer;
  }

  async function check(fields: ExternalJwtSignerFields, current?: ExternalJwtSigner): Promise<void> {
    // The name rules (policy/names.ts); a stored name that does not change is not judged again.
    const problem = fields.name === current?.name ? undefined : nameProblem(fields.name);
    if (problem) throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: name ${problem}`, cause: { field: 'name', reason: problem, value: fields.name } });
    checkSignerFields(fields, { allowHttpJwks: deps.allowHttpJwks });
    const named = await signers.findByName(fields.name);
    if (named && named.id !== current?.id) {
      throw new ApiError('COULD_NOT_VALIDATE', { message: `The name '${fields.name}' is already in use`, cause: { field: 'name', reason: 'is already in use', value: fields.name } });
    }
  }

  async function update(actor: Actor, current: ExternalJwtSigner, fields: ExternalJwtSignerFields, action: 'update' | 'patch'): Promise<ExternalJwtSigner> {
    await check(fields, current);
    const next: ExternalJwtSigner = { ...current, ...fields, updatedAt: clock.now() };
    await deps.changes(async ({ records, audit }) => {
      await records.update(next);
      await audit.record(actor, action, 'external-jwt-signer', next.id, signerAuditDetails(next));
    });
    fetcher.forget(next.id);
    deps.events.trustChanged({ actor, entityType: 'external-jwt-signer', entityId: next.id, action });
    return next;
  }

  async function page(params: RawListParams, publicOnly: boolean): Promise<ListPage<ExternalJwtSigner>> {
    const fields = publicOnly ? CLIENT_EXTERNAL_JWT_SIGNER_FIELDS : EXTERNAL_JWT_SIGNER_FIELDS;
    const query = parseListParams(params, fields);
    const { items, totalCount } = publicOnly ? await signers.listEnabledPage(query) : await signers.list(query);
    return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(fields) };
  }

  return {
    list: (params) => page(params, false),
    listEnabled: (params) => page(params, true),
    get: found,
    async create(actor, input) {
      const fields = signerFields(input);
      await check(fields);
      const now = clock.now();
      const signer: ExternalJwtSigner = { id: newEntityId(), ...fields, createdAt: now, updatedAt: now };
      await deps.changes(async ({ records, audit }) => {
        await records.insert(signer);
        await audit.record(actor, 'create', 'external-jwt-signer', signer.id, signerAuditDetails(signer));
      });
      deps.events.trustChanged({ actor, entityType: 'external-jwt-signer', entityId: signer.id, action: 'create' });
      return signer;
    },
    async replace(actor, id, input) {
      return update(actor, await found(id), signerFields(input), 'update');
    },
    async patch(actor, id, patch) {
      const current = await found(id);
      return update(actor, current, patchedSignerFields(current, patch), 'patch');
    },
    async delete(actor, id) {
      const signer = await found(id);
      const users = await authPolicies.findReferencingSigner(id);
      if (users.length > 0) {
        const names = users.map((policy) => `'${policy.name}'`).join(', ');
        throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', {
          message: `The external JWT signer '${signer.name}' is used by auth ${users.length === 1 ? 'policy' : 'policies'} ${names}`,
          cause: { field: 'id', value: id, referencedBy: 'auth-policies', policies: users.map((policy) => ({ id: policy.id, name: policy.name })) },
        });
      }
      await deps.changes(async ({ records, audit }) => {
        await records.delete(id);
        await audit.record(actor, 'delete', 'external-jwt-signer', id, { name: signer.name });
      });
      fetcher.forget(id);
      deps.events.trustChanged({ actor, entityType: 'external-jwt-signer', entityId: id, action: 'delete' });
    },
    async check(id, token) {
      await found(id);
      const result = await verifier.check(id, token);
      if (!result.ok) return { ok: false, check: result.failure.check, message: result.failure.message };
      const { identity, claims } = result;
      return { ok: true, message: `token maps to identity ${identity.name} (${identity.id})`, identityId: identity.id, identityName: identity.name, claims };
    },
  };
}
