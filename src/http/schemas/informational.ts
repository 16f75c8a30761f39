/**
 * Wire schemas of the informational operations (version, capabilities, protocols, specs) and controllers.
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';

const ApiVersionEntry = Type.Object({ path: Type.String(), version: Type.String(), apiBaseUrls: Type.Array(Type.String()) });

export const Version = Type.Object({
  version: Type.String(),
  revision: Type.String(),
  buildDate: Type.String(),
  runtimeVersion: Type.String(),
  capabilities: Type.Array(Type.String()),
  apiVersions: Type.Record(Type.String(), Type.Object({ v1: ApiVersionEntry })),
});

export const Capabilities = Type.Array(Type.String());

export const Protocols = Type.Record(Type.String(), Type.Object({ address: Type.String() }));

export const Spec = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});

export const SpecBody = Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3 document' });

export const Controller = Type.Object({
  id: Type.String(),
  name: Type.String(),
  certPem: Type.String(),
  fingerprint: Type.String(),
  isOnline: Type.Boolean(),
  lastJoinedAt: DateTime,
  ctrlAddress: Type.Union([Type.String(), Type.Null()], { description: 'the control-plane address routers dial, tls:host:port' }),
  isPreferredLeader: Type.Boolean({ description: 'false: controllers do not form a cluster yet' }),
  apiAddresses: Type.Record(Type.String(), Type.Array(Type.Object({ url: Type.String(), version: Type.String() }))),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
});
