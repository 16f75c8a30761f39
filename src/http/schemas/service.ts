/**
 * Wire schemas of service management (reference serviceCreate/Update/Patch/Detail). `encryptionRequired` may appear
 * in an edit only with its stored value (the service refuses a change); the strategy, idle time and role attributes
 * are judged by the service too, so the answer names the rule broken.
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

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
