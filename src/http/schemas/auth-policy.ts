/**
 * Wire schemas of auth policy management: the whole-policy body of create and PUT (every setting required, as in
 * the reference authPolicyCreate), the PATCH body (any subset at every level) and the policy view.
 * `secondary.requireExtJwtSigner` (the reference's name) is accepted beside `requireExtJwt` (the spec's);
 * the route reduces the two to one before the service sees them.
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const count = (description: string) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, description });
const signerId = (description?: string) => Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], description ? { description } : {});

const certFields = {
  allowed: Type.Boolean(),
  allowExpiredCerts: Type.Boolean(),
  // Optional so that bodies of the reference shape stay valid (decision 0057); a PUT without it names no CA.
  allowedCas: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 256, description: "third-party CA ids whose externalIdClaim may log in this policy's identities (administrators included)" }),
  ),
};
const updbFields = {
  allowed: Type.Boolean(),
  minPasswordLength: Type.Integer({ minimum: 5, maximum: 100 }),
  requireSpecialChar: Type.Boolean(),
  requireNumberChar: Type.Boolean(),
  requireMixedCase: Type.Boolean(),
  maxAttempts: count('failed attempts before lockout; 0 = unlimited'),
  lockoutDurationMinutes: count('how long a password lockout lasts; 0 = the longest, 24 hours (an administrator ends it sooner with enable)'),
};
const extJwtFields = { allowed: Type.Boolean(), allowedSigners: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 256 }) };
const secondaryFields = {
  requireTotp: Type.Boolean(),
  requireExtJwt: Type.Optional(signerId('External JWT Signer id required as a secondary factor, or null')),
  requireExtJwtSigner: Type.Optional(signerId('alias of requireExtJwt (reference name)')),
};
const Name = Type.String({ minLength: 1, maxLength: 255 });

/** Create and PUT: the whole policy. `secondary` needs one of requireExtJwt / requireExtJwtSigner (checked by the route). */
export const AuthPolicyBody = Type.Object(
  {
    name: Name,
    primary: Type.Object(
      { cert: Type.Object(certFields, closed), updb: Type.Object(updbFields, closed), extJwt: Type.Object(extJwtFields, closed) },
      closed,
    ),
    secondary: Type.Object(secondaryFields, closed),
    tags: Type.Optional(Tags),
  },
  closed,
);

/** PATCH: any subset, at every level. */
export const AuthPolicyPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    primary: Type.Optional(
      Type.Object(
        {
          cert: Type.Optional(Type.Partial(Type.Object(certFields), closed)),
          updb: Type.Optional(Type.Partial(Type.Object(updbFields), closed)),
          extJwt: Type.Optional(Type.Partial(Type.Object(extJwtFields), closed)),
        },
        closed,
      ),
    ),
    secondary: Type.Optional(Type.Partial(Type.Object(secondaryFields), closed)),
    tags: Type.Optional(Tags),
  },
  closed,
);

/** A policy as sent: `secondary` carries the signer under both names. */
export const AuthPolicyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  primary: Type.Object({ cert: Type.Object(certFields), updb: Type.Object(updbFields), extJwt: Type.Object(extJwtFields) }),
  secondary: Type.Object({ requireTotp: Type.Boolean(), requireExtJwt: signerId(), requireExtJwtSigner: signerId() }),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
