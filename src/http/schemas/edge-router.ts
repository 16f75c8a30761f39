/**
 * Wire schemas of edge router management: the body of create and PUT (reference edgeRouterCreate/Update), the
 * PATCH body, and the router view (edgeRouterDetail). The view carries the router's online status and what it
 * reported when it last connected, empty if it never did (docs/decisions/0064-router-presence.md).
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });
/** Each attribute is judged by the service (policy/roles.ts), which names the offending entry. */
const RoleAttributes = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 256 });
const Cost = Type.Integer({ minimum: 0, maximum: 65_535, description: 'routing cost, 0..65535' });
const AppData = Type.Record(Type.String(), Type.Unknown(), { description: 'application data, any JSON object' });

const fields = {
  roleAttributes: Type.Optional(RoleAttributes),
  isTunnelerEnabled: Type.Optional(Type.Boolean()),
  cost: Type.Optional(Type.Union([Cost, Type.Null()])),
  noTraversal: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  disabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  appData: Type.Optional(AppData),
  tags: Type.Optional(Tags),
};

/** Create and PUT: the whole router; absent fields take their defaults. */
export const EdgeRouterBody = Type.Object({ name: Name, ...fields }, closed);

/** PATCH: any subset. */
export const EdgeRouterPatchBody = Type.Object({ name: Type.Optional(Name), ...fields }, closed);

const VersionInfo = Type.Object({ version: Type.String(), revision: Type.String(), buildDate: Type.String(), os: Type.String(), arch: Type.String() });
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableDate = Type.Union([DateTime, Type.Null()]);

/** A router as sent (edgeRouterDetail): list items and the detail alike. */
export const EdgeRouterView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  roleAttributes: Type.Array(Type.String()),
  isTunnelerEnabled: Type.Boolean(),
  cost: Type.Integer(),
  noTraversal: Type.Boolean(),
  disabled: Type.Boolean(),
  appData: AppData,
  tags: Tags,
  isOnline: Type.Boolean(),
  hostname: Type.String(),
  supportedProtocols: Type.Record(Type.String(), Type.String()),
  syncStatus: Type.String(),
  fingerprint: nullableString,
  certPem: nullableString,
  unverifiedFingerprint: nullableString,
  unverifiedCertPem: nullableString,
  isVerified: Type.Boolean(),
  enrollmentJwt: nullableString,
  enrollmentToken: nullableString,
  enrollmentCreatedAt: nullableDate,
  enrollmentExpiresAt: nullableDate,
  configs: Type.Array(Type.String()),
  ctrlChanListeners: Type.Record(Type.String(), Type.Array(Type.String())),
  interfaces: Type.Array(Type.Object({}, { additionalProperties: true })),
  versionInfo: VersionInfo,
  version: Type.String(),
  revision: Type.String(),
  buildDate: Type.String(),
  os: Type.String(),
  arch: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/**
 * A router as the client API lists it for the session's identity (reference currentIdentityEdgeRouterDetail: the
 * base entity and commonEdgeRouterProperties' required fields). `supportedProtocols` maps a protocol to the address
 * recorded on the router. `tags` are the base entity's, as for every entity; `appData` is left out.
 */
export const CurrentIdentityEdgeRouterView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hostname: Type.String(),
  isOnline: Type.Boolean({ description: 'true while the router\'s control channel is up at a live controller' }),
  supportedProtocols: Type.Record(Type.String(), Type.String(), { description: 'protocol -> address the router advertised, e.g. tls -> tls://host:3022' }),
  syncStatus: Type.String(),
  cost: Type.Integer(),
  noTraversal: Type.Boolean(),
  disabled: Type.Boolean(),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
