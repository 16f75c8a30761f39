/**
 * Wire schemas of identity and authenticator management: request bodies (closed: unknown fields are refused)
 * and the views sent back. Response schemas filter output, so the authenticator view cannot carry a password
 * hash: it declares none.
 */
import { Type } from 'typebox';
import { IDENTITY_TYPE_NAMES } from '../../services/identity-input.js';
import { DateTime, Envelope, Links } from './common.js';

const closed = { additionalProperties: false } as const;

/** `tags`: an object whose values are strings, booleans or null (spec: tags). */
export const Tags = Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean(), Type.Null()]), { description: 'string, boolean or null values' });

/** `{id, name}` of another entity, with its link when it has one. */
export const EntityRef = Type.Object({ id: Type.String(), name: Type.String(), entity: Type.Optional(Type.String()), _links: Type.Optional(Links) });

/** `{data: {id, _links}, meta}`: the answer of a create (HTTP 201). */
export const CreatedEnvelope = Envelope(Type.Object({ id: Type.String(), _links: Links }));

const NullableString = (options: { minLength: number; maxLength: number }) => Type.Union([Type.String(options), Type.Null()]);

const identityFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Enum([...IDENTITY_TYPE_NAMES], { description: 'User, Device, Service, Router or Default (all but Router are stored as Default)' }),
  isAdmin: Type.Boolean(),
  roleAttributes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 256 })),
  authPolicyId: Type.Optional(NullableString({ minLength: 1, maxLength: 255 })),
  externalId: Type.Optional(NullableString({ minLength: 1, maxLength: 255 })),
  tags: Type.Optional(Tags),
};

export const IdentityEnrollmentBody = Type.Object(
  {
    ott: Type.Optional(Type.Boolean({ description: 'true: create a one-time-token (certificate) enrollment' })),
    updb: Type.Optional(Type.String({ minLength: 4, maxLength: 100, description: 'create a password enrollment for this username' })),
  },
  closed,
);

export const IdentityCreateBody = Type.Object({ ...identityFields, enrollment: Type.Optional(IdentityEnrollmentBody) }, closed);
export const IdentityUpdateBody = Type.Object(identityFields, closed);
export const IdentityPatchBody = Type.Partial(IdentityUpdateBody, closed);
export const IdentityDisableBody = Type.Object(
  { durationMinutes: Type.Integer({ minimum: 0, maximum: 5_256_000, description: 'how long the identity stays disabled; 0 = until enabled' }) },
  closed,
);

const identityProperties = {
  id: Type.String(),
  name: Type.String(),
  type: EntityRef,
  typeId: Type.String(),
  isAdmin: Type.Boolean(),
  isDefaultAdmin: Type.Boolean(),
  disabled: Type.Boolean(),
  disabledAt: Type.Union([DateTime, Type.Null()]),
  disabledUntil: Type.Union([DateTime, Type.Null()]),
  authPolicyId: Type.String(),
  authPolicy: EntityRef,
  externalId: Type.Union([Type.String(), Type.Null()]),
  roleAttributes: Type.Array(Type.String()),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
};

/** An identity in a list. */
export const IdentitySummary = Type.Object(identityProperties);

const PendingEnrollment = { id: Type.String(), jwt: Type.String(), token: Type.String(), expiresAt: DateTime };

/** One identity with its authenticators, pending enrollments and whether it has an API session. */
export const IdentityDetail = Type.Object({
  ...identityProperties,
  hasApiSession: Type.Boolean(),
  authenticators: Type.Object({
    cert: Type.Optional(Type.Object({ id: Type.String(), fingerprint: Type.String() })),
    updb: Type.Optional(Type.Object({ id: Type.String(), username: Type.String() })),
  }),
  enrollment: Type.Object({
    ott: Type.Optional(Type.Object(PendingEnrollment)),
    updb: Type.Optional(Type.Object({ ...PendingEnrollment, username: Type.String() })),
  }),
});

/** An authenticator as management sees it: never a password or its hash. */
export const AuthenticatorView = Type.Object({
  id: Type.String(),
  method: Type.String({ description: 'updb or cert' }),
  identityId: Type.String(),
  identity: EntityRef,
  username: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
  certPem: Type.Optional(Type.String()),
  isIssuedByNetwork: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});
