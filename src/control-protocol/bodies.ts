/**
 * The JSON bodies of the control protocol (catalogue.ts), one TypeBox schema each, and the one way to read a body off
 * the wire: strict JSON (shared/safe-json.ts: bounded nesting, no duplicate or prototype keys) checked against its
 * schema, with a refusal naming the field. Both sides use the same schemas, so the document (docs/control-protocol.md)
 * and the code cannot say different things about a field.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Type, type Static, type TSchema } from 'typebox';
import { describeJsonPath, JsonTextError, parseStrictJson } from '../shared/safe-json.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Text = (maxLength: number) => Type.String({ maxLength });
const closed = { additionalProperties: false } as const;

export const VersionInfoSchema = Type.Object(
  { version: Text(64), revision: Text(64), buildDate: Text(64), os: Text(32), arch: Text(32) },
  closed,
);

/** Router -> controller, the Hello's body. */
export const RouterHelloSchema = Type.Object(
  {
    protocol: Type.Integer({ minimum: 1 }),
    versionInfo: VersionInfoSchema,
    hostname: Text(253),
    /**
     * The router's listeners as its file advertises them: binding and `tls:host:port`. Binding `edge` is an SDK
     * listener; binding `link` a link listener (`link.listeners`), with its link groups.
     */
    listeners: Type.Array(
      Type.Object({ binding: Text(64), advertise: Text(300), groups: Type.Optional(Type.Array(Text(64), { minItems: 1, maxItems: 32 })) }, closed),
      { maxItems: 32 },
    ),
    capabilities: Type.Array(Text(64), { maxItems: 32 }),
  },
  closed,
);
export type RouterHello = Static<typeof RouterHelloSchema>;

/** Controller -> router, the body of the Hello's Result when accepted. */
export const HelloAnswerSchema = Type.Object(
  {
    protocol: Type.Integer({ minimum: 1 }),
    routerId: Id,
    routerName: Text(512),
    controllerId: Id,
    controllerName: Text(512),
  },
  closed,
);
export type HelloAnswer = Static<typeof HelloAnswerSchema>;

/** Controller -> router: what a router checks tokens and client certificates with, offline. Sent whole. */
export const TrustStateSchema = Type.Object(
  {
    /** Public JWKs of every key that signs API-session and session JWTs (OIDC signing keys), by `kid`. */
    jwks: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 64 }) }, closed),
    /** PEM certificates of the CAs client certificates may chain to: the controller's and verified third-party CAs. */
    cas: Type.Array(Type.String({ maxLength: 16_384 }), { maxItems: 1_000 }),
    /** Issuers whose tokens the router accepts: the OIDC issuers (access tokens) and the edge API origin (session tokens). */
    issuers: Type.Array(Text(2_048), { maxItems: 64 }),
  },
  closed,
);
export type TrustState = Static<typeof TrustStateSchema>;

/** Controller -> router: what stopped being valid. `committedAt` (ms since the epoch) is when the store committed it. */
export const RevocationsSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          /**
           * `api-session`: that session ended; `identity`: disabled or deleted (sessions created before `committedAt`
           * end); `access`: policies changed, decide again at the next dial; `terminator`: an SDK-bound terminator was
           * deleted (its host lost Bind access, or an administrator deleted it), so the router ends that binding.
           */
          kind: Type.Union([Type.Literal('api-session'), Type.Literal('identity'), Type.Literal('access'), Type.Literal('terminator')]),
          /** The session or identity id; `*` for `access` changes that concern many identities. */
          id: Id,
          reason: Text(200),
          committedAt: Type.Number({ minimum: 0 }),
        },
        closed,
      ),
      { maxItems: 10_000 },
    ),
  },
  closed,
);
export type Revocations = Static<typeof RevocationsSchema>;
export type Revocation = Revocations['items'][number];

/** Controller -> router: the controllers a router should know (`tls:host:port`) and the edge client API origin. */
export const EndpointsSchema = Type.Object(
  { ctrl: Type.Array(Text(300), { minItems: 1, maxItems: 64 }), api: Text(2_048) },
  closed,
);
export type Endpoints = Static<typeof EndpointsSchema>;

