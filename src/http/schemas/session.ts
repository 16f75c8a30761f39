/**
 * Wire schemas of the client API's sessions and of what a client reads about a service (reference `sessionCreate`,
 * `sessionDetail`, `sessionEdgeRouter`, `serviceEdgeRouters`, `terminatorClientDetail`; docs/decisions/0031): the
 * create body, the session view with its token and edge routers, the `session-token` header of a service's edge
 * routers, and the client's view of a terminator.
 */
import { Type } from 'typebox';
import { SERVICE_POLICY_TYPES } from '../../domain/policy.js';
import { DateTime, Links, ListMeta } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const EntityRef = Type.Object({ id: Type.String(), name: Type.String(), entity: Type.String(), _links: Links });

/**
 * `POST /sessions`. The reference's enum also lists `Invalid`, which no policy grants; it is refused here with any
 * other value outside Dial and Bind. Absent, the type is Dial (as the reference controller defaults it).
 */
export const SessionCreateBody = Type.Object(
  {
    serviceId: Type.String({ minLength: 1, maxLength: 255, description: 'the service to dial or bind' }),
    type: Type.Optional(Type.Union(SERVICE_POLICY_TYPES.map((type) => Type.Literal(type)), { description: 'Dial (default) or Bind' })),
    tags: Type.Optional(Type.Union([Tags, Type.Null()])),
  },
  closed,
);

/**
 * An edge router as a session names it (reference sessionEdgeRouter: commonEdgeRouterProperties plus `urls`, the same
 * protocol -> address map as `supportedProtocols`, which older SDKs read). `id` is ours: the reference leaves it out.
 */
export const SessionEdgeRouterView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hostname: Type.String(),
  isOnline: Type.Boolean({ description: 'true while the router\'s control channel is up at a live controller' }),
  supportedProtocols: Type.Record(Type.String(), Type.String(), { description: 'protocol -> address the router advertised, e.g. tls -> tls://host:3022' }),
  urls: Type.Record(Type.String(), Type.String(), { description: 'the same as supportedProtocols' }),
  syncStatus: Type.String(),
  cost: Type.Integer(),
  noTraversal: Type.Boolean(),
  disabled: Type.Boolean(),
});

/** What every view of a session says: which service, how, and whose. */
const sessionProperties = {
  id: Type.String(),
  type: Type.String({ description: 'Dial or Bind' }),
  serviceId: Type.String(),
  service: EntityRef,
  apiSessionId: Type.String(),
  apiSession: EntityRef,
  identityId: Type.String(),
};

/** A session (reference sessionDetail): its service, API session and identity, its token and its edge routers. */
export const SessionView = Type.Object({
  ...sessionProperties,
  token: Type.String({ description: "a JWT signed with the controller's key (its JWKS is /oidc/keys); read the session again for a fresh one" }),
  edgeRouters: Type.Array(SessionEdgeRouterView),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/** The optional header of `GET /services/{id}/edge-routers`. */
export const SessionTokenHeader = Type.Object({
  'session-token': Type.Optional(Type.String({ maxLength: 8192, description: 'a session token of this service; when given it must be valid, else 401' })),
});

/** `{data: {edgeRouters: [...]}, meta}` (reference serviceEdgeRouters), with the list's pagination in `meta`. */
export const ServiceEdgeRoutersEnvelope = Type.Object({
  data: Type.Object({ edgeRouters: Type.Array(SessionEdgeRouterView) }),
  meta: ListMeta,
});

/** A terminator as a client reads it (reference terminatorClientDetail): no address, binding or secret. */
export const ClientTerminatorView = Type.Object({
  id: Type.String(),
  serviceId: Type.String(),
  service: EntityRef,
  routerId: Type.String(),
  identity: Type.String({ description: 'the instance id a hosting SDK gave; empty when none' }),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/**
 * A session as the Management API lists it (reference managementSessionDetail, without the token, which an
 * administrator does not hold): whose it is, which service and how, named beside the ids.
 */
export const ManagementSessionView = Type.Object({
  ...sessionProperties,
  identity: EntityRef,
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
