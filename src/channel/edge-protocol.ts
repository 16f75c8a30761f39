/**
 * The numbers of the SDK edge protocol (reference/edge-router-protocol-facts.md §3), shared by the router's edge
 * listener and svc's SDK: the content types and header ids the public SDKs put on a router's edge listener, and the
 * error codes a refusal carries. They are the SDKs' own protocol, so their values (and the `ziti-edge` ALPN) are kept
 * exactly as the SDKs send them.
 */

/** The ALPN protocol the public SDKs offer on a router's edge listener (since C SDK 1.1.0). */
export const EDGE_ALPN = 'ziti-edge';

export const EdgeType = {
  Connect: 60783,
  StateConnected: 60784,
  StateClosed: 60785,
  Data: 60786,
  Dial: 60787,
  DialSuccess: 60788,
  DialFailed: 60789,
  Bind: 60790,
  Unbind: 60791,
  StateSessionEnded: 60792,
  Probe: 60793,
  UpdateBind: 60794,
  HealthEvent: 60795,
  TraceRoute: 60796,
  TraceRouteResponse: 60797,
  ConnInspectRequest: 60798,
  ConnInspectResponse: 60799,
  BindSuccess: 60800,
  UpdateTokenSuccess: 60801,
  UpdateTokenFailure: 60802,
  UpdateToken: 60803,
} as const;

export const EdgeHeader = {
  UUID: 128,
  ConnId: 1000,
  Seq: 1001,
  SessionToken: 1002,
  PublicKey: 1003,
  Cost: 1004,
  Precedence: 1005,
  TerminatorIdentity: 1006,
  TerminatorIdentitySecret: 1007,
  CallerId: 1008,
  CryptoMethod: 1009,
  Flags: 1010,
  AppData: 1011,
  RouterProvidedConnId: 1012,
  HealthStatus: 1013,
  ErrorCode: 1014,
  ListenerId: 1021,
  ConnType: 1022,
  SupportsInspect: 1023,
  SupportsBindSuccess: 1024,
  ConnectionMarker: 1025,
  CircuitId: 1026,
  StickinessToken: 1027,
  StructuredError: 1033,
  DialerIdentityId: 1034,
  DialerIdentityName: 1035,
} as const;

/** Flags (header 1010) on Data. */
export const EdgeFlag = { FIN: 1, TRACE_UUID: 2, MULTIPART: 4, STREAM: 8, MULTIPART_MSG: 16 } as const;

/** Error codes (header 1014, and `code` in the StructuredError JSON). */
export const EdgeError = {
  Internal: 1,
  InvalidApiSession: 2,
  InvalidSession: 3,
  WrongSessionType: 4,
  InvalidEdgeRouterForSession: 5,
  InvalidService: 6,
  TunnelingNotEnabled: 7,
  InvalidTerminator: 8,
  InvalidPrecedence: 9,
  InvalidCost: 10,
  EncryptionDataMissing: 11,
  InvalidApiSessionType: 12,
  InvalidInstanceId: 13,
  AccessDenied: 14,
  PostureCheckFailed: 15,
} as const;
export type EdgeErrorCode = (typeof EdgeError)[keyof typeof EdgeError];

/**
 * The exact body that makes the C SDK drop its cached session, fetch a new one and dial again (it compares the body
 * with this text); any other reason fails the dial.
 */
export const INVALID_SESSION = 'Invalid Session';

/** Precedence byte (header 1005) as the SDKs send it, by byte and by name. */
export const PRECEDENCE_BY_BYTE = ['default', 'required', 'failed'] as const;
export const PRECEDENCE_BYTE = { default: 0, required: 1, failed: 2 } as const;

/** The crypto method string the C SDK sends in header 1009 (the router does not relay it; decision 0066). */
export const CRYPTO_LIBSODIUM = 'libsodium';
