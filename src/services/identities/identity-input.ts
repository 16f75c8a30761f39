/**
 * What identity management accepts and how it becomes identity fields: the input types of create, replace
 * (PUT) and patch, the reference's identity types mapped to the two we store, and the audit details of a change.
 */
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import { DEFAULT_HOSTING, IDENTITY_TYPES, type HostingSettings, type Identity, type IdentityTypeId } from '../../domain/identity.js';

/** The identity types clients may send (reference identityCreate), stored as given. */
export const IDENTITY_TYPE_NAMES = IDENTITY_TYPES;
export type IdentityTypeName = IdentityTypeId;

/** The fields of a whole identity (PUT); absent optional fields take their defaults. */
export interface IdentityFieldsInput {
  name: string;
  type: IdentityTypeName;
  isAdmin: boolean;
  roleAttributes?: string[];
  /** Absent or null: the system `default` policy. */
  authPolicyId?: string | null;
  externalId?: string | null;
  tags?: Identity['tags'];
  /** Hosting: absent fields take `default` precedence, cost 0 and no per-service settings. */
  defaultHostingPrecedence?: HostingSettings['defaultHostingPrecedence'];
  defaultHostingCost?: number;
  serviceHostingPrecedences?: HostingSettings['serviceHostingPrecedences'];
  serviceHostingCosts?: HostingSettings['serviceHostingCosts'];
}

/**
 * Which enrollments to create with the identity: a one-time token (`ott`), a password for a username (`updb`),
 * and/or a one-time token for a certificate of the third-party CA of this id (`ottca`).
 */
export interface IdentityEnrollmentRequest {
  ott?: boolean;
  updb?: string;
  ottca?: string;
}

export interface IdentityCreateInput extends IdentityFieldsInput {
  enrollment?: IdentityEnrollmentRequest;
}

/** Any subset of the fields (PATCH); null clears authPolicyId (back to `default`) and externalId. */
export type IdentityPatchInput = Partial<IdentityFieldsInput>;

/** The fields management may set, as stored. */
export type IdentityFields = Pick<Identity, 'name' | 'typeId' | 'isAdmin' | 'roleAttributes' | 'authPolicyId' | 'externalId' | 'tags' | keyof HostingSettings>;

const EDITABLE: ReadonlyArray<keyof IdentityFields> = [
  'name',
  'typeId',
  'isAdmin',
  'roleAttributes',
  'authPolicyId',
  'externalId',
  'tags',
  'defaultHostingPrecedence',
  'defaultHostingCost',
  'serviceHostingPrecedences',
  'serviceHostingCosts',
];

/** The stored type of a requested type: the type as given (decision 0039). */
export function identityTypeId(type: IdentityTypeName): Identity['typeId'] {
  return type;
}

/** A whole input as stored fields, defaults filled in and role attributes without repeats. */
export function identityFields(input: IdentityFieldsInput): IdentityFields {
  return {
    name: input.name,
    typeId: identityTypeId(input.type),
    isAdmin: input.isAdmin,
    roleAttributes: input.roleAttributes ?? [],
    authPolicyId: input.authPolicyId ?? DEFAULT_AUTH_POLICY_ID,
    externalId: input.externalId ?? null,
    tags: input.tags ?? {},
    defaultHostingPrecedence: input.defaultHostingPrecedence ?? DEFAULT_HOSTING.defaultHostingPrecedence,
    defaultHostingCost: input.defaultHostingCost ?? DEFAULT_HOSTING.defaultHostingCost,
    serviceHostingPrecedences: { ...input.serviceHostingPrecedences },
    serviceHostingCosts: { ...input.serviceHostingCosts },
  };
}

/** The stored fields after a PATCH of `current`. */
export function patchedFields(current: Identity, patch: IdentityPatchInput): IdentityFields {
  return identityFields({
    name: patch.name ?? current.name,
    type: patch.type ?? current.typeId,
    isAdmin: patch.isAdmin ?? current.isAdmin,
    roleAttributes: patch.roleAttributes ?? current.roleAttributes,
    authPolicyId: patch.authPolicyId === undefined ? current.authPolicyId : patch.authPolicyId,
    externalId: patch.externalId === undefined ? current.externalId : patch.externalId,
    tags: patch.tags ?? current.tags,
    defaultHostingPrecedence: patch.defaultHostingPrecedence ?? current.defaultHostingPrecedence,
    defaultHostingCost: patch.defaultHostingCost ?? current.defaultHostingCost,
    serviceHostingPrecedences: patch.serviceHostingPrecedences ?? current.serviceHostingPrecedences,
    serviceHostingCosts: patch.serviceHostingCosts ?? current.serviceHostingCosts,
  });
}

/** The fields an administrator sets, as the identity has them (the audit details of a create). */
export function editableFields(identity: IdentityFields): IdentityFields {
  return Object.fromEntries(EDITABLE.map((key) => [key, identity[key]])) as IdentityFields;
}

/** The fields that differ between `before` and `after`, with their new values (identities hold no secrets). */
export function changedFields(before: IdentityFields, after: IdentityFields): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const key of EDITABLE) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = after[key];
  }
  return changes;
}

/** The enrollments an identity create asks for, in the order they are made. */
export function requestedEnrollments(request: IdentityEnrollmentRequest | undefined): Array<{ method: 'ott' | 'updb' | 'ottca'; username?: string; caId?: string }> {
  const wanted: Array<{ method: 'ott' | 'updb' | 'ottca'; username?: string; caId?: string }> = [];
  if (request?.ott === true) wanted.push({ method: 'ott' });
  if (request?.updb !== undefined) wanted.push({ method: 'updb', username: request.updb });
  if (request?.ottca !== undefined) wanted.push({ method: 'ottca', caId: request.ottca });
  return wanted;
}
