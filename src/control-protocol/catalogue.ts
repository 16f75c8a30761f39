/**
 * svc's control protocol between a router and the controller, version 1 (docs/control-protocol.md, decision 0062):
 * the content types and header ids it adds to the channel framing (src/channel/). Every body is one JSON object
 * (bodies.ts); every reply is the channel's Result (content type 2) with ResultSuccess and, on refusal, an error
 * code header. The numbers sit in a range of their own (30000-30099) so that a peer speaking upstream's control
 * protocol (20000s) is refused by name rather than misread.
 */

/** The protocol version this build speaks; a router announces it in its Hello, the controller answers with its own. */
export const CONTROL_PROTOCOL_VERSION = 1;

/** Content types of the control protocol (besides the channel's own Hello 0, Result 2 and Heartbeat 5). */
export const ControlType = {
  /** controller -> router: the keys and CAs a router checks tokens and client certificates with (full state). */
  TrustState: 30010,
  /** controller -> router: API sessions ended, identities disabled or deleted, access changed. */
  Revocations: 30011,
  /** controller -> router: the controllers and API address the router should know. */
  Endpoints: 30012,
  /** controller -> router: the other online routers, their link listeners and certificate fingerprints (full state). */
  Peers: 30013,
  /** router -> controller (request): create a terminator. */
  CreateTerminator: 30020,
  /** router -> controller (request): update a terminator's cost or precedence. */
  UpdateTerminator: 30021,
  /** router -> controller (request): delete terminators by id. */
  DeleteTerminators: 30022,
  /** router -> controller (request): keep only these of the router's SDK-bound terminators, delete the rest (after a reconnect). */
  ReconcileTerminators: 30023,
  /** router -> controller (request): the services this router's tunneler identity may host, with their host configs (a page). */
  HostedServices: 30024,
  /** router -> controller (request): may this API session dial this service, and through which terminator. */
  DialRequest: 30030,
  /** router -> controller (request): the API session behind a legacy token, or whether a certificate belongs to a session. */
  ApiSessionCheck: 30031,
  /** router -> controller: circuits that began at this router ended (a notice). */
  CircuitsEnded: 30032,
  /** router -> controller (request): keep these circuits that began at this router, forget the others (after a reconnect). */
  ReconcileCircuits: 30033,
  /** router -> controller: legacy API sessions whose SDKs hold a channel to this router (keeps them alive). */
  ApiSessionActivity: 30040,
  /** router -> controller: identities whose first SDK channel here opened or whose last closed; the whole set after a (re)connect (a notice). */
  IdentityConnections: 30041,
  /** router -> controller: router events (state changes) for the controller's log and metrics. */
  RouterEvents: 30050,
  /** router -> controller: router metrics, a snapshot of counters. */
  RouterMetrics: 30051,
  /** router -> controller: the links this router dialed, their state and latency (full state, a notice). */
  LinkReport: 30052,
  /** router -> controller (request): an application-level ping, answered at once (the health check uses it). */
  Ping: 30060,
} as const;

export type ControlTypeName = keyof typeof ControlType;

const NAMES = new Map<number, string>([
  [0, 'Hello'],
  [1, 'Ping'],
  [2, 'Result'],
  [3, 'Latency'],
  [4, 'LatencyResponse'],
  [5, 'Heartbeat'],
  ...Object.entries(ControlType).map(([name, type]) => [type, name] as [number, string]),
]);

/** A content type's name for logs and metric labels; unknown numbers share one label so a peer cannot grow the series. */
export function controlTypeName(contentType: number): string {
  return NAMES.get(contentType) ?? 'unknown';
}

/** Header ids of the control protocol (channel headers are 0-127; upstream's edge and control ranges are avoided). */
export const ControlHeader = {
  /** u32: the control protocol version (in the Hello and its answer). */
  ProtocolVersion: 30001,
  /** string: the code of a refusal (ControlErrorCode), beside ResultSuccess = false. */
  ErrorCode: 30002,
} as const;

/** Why the controller refused a Hello or a request; the Result's body says it in a sentence. */
export const ControlErrorCode = {
  /** The client certificate names no router (never enrolled, re-enrolled, deleted, or an old certificate). */
  UnknownRouter: 'UNKNOWN_ROUTER',
  /** The router is disabled by an administrator. */
  RouterDisabled: 'ROUTER_DISABLED',
  /** The router speaks a protocol version this controller does not. */
  UnsupportedVersion: 'UNSUPPORTED_PROTOCOL_VERSION',
  /** A body or header is malformed; the sentence names the field. */
  BadMessage: 'BAD_MESSAGE',
  /** The request names something that does not exist (a service, a terminator). */
  NotFound: 'NOT_FOUND',
  /** The request is well formed but not allowed (no access, wrong session type). */
  NotAllowed: 'NOT_ALLOWED',
  /** The controller could not answer now (store unreachable); the router may retry. */
  Unavailable: 'UNAVAILABLE',
} as const;

export type ControlErrorCode = (typeof ControlErrorCode)[keyof typeof ControlErrorCode];

/** Frame limits on a control channel: bodies are JSON documents of at most this size. */
export const CONTROL_LIMITS = { maxHeaderBytes: 16_384, maxBodyBytes: 1_048_576 } as const;