const Precedence = Type.Union([Type.Literal('default'), Type.Literal('required'), Type.Literal('failed')]);

/** Router -> controller: a terminator on this router (the router is the one the channel authenticated). */
export const CreateTerminatorSchema = Type.Object(
  {
    serviceId: Id,
    binding: Type.Union([Type.Literal('edge'), Type.Literal('tunnel')]),
    address: Text(1_024),
    /** The hosting identity, when an SDK bound the service: it must have Bind access. */
    hostId: Type.Optional(Id),
    instanceId: Type.Optional(Text(256)),
    cost: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
    precedence: Type.Optional(Precedence),
  },
  closed,
);
export type CreateTerminator = Static<typeof CreateTerminatorSchema>;

export const UpdateTerminatorSchema = Type.Object(
  { id: Id, cost: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })), precedence: Type.Optional(Precedence) },
  closed,
);
export type UpdateTerminator = Static<typeof UpdateTerminatorSchema>;

export const DeleteTerminatorsSchema = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 1_000 }) }, closed);
export type DeleteTerminators = Static<typeof DeleteTerminatorsSchema>;

/** The answer to a terminator create or update. */
export const TerminatorAnswerSchema = Type.Object(
  { id: Id, serviceId: Id, binding: Text(64), address: Text(1_024), cost: Type.Integer(), precedence: Precedence },
  closed,
);
export type TerminatorAnswer = Static<typeof TerminatorAnswerSchema>;

/** Router -> controller: keep these SDK-bound terminators of the router (ids it still hosts); the others are deleted. */
export const ReconcileTerminatorsSchema = Type.Object({ keep: Type.Array(Id, { maxItems: 100_000 }) }, closed);
export type ReconcileTerminators = Static<typeof ReconcileTerminatorsSchema>;
export const ReconcileAnswerSchema = Type.Object({ removed: Type.Integer({ minimum: 0 }) }, closed);
export type ReconcileAnswer = Static<typeof ReconcileAnswerSchema>;

/**
 * Router -> controller: who is behind an SDK's Hello. Either a legacy `svc-session` token (sent over the mutual-TLS
 * control channel, never logged), or an OIDC API session id whose access token did not list the client certificate in
 * `z_cfs` (an ephemeral certificate made after the token). `fingerprint` is the SHA-1 (lowercase hex) of the SDK's leaf.
 */
export const ApiSessionCheckSchema = Type.Object(
  {
    legacyToken: Type.Optional(Type.String({ minLength: 1, maxLength: 1_024 })),
    apiSessionId: Type.Optional(Id),
    fingerprint: Type.String({ pattern: '^[0-9a-f]{40}$' }),
  },
  closed,
);
export type ApiSessionCheck = Static<typeof ApiSessionCheckSchema>;
/** The answer; a token or session that names nothing (unknown, ended, expired) is refused with NOT_FOUND instead. */
export const ApiSessionCheckAnswerSchema = Type.Object(
  {
    apiSessionId: Id,
    identityId: Id,
    identityName: Text(512),
    legacy: Type.Boolean(),
    /** When the API session was created (ms since the epoch). */
    createdAt: Type.Number({ minimum: 0 }),
    /** Whether `fingerprint` is a certificate of this session: its identity's certificate authenticator or one of its ephemeral certificates. */
    certificateBound: Type.Boolean(),
  },
  closed,
);
export type ApiSessionCheckAnswer = Static<typeof ApiSessionCheckAnswerSchema>;

/**
 * Router -> controller: may the identity (of this API session, when named) dial the service now, and along which
 * path (issue 43). Exactly one of `serviceId` and `serviceName`. `exclude`: terminators not to choose (a retry after
 * one failed); `instanceId`: only terminators of that instance. A proxy-mode tunnel listener dials as the router's
 * own identity and names no API session.
 */
export const DialRequestSchema = Type.Object(
  {
    identityId: Id,
    serviceId: Type.Optional(Id),
    serviceName: Type.Optional(Text(512)),
    apiSessionId: Type.Optional(Id),
    exclude: Type.Optional(Type.Array(Id, { maxItems: 100 })),
    instanceId: Type.Optional(Text(256)),
  },
  closed,
);
export type DialRequest = Static<typeof DialRequestSchema>;

