/**
 * Auth policy management operations (`/auth-policies`, administrators only): list, create, read, replace,
 * patch, delete. `secondary.requireExtJwtSigner` (reference name) is read as `requireExtJwt` (spec name) here,
 * before the service sees the body; both given and different is a 400.
 */
import type { AuthPolicy } from '../../domain/auth-policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthPolicyPatch } from '../../services/auth-policies/auth-policies.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { AuthPolicyBody, AuthPolicyPatchBody, AuthPolicyView } from '../schemas/auth-policy.js';
import { CreatedEnvelope } from '../schemas/identity.js';
import { actorOf } from '../kit/actor.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Auth Policy'];
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const mutation = { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody };

interface SecondaryInput {
  requireExtJwt?: string | null;
  requireExtJwtSigner?: string | null;
}

/** A field error in the shape the kit gives schema violations. */
function invalid(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: body.${field} ${reason}`, cause: { field, reason: `body.${field} ${reason}`, value, in: 'body' } });
}

/**
 * The signer the secondary settings name under either field; undefined when neither is given.
 * Throws 400 when both are given with different values.
 */
function requiredSigner(secondary: SecondaryInput): string | null | undefined {
  const { requireExtJwt, requireExtJwtSigner } = secondary;
  if (requireExtJwt !== undefined && requireExtJwtSigner !== undefined && requireExtJwt !== requireExtJwtSigner) {
    throw invalid('secondary.requireExtJwtSigner', 'must equal secondary.requireExtJwt when both are given', requireExtJwtSigner);
  }
  return requireExtJwt !== undefined ? requireExtJwt : requireExtJwtSigner;
}

/** The signer a whole-policy body names; one of the two names is required. */
function wholeSigner(secondary: SecondaryInput): string | null {
  const signer = requiredSigner(secondary);
  if (signer === undefined) throw invalid('secondary.requireExtJwt', 'is required');
  return signer;
}

/** The secondary settings of a PATCH with the signer under its one name; only what was given. */
function patchedSecondary(given: SecondaryInput & { requireTotp?: boolean }): AuthPolicyPatch['secondary'] {
  const signer = requiredSigner(given);
  return { ...(given.requireTotp === undefined ? {} : { requireTotp: given.requireTotp }), ...(signer === undefined ? {} : { requireExtJwt: signer }) };
}

/** A policy as sent; the signer appears under the spec's and the reference's names. */
export function authPolicyView(policy: AuthPolicy) {
  return {
    id: policy.id,
    name: policy.name,
    primary: policy.primary,
    secondary: { requireTotp: policy.secondary.requireTotp, requireExtJwt: policy.secondary.requireExtJwt, requireExtJwtSigner: policy.secondary.requireExtJwt },
    tags: policy.tags,
    createdAt: policy.createdAt.toISOString(),
    updatedAt: policy.updatedAt.toISOString(),
    _links: selfLink('auth-policies', policy.id),
  };
}

export const authPolicyRoutes = [
  defineRoute({
    method: 'GET',
    url: '/auth-policies',
    operationId: 'listAuthPolicies',
    summary: 'Lists auth policies',
    tags,
    access: 'admin',
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(AuthPolicyView), 400: ApiErrorBody, ...denied } },
    handler: async ({ api, query }) => {
      const page = await api.services.authPolicies.list(query);
      return listEnvelope(page.items.map(authPolicyView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/auth-policies',
    operationId: 'createAuthPolicy',
    summary: 'Creates an auth policy',
    tags,
    access: 'admin',
    status: 201,
    schema: { body: AuthPolicyBody, response: { 201: CreatedEnvelope, 400: ApiErrorBody, ...denied } },
    handler: async ({ api, auth, body }) => {
      const secondary = { requireTotp: body.secondary.requireTotp, requireExtJwt: wholeSigner(body.secondary) };
      const policy = await api.services.authPolicies.create(actorOf(auth), { ...body, secondary });
      return envelope({ id: policy.id, _links: selfLink('auth-policies', policy.id) });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/auth-policies/:id',
    operationId: 'detailAuthPolicy',
    summary: 'Reads one auth policy',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { 200: Envelope(AuthPolicyView), ...denied, 404: ApiErrorBody } },
    handler: async ({ api, params }) => envelope(authPolicyView(await api.services.authPolicies.get(params.id))),
  }),
  defineRoute({
    method: 'PUT',
    url: '/auth-policies/:id',
    operationId: 'updateAuthPolicy',
    summary: 'Replaces an auth policy (the system default policy too)',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: AuthPolicyBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      const secondary = { requireTotp: body.secondary.requireTotp, requireExtJwt: wholeSigner(body.secondary) };
      await api.services.authPolicies.replace(actorOf(auth), params.id, { ...body, secondary });
      return envelope({});
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/auth-policies/:id',
    operationId: 'patchAuthPolicy',
    summary: 'Changes the given settings of an auth policy',
    tags,
    access: 'admin',
    schema: { params: IdParams, body: AuthPolicyPatchBody, response: mutation },
    handler: async ({ api, auth, params, body }) => {
      const { secondary, ...rest } = body;
      await api.services.authPolicies.patch(actorOf(auth), params.id, { ...rest, ...(secondary ? { secondary: patchedSecondary(secondary) } : {}) });
      return envelope({});
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/auth-policies/:id',
    operationId: 'deleteAuthPolicy',
    summary: 'Deletes an auth policy no identity uses (never the system default policy)',
    tags,
    access: 'admin',
    schema: { params: IdParams, response: { ...mutation, 409: ApiErrorBody } },
    handler: async ({ api, auth, params }) => {
      await api.services.authPolicies.delete(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
