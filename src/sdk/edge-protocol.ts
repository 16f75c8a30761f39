/**
 * The numbers of the SDK edge protocol the SDK speaks to routers (reference/edge-router-protocol-facts.md §3): the
 * content types and header ids exactly as the public C SDK sends them, so a router cannot tell this SDK from it.
 */

/** The ALPN protocol offered on a router's edge listener. */
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
  ConnInspectRequest: 60798,
  ConnInspectResponse: 60799,
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
  CallerId: 1008,
  CryptoMethod: 1009,
  Flags: 1010,
  AppData: 1011,
  RouterProvidedConnId: 1012,
  ListenerId: 1021,
  ConnType: 1022,
  SupportsInspect: 1023,
  ConnectionMarker: 1025,
  CircuitId: 1026,
  DialerIdentityId: 1034,
  DialerIdentityName: 1035,
} as const;

/** Flags (header 1010) on Data. */
export const EdgeFlag = { FIN: 1 } as const;

/** The body of a refusal that means "fetch a new session and try again". */
export const INVALID_SESSION = 'Invalid Session';

/** The crypto method string the C SDK sends in header 1009. */
export const CRYPTO_LIBSODIUM = 'libsodium';

/** Precedence byte (header 1005). */
export const PRECEDENCE_BYTE = { default: 0, required: 1, failed: 2 } as const;