/**
 * The answer: the circuit's id, the service, the terminator chosen and the path to it. `path[0]` is the asking
 * router and the last is the terminator's; `links[i]` joins `path[i]` and `path[i + 1]` (empty when the terminator
 * is on the asking router).
 */
export const DialAnswerSchema = Type.Object(
  {
    circuitId: Id,
    serviceId: Id,
    serviceName: Text(512),
    encryptionRequired: Type.Boolean(),
    terminator: Type.Object(
      { id: Id, routerId: Id, binding: Text(64), address: Text(1_024), instanceId: Text(256) },
      closed,
    ),
    /** At most 16 routers: what a Route between routers carries (src/policy/router-paths.ts MAX_PATH_ROUTERS). */
    path: Type.Array(Id, { minItems: 1, maxItems: 16 }),
    links: Type.Array(Id, { maxItems: 15 }),
  },
  closed,
);
export type DialAnswer = Static<typeof DialAnswerSchema>;

export const ApiSessionActivitySchema = Type.Object({ apiSessionIds: Type.Array(Id, { maxItems: 10_000 }) }, closed);
export type ApiSessionActivity = Static<typeof ApiSessionActivitySchema>;

/**
 * Router -> controller: the identities with an SDK channel at this router (issue 45), as changes. `connected`: the
 * identity's first channel here opened (its API session was checked); `disconnected`: its last one here closed.
 * `reset`: the controller first forgets everything this router reported before; a router sends it after each
 * (re)connect with its whole set (a set larger than one message continues in messages without `reset`). An id may
 * not be in both lists.
 */
export const IdentityConnectionsSchema = Type.Object(
  {
    reset: Type.Optional(Type.Boolean()),
    connected: Type.Array(Id, { maxItems: 10_000 }),
    disconnected: Type.Array(Id, { maxItems: 10_000 }),
  },
  closed,
);
export type IdentityConnections = Static<typeof IdentityConnectionsSchema>;

export const RouterEventsSchema = Type.Object(
  {
    events: Type.Array(
      Type.Object(
        {
          type: Type.Union([
            Type.Literal('listener-up'),
            Type.Literal('listener-down'),
            Type.Literal('certificate-renewed'),
            Type.Literal('renewal-failed'),
            Type.Literal('health-changed'),
          ]),
          at: Type.Number({ minimum: 0 }), detail: Text(1_000) },
        closed,
      ),
      { maxItems: 100 },
    ),
  },
  closed,
);
export type RouterEvents = Static<typeof RouterEventsSchema>;

/** A snapshot of the router's counters and gauges: metric name -> value (names are the router's own, bounded). */
export const RouterMetricsSchema = Type.Object(
  { at: Type.Number({ minimum: 0 }), values: Type.Record(Type.String({ maxLength: 128 }), Type.Number(), { maxProperties: 256 }) },
  closed,
);
export type RouterMetrics = Static<typeof RouterMetricsSchema>;

/** Controller -> router: every other online router that this router may link with or be linked by (sent whole). */
export const PeersSchema = Type.Object(
  {
    routers: Type.Array(
      Type.Object(
        {
          id: Id,
          name: Text(512),
          /** SHA-1 (lowercase hex) of the router's current certificate: a link peer presenting another is refused. */
          fingerprint: Type.String({ pattern: '^[0-9a-f]{40}$' }),
          /** Its link listeners, `tls:host:port` and link groups; empty when it only dials. */
          links: Type.Array(Type.Object({ advertise: Text(300), groups: Type.Array(Text(64), { minItems: 1, maxItems: 32 }) }, closed), { maxItems: 8 }),
        },
        closed,
      ),
      { maxItems: 5_000 },
    ),
  },
  closed,
);
export type Peers = Static<typeof PeersSchema>;
export type Peer = Peers['routers'][number];

