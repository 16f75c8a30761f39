/**
 * Auth policy management operations (`/auth-policies`, administrators only): list, create, read, replace,
 * patch, delete. `secondary.requireExtJwtSigner` (reference name) is read as `requireExtJwt` (spec name) here,
 * before the service sees the body; both given and different is a 400.
 */
import type { AuthPolicy } from '../../domain/auth-policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { Static } from 'typebox';
import type { AuthPolicyInput, AuthPolicyPatch } from '../../services/auth-policies/auth-policies.js';
import { ApiErrorBody } from '../schemas/common.js';
import { AuthPolicyBody, AuthPolicyPatchBody, AuthPolicyView } from '../schemas/auth-policy.js';
import { selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';

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
    primary: { ...policy.primary, cert: { ...policy.primary.cert, allowedCas: policy.primary.cert.allowedCas ?? [] } },
    secondary: { requireTotp: policy.secondary.requireTotp, requireExtJwt: policy.secondary.requireExtJwt, requireExtJwtSigner: policy.secondary.requireExtJwt },
    tags: policy.tags,
    createdAt: policy.createdAt.toISOString(),
    updatedAt: policy.updatedAt.toISOString(),
    _links: selfLink('auth-policies', policy.id),
  };
}

const policies = resourceRoutes({
  collection: 'auth-policies',
  tags: ['Auth Policy'],
  uses: 'authPolicies',
  service: (domains) => domains.authPolicies,
  view: authPolicyView,
  itemSchema: AuthPolicyView,
});

/** A whole policy (create, PUT) with the signer under its one name. */
const wholePolicy = (body: Static<typeof AuthPolicyBody>): AuthPolicyInput => ({
  ...body,
  secondary: { requireTotp: body.secondary.requireTotp, requireExtJwt: wholeSigner(body.secondary) },
});

/** A PATCH with the signer under its one name. */
const policyPatch = ({ secondary, ...rest }: Static<typeof AuthPolicyPatchBody>): AuthPolicyPatch => ({
  ...rest,
  ...(secondary ? { secondary: patchedSecondary(secondary) } : {}),
});

export const authPolicyRoutes = [
  policies.list({ operationId: 'listAuthPolicies', summary: 'Lists auth policies' }),
  policies.create({ operationId: 'createAuthPolicy', summary: 'Creates an auth policy', body: AuthPolicyBody, toInput: wholePolicy }),
  policies.detail({ operationId: 'detailAuthPolicy', summary: 'Reads one auth policy' }),
  policies.replace({ operationId: 'updateAuthPolicy', summary: 'Replaces an auth policy (the system default policy too)', body: AuthPolicyBody, toInput: wholePolicy }),
  policies.patch({ operationId: 'patchAuthPolicy', summary: 'Changes the given settings of an auth policy', body: AuthPolicyPatchBody, toInput: policyPatch }),
  policies.delete({ operationId: 'deleteAuthPolicy', summary: 'Deletes an auth policy no identity uses (never the system default policy)', responses: { 409: ApiErrorBody } }),
];
