/**
 * Wire schemas of service management (reference serviceCreate/Update/Patch/Detail). `encryptionRequired` may appear
 * in an edit only with its stored value (the service refuses a change); the strategy, idle time and role attributes
 * are judged by the service too, so the answer names the rule broken.
 */
import { Type } from 'typebox';
import { DateTime, Links, ListQueryParams } from './common.js';
import { Tags } from './identity.js';
import { RoleFilterParams } from './role-filter.js';

const closed = { additionalProperties: false } as const;

const serviceFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  encryptionRequired: Type.Optional(Type.Boolean({ description: 'End-to-end encryption on both sides; set at create (default true), read-only after' })),
  configs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 256, description: 'config ids; at most one per config type' })),
  roleAttributes: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 256 })),
  terminatorStrategy: Type.Optional(Type.String({ maxLength: 64, description: 'smartrouting (default), weighted, random or ha' })),
  maxIdleTimeMillis: Type.Optional(Type.Integer({ description: 'a circuit idle this long is closed; 0 = never' })),
  tags: Type.Optional(Tags),
};

/** Create and PUT: the name is required, the rest take their defaults. */
export const ServiceBody = Type.Object(serviceFields, closed);
export const ServicePatchBody = Type.Partial(ServiceBody, closed);

/**
 * A service as the management API shows it. `config` (type name -> data) holds the configs of the types a request
 * asks for; management asks for none, so it is `{}`, as are `permissions` and `postureQueries`, which describe a
 * client's own access (serviceDetail requires all three).
 */
export const ServiceView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  configs: Type.Array(Type.String()),
  config: Type.Object({}, { additionalProperties: true }),
  encryptionRequired: Type.Boolean(),
  maxIdleTimeMillis: Type.Integer(),
  roleAttributes: Type.Array(Type.String()),
  terminatorStrategy: Type.String(),
  permissions: Type.Array(Type.String()),
  postureQueries: Type.Array(Type.Object({}, { additionalProperties: true })),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/** One posture check as the caller's session is judged on it (reference postureQuery). */
export const PostureQueryView = Type.Object({
  id: Type.String(),
  queryType: Type.String(),
  isPassing: Type.Boolean(),
  timeout: Type.Integer({ description: 'seconds a pass lasts; -1: no limit' }),
  timeoutRemaining: Type.Integer({ description: 'seconds until it stops passing; -1: never; 0: not passing' }),
  timeoutAt: Type.Union([DateTime, Type.Null()]),
  promptOnWake: Type.Optional(Type.Boolean()),
  promptOnUnlock: Type.Optional(Type.Boolean()),
  promptGracePeriodSeconds: Type.Optional(Type.Integer()),
  process: Type.Optional(Type.Object({ osType: Type.String(), path: Type.String() })),
  processes: Type.Optional(Type.Array(Type.Object({ osType: Type.String(), path: Type.String() }))),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/** One granting service policy's posture checks for the caller's session (reference postureQueries). */
const PolicyPostureQueriesView = Type.Object({
  policyId: Type.String(),
  policyType: Type.String({ description: 'Dial or Bind' }),
  isPassing: Type.Boolean({ description: 'every check of the policy passes (a policy without checks passes)' }),
  postureQueries: Type.Array(PostureQueryView),
});

/** A service as a client sees it: the caller's permissions, the configs of the types it asked for, its posture. */
export const ClientServiceView = Type.Object({
  ...ServiceView.properties,
  config: Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), { description: 'config type name -> config data, for the config types asked for' }),
  permissions: Type.Array(Type.String(), { description: 'Bind and/or Dial' }),
  postureQueries: Type.Array(PolicyPostureQueriesView),
});

const ConfigTypeName = Type.String({ maxLength: 255 });

/** `GET /services` on the client API: the list parameters, the role filter, and `configTypes` (repeatable). */
export const ClientServiceListParams = Type.Object({
  ...ListQueryParams.properties,
  ...RoleFilterParams,
  configTypes: Type.Optional(Type.Union([ConfigTypeName, Type.Array(ConfigTypeName)], { description: "config type ids or names whose configs to include, or 'all'; default: those asked for at login" })),
});

export const ClientServiceDetailParams = Type.Object({
  configTypes: Type.Optional(Type.Union([ConfigTypeName, Type.Array(ConfigTypeName)], { description: "config type ids or names whose configs to include, or 'all'" })),
});
