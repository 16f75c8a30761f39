/**
 * Wire schemas of identity and authenticator management: request bodies (closed: unknown fields are refused)
 * and the views sent back. Response schemas filter output, so the authenticator view cannot carry a password
 * hash: it declares none.
 */
import { Type } from 'typebox';
import { HOSTING_PRECEDENCES } from '../../domain/identity.js';
import { IDENTITY_TYPE_NAMES } from '../../services/identities/identity-input.js';
import { EnvInfo, SdkInfo } from './client-info.js';
import { DateTime, Links } from './common.js';

const closed = { additionalProperties: false } as const;

/** `tags`: an object whose values are strings, booleans or null (spec: tags). */
export const Tags = Type.Record(Type.String(), Type.Union([Type.String(), Type.Boolean(), Type.Null()]), { description: 'string, boolean or null values' });

/** `{id, name}` of another entity, with its link when it has one. */
export const EntityRef = Type.Object({ id: Type.String(), name: Type.String(), entity: Type.Optional(Type.String()), _links: Type.Optional(Links) });

export { CreatedEnvelope } from './common.js';

/** How a hosting identity's terminators rank: `default`, `required` or `failed`. */
const HostingPrecedence = Type.Enum([...HOSTING_PRECEDENCES]);
/** A terminator cost: 0..65535 (reference uint16). */
const HostingCost = Type.Integer({ minimum: 0, maximum: 65_535 });

const NullableString = (options: { minLength: number; maxLength: number }) => Type.Union([Type.String(options), Type.Null()]);

const identityFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Enum([...IDENTITY_TYPE_NAMES], { description: `the identity's type, one of ${IDENTITY_TYPE_NAMES.join(', ')} (GET /identity-types); stored as given` }),
  isAdmin: Type.Boolean(),
  roleAttributes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 256 })),
  authPolicyId: Type.Optional(NullableString({ minLength: 1, maxLength: 255 })),
  externalId: Type.Optional(NullableString({ minLength: 1, maxLength: 255 })),
  tags: Type.Optional(Tags),
  defaultHostingPrecedence: Type.Optional(HostingPrecedence),
  defaultHostingCost: Type.Optional(HostingCost),
  serviceHostingPrecedences: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 255 }), HostingPrecedence, { description: 'service id -> precedence', maxProperties: 10_000 })),
  serviceHostingCosts: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 255 }), HostingCost, { description: 'service id -> cost', maxProperties: 10_000 })),
};

export const IdentityEnrollmentBody = Type.Object(
  {
    ott: Type.Optional(Type.Boolean({ description: 'true: create a one-time-token (certificate) enrollment' })),
    updb: Type.Optional(
      Type.String({
        minLength: 4,
        maxLength: 100,
        description:
          'create a password enrollment for this username: 4 to 100 characters, no white space at either end, no control, bidirectional-formatting or other invisible characters; unique ignoring case and compatibility forms',
      }),
    ),
    ottca: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'create a one-time-token enrollment for a certificate of the third-party CA of this id' })),
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

const PendingEnrollment = { id: Type.String(), jwt: Type.String(), token: Type.String(), expiresAt: DateTime };

/**
 * One identity, in its detail and in lists alike (the reference's identityList is a list of identityDetail): its
 * authenticators, pending enrollments, what its last login said about the client, and whether a session is live.
 * The hosting and router fields hold neutral values until routers and services exist (decision 0010).
 */
export const IdentityDetail = Type.Object({
  ...identityProperties,
  hasApiSession: Type.Boolean({ description: 'a legacy session or an unrevoked OIDC session of the identity is live' }),
  isMfaEnabled: Type.Boolean({ description: 'it has a verified TOTP enrollment' }),
  authenticators: Type.Object({
    cert: Type.Optional(Type.Object({ id: Type.String(), fingerprint: Type.String() })),
    updb: Type.Optional(Type.Object({ id: Type.String(), username: Type.String() })),
  }),
  enrollment: Type.Object({
    ott: Type.Optional(Type.Object(PendingEnrollment)),
    updb: Type.Optional(Type.Object({ ...PendingEnrollment, username: Type.String() })),
    ottca: Type.Optional(Type.Object({ ...PendingEnrollment, caId: Type.String() })),
  }),
  sdkInfo: SdkInfo,
  envInfo: EnvInfo,
  appData: Tags,
  permissions: Type.Array(Type.String(), { description: 'fine-grained permissions; none exist yet (isAdmin grants everything)' }),
  hasEdgeRouterConnection: Type.Boolean({ description: 'an edge router connected to this controller holds an SDK channel of the identity' }),
  edgeRouterConnectionStatus: Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('unknown')]),
  defaultHostingCost: Type.Integer({ minimum: 0, maximum: 65535 }),
  defaultHostingPrecedence: Type.Union([Type.Literal('default'), Type.Literal('required'), Type.Literal('failed')]),
  serviceHostingCosts: Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 65535 })),
  serviceHostingPrecedences: Type.Record(Type.String(), Type.Union([Type.Literal('default'), Type.Literal('required'), Type.Literal('failed')])),
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
  // An administrator's request-extend, and whether the last verified extension changed the key (decision 0038).
  isExtendRequested: Type.Boolean(),
  isKeyRollRequested: Type.Boolean(),
  extendRequestedAt: Type.Union([DateTime, Type.Null()]),
  lastAuthResolvedToRoot: Type.Boolean(),
  lastExtendRolledKeys: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});