/** Router -> controller: the links this router dialed, whole (a link absent from the report is gone). */
export const LinkReportSchema = Type.Object(
  {
    links: Type.Array(
      Type.Object(
        {
          id: Id,
          /** The router at the other end (the one this router dialed). */
          peerRouterId: Id,
          /** `up`: latency probes are answered; `stalled`: the last probe was not answered in time (not used for new circuits). */
          state: Type.Union([Type.Literal('up'), Type.Literal('stalled')]),
          /** Round trip of the last answered probe, in milliseconds; null before the first. */
          latencyMs: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
          /** The address dialed, `tls:host:port`. */
          dialAddress: Text(300),
        },
        closed,
      ),
      { maxItems: 10_000 },
    ),
  },
  closed,
);
export type LinkReport = Static<typeof LinkReportSchema>;

/** Router -> controller: circuits that began at this router and ended, with why. */
export const CircuitsEndedSchema = Type.Object(
  { circuits: Type.Array(Type.Object({ id: Id, reason: Text(500) }, closed), { minItems: 1, maxItems: 10_000 }) },
  closed,
);
export type CircuitsEnded = Static<typeof CircuitsEndedSchema>;

/** Router -> controller: the circuits that began at this router and are still up; the controller forgets the others. */
export const ReconcileCircuitsSchema = Type.Object({ keep: Type.Array(Id, { maxItems: 100_000 }) }, closed);
export type ReconcileCircuits = Static<typeof ReconcileCircuitsSchema>;

/** Router -> controller: a page of the services this router's tunneler identity may host (Bind access). */
export const HostedServicesSchema = Type.Object({ after: Type.Optional(Id) }, closed);
export type HostedServicesRequest = Static<typeof HostedServicesSchema>;
/**
 * The answer: the router's identity (its id is the router's) and up to 500 services ordered by id, each with its
 * `host.v1` or `host.v2` config (the config's data as stored). Services with neither config are left out: there is
 * nothing to host. `next`: ask again with `after` = this id for the next page. Refused with NOT_ALLOWED when the
 * router is not tunneler-enabled.
 */
export const HostedServicesAnswerSchema = Type.Object(
  {
    identityId: Id,
    services: Type.Array(
      Type.Object(
        {
          id: Id,
          name: Text(512),
          encryptionRequired: Type.Boolean(),
          configType: Type.Union([Type.Literal('host.v1'), Type.Literal('host.v2')]),
          config: Type.Record(Type.String(), Type.Unknown()),
        },
        closed,
      ),
      { maxItems: 500 },
    ),
    next: Type.Optional(Id),
  },
  closed,
);
export type HostedServicesAnswer = Static<typeof HostedServicesAnswerSchema>;
export type HostedService = HostedServicesAnswer['services'][number];

export const EmptySchema = Type.Object({}, closed);

/** A body that failed to parse or validate; `message` names the field. */
export class ControlBodyError extends Error {
  override readonly name = 'ControlBodyError';
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new WeakMap<TSchema, ValidateFunction>();

/**
 * Reads a control body: strict JSON, at most 32 levels deep, valid against `schema`. Throws ControlBodyError naming
 * what is wrong (`body.listeners[0].advertise: must NOT have more than 300 characters`).
 *
 * @example const hello = readBody(RouterHelloSchema, message.body, 'Hello');
 */
export function readBody<S extends TSchema>(schema: S, body: Buffer, what: string): Static<S> {
  let value: unknown;
  try {
    value = parseStrictJson(body.toString('utf8'), { maxDepth: 32 });
  } catch (error) {
    const where = error instanceof JsonTextError ? describeJsonPath(error.path) : '';
    throw new ControlBodyError(`${what}: the body is not valid JSON${where ? ` at ${where}` : ''}: ${(error as Error).message}`);
  }
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(value)) {
    const first = validate.errors?.[0];
    const path = first ? `body${first.instancePath.replaceAll('/', '.')}` : 'body';
    const extra = first?.keyword === 'additionalProperties' ? ` (${String((first.params as { additionalProperty?: string }).additionalProperty)})` : '';
    throw new ControlBodyError(`${what}: ${path} ${first?.message ?? 'is invalid'}${extra}`);
  }
  return value as Static<S>;
}

/** A body's bytes. */
export function writeBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
