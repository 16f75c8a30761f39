/**
 * The shape of the router configuration file as one TypeBox schema, following the spec section "Router
 * configuration file (YAML)" key by key: types, required keys, defaults and every integer bound. It is plain
 * JSON Schema underneath, so the same definition is published for editors (json-schema.ts). What JSON Schema
 * cannot say readably (address syntax, durations, CIDRs, SAN values, tunnel modes, either-or keys) is checked
 * in rules/.
 */
import { Type } from 'typebox';
import type { Static, TProperties, TSchema } from 'typebox';
import { IdentitySchema as ControllerIdentitySchema, WebListenerSchema } from '../config/schema.js';

/** Defaults written into the file's value by the schema check; the single place they are spelled. */
export const ROUTER_DEFAULTS = {
  defaultRequestTimeout: '5s',
  forwarder: {
    faultTxInterval: 15000,
    idleCircuitTimeout: 60000,
    idleTxInterval: 60000,
    linkDialQueueLength: 1000,
    linkDialWorkerCount: 32,
    rateLimitedQueueLength: 5000,
    rateLimitedWorkerCount: 5,
    xgressCloseCheckInterval: 5000,
    xgressDialDwellTime: 0,
    xgressDialQueueLength: 1000,
    xgressDialWorkerCount: 128,
  },
  ctrlPingCheck: { interval: '30s', timeout: '15s', initialDelay: '15s' },
  linkCheck: { interval: '5s', initialDelay: '1s', minLinks: 0 },
  groups: ['default'],
  split: true,
  healthyDialBackoff: { minRetryInterval: '5s', maxRetryInterval: '5m', retryBackoffFactor: 1.5 },
  unhealthyDialBackoff: { minRetryInterval: '1m', maxRetryInterval: '1h', retryBackoffFactor: 10 },
  metrics: { reportInterval: '1m', messageQueueSize: 10, intervalAgeThreshold: '80s' },
  memoryIntervalMs: 15000,
  tunnelMode: 'host',
  heartbeats: { sendInterval: '10s', checkInterval: '1s', closeUnresponsiveTimeout: '30s' },
  ctrlOptions: { connectTimeout: '10s', reconnect: { minRetryInterval: '1s', maxRetryInterval: '1m', retryBackoffFactor: 2 } },
  endpointsFile: 'endpoints.yml',
  keyType: 'ec-p256',
  renewal: { lifetimeShare: 0.8, minRetryInterval: '10s', maxRetryInterval: '10m' },
} as const;

/** Key types `svc router enroll` generates (`csr.keyType`); the controller accepts EC P-256/P-384 and RSA >= 2048. */
export const KEY_TYPES = ['ec-p256', 'ec-p384', 'rsa-2048', 'rsa-3072', 'rsa-4096'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** Bounds of `identity.renewal.lifetimeShare`: never at issue time, never at the last moment. */
export const LIFETIME_SHARE_BOUNDS = { minimum: 0.1, maximum: 0.95 } as const;

/** Spec bounds of the backoff objects of link dialers. */
export const BACKOFF_BOUNDS = { minIntervalMs: 10, maxIntervalMs: 24 * 3_600_000, minFactor: 1, maxFactor: 100 } as const;

export const DIALER_BINDINGS = ['proxy', 'proxy_udp', 'transport', 'transport_udp'] as const;
export const TUNNEL_MODES = ['host', 'tproxy', 'proxy'] as const;
/** The listener binding that intercepts and hosts services itself: nothing dials it, so it has no address. */
export const TUNNEL_BINDING = 'tunnel';

const closed = { additionalProperties: false } as const;

/** An optional section that is always present afterwards: its default is the object its own defaults make. */
function section<P extends TProperties>(properties: P, description?: string) {
  const defaults: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if ('default' in schema) defaults[key] = (schema as { default: unknown }).default;
  }
  return Type.Optional(Type.Object(properties, { ...closed, default: defaults, ...(description ? { description } : {}) }));
}

const Text = (description?: string) => Type.String({ minLength: 1, ...(description ? { description } : {}) });
const Address = (description = 'Address <protocol>:<host>:<port>; protocols tls, dtls, tcp, ws, wss, udp') => Text(description);
const ListenAddress = () => Type.Optional(Address('Listen address <protocol>:<host>:<port>; bind or address is required except for binding tunnel'));
const LinkAdvertise = Text('Advertised <host>:<port> other routers dial; tls:<host>:<port> is read the same (links are TLS)');
const Duration = (fallback?: string) =>
  Type.Optional(
    Type.String({ minLength: 1, description: 'Duration such as 500ms, 30s, 5m or 1h30m', ...(fallback === undefined ? {} : { default: fallback }) }),
  );
const Millis = (fallback: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, default: fallback, description: `${description} (milliseconds)` }));
const Bounded = (fallback: number, maximum: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum, default: fallback, description }));
/** Free-form options whose names the spec does not list. */
const Options = Type.Optional(Type.Record(Type.String(), Type.Unknown()));
const Groups = Type.Optional(Type.Array(Text(), { minItems: 1, default: [...ROUTER_DEFAULTS.groups], description: 'Link groups' }));

const R = ROUTER_DEFAULTS.renewal;
/** When and how often the running router renews its certificates (POST /enroll/extend/router, decision 0063). */
const RenewalSchema = section(
  {
    lifetimeShare: Type.Optional(
      Type.Number({
        ...LIFETIME_SHARE_BOUNDS,
        default: R.lifetimeShare,
        description: 'Share of the certificate lifetime after which the router renews (0.8: at 80 % of the earlier-expiring certificate)',
      }),
    ),
    minRetryInterval: Duration(R.minRetryInterval),
    maxRetryInterval: Duration(R.maxRetryInterval),
  },
  'Certificate renewal: when it starts, and the backoff between failed attempts (doubling from minRetryInterval up to maxRetryInterval)',
);

/** Router identity: the controller's keys plus alternate server certificates for SNI, and the renewal schedule. */
export const RouterIdentitySchema = Type.Object(
  {
    ...ControllerIdentitySchema.properties,
    alt_server_certs: Type.Optional(
      Type.Array(Type.Object({ server_cert: Text('File path or pem:/engine URL'), server_key: Type.Optional(Text()) }, closed)),
    ),
    renewal: RenewalSchema,
  },
  closed,
);


const SansSchema = Type.Object(
  {
    dns: Type.Optional(Type.Array(Text())),
    ip: Type.Optional(Type.Array(Text())),
    uri: Type.Optional(Type.Array(Text())),
    email: Type.Optional(Type.Array(Text())),
  },
  closed,
);

export const CsrSchema = Type.Object(
  {
    country: Type.Optional(Type.String()),
    province: Type.Optional(Type.String()),
    locality: Type.Optional(Type.String()),
    organization: Type.Optional(Type.String()),
    organizationalUnit: Type.Optional(Type.String()),
    keyType: Type.Optional(
      Type.Enum([...KEY_TYPES], {
        default: ROUTER_DEFAULTS.keyType,
        description: `Key svc router enroll generates for both certificates: ${KEY_TYPES.join(', ')}; an existing identity.key of this type is kept`,
      }),
    ),
    sans: Type.Optional(SansSchema),
  },
  closed,
);

const DialerSchema = Type.Object({ binding: Type.Enum([...DIALER_BINDINGS]), options: Options }, closed);

const EdgeSchema = Type.Object({ csr: Type.Optional(CsrSchema) }, { ...closed, description: 'Present (may be {}) to enable edge functionality' });

const F = ROUTER_DEFAULTS.forwarder;
const ForwarderSchema = section({
  faultTxInterval: Millis(F.faultTxInterval, 'Wait between checks for faulted circuits; 0 disables'),
  idleCircuitTimeout: Millis(F.idleCircuitTimeout, 'Wait before marking a circuit idle'),
  idleTxInterval: Millis(F.idleTxInterval, 'Wait between checks confirming idle circuits; 0 disables'),
  linkDialQueueLength: Bounded(F.linkDialQueueLength, 10000, 'Max queued outgoing link dials'),
  linkDialWorkerCount: Bounded(F.linkDialWorkerCount, 10000, 'Link dial workers'),
  rateLimitedQueueLength: Bounded(F.rateLimitedQueueLength, 50000, 'Max rate limited controller operations'),
  rateLimitedWorkerCount: Bounded(F.rateLimitedWorkerCount, 10000, 'Rate limited operation workers'),
  xgressCloseCheckInterval: Millis(F.xgressCloseCheckInterval, 'Wait before un-routing an idle circuit'),
  xgressDialDwellTime: Millis(F.xgressDialDwellTime, 'Wait before dialing a service for egress'),
  xgressDialQueueLength: Bounded(F.xgressDialQueueLength, 10000, 'Max queued egress dials'),
  xgressDialWorkerCount: Bounded(F.xgressDialWorkerCount, 10000, 'Egress dial workers'),
  latencyProbeInterval: Type.Optional(Type.Integer({ minimum: 0, description: 'Link latency probe interval (milliseconds)' })),
});

const P = ROUTER_DEFAULTS.ctrlPingCheck;
const L = ROUTER_DEFAULTS.linkCheck;
const HealthChecksSchema = section({
  ctrlPingCheck: section({ interval: Duration(P.interval), timeout: Duration(P.timeout), initialDelay: Duration(P.initialDelay) }),
  linkCheck: section({
    interval: Duration(L.interval),
    initialDelay: Duration(L.initialDelay),
    minLinks: Type.Optional(Type.Integer({ minimum: 0, default: L.minLinks, description: 'Minimum links before the check fails' })),
  }),
});

const Backoff = (fallback: { minRetryInterval: string; maxRetryInterval: string; retryBackoffFactor: number }) =>
  section({
    minRetryInterval: Duration(fallback.minRetryInterval),
    maxRetryInterval: Duration(fallback.maxRetryInterval),
    retryBackoffFactor: Type.Optional(
      Type.Number({ minimum: BACKOFF_BOUNDS.minFactor, maximum: BACKOFF_BOUNDS.maxFactor, default: fallback.retryBackoffFactor }),
    ),
  });

const H = ROUTER_DEFAULTS.heartbeats;
const HeartbeatsSchema = section(
  {
    sendInterval: Duration(H.sendInterval),
    checkInterval: Duration(H.checkInterval),
    closeUnresponsiveTimeout: Duration(H.closeUnresponsiveTimeout),
  },
  'Control channel heartbeats: how often one is sent, how often the channel is checked, and how long an unanswered channel is kept',
);

const C = ROUTER_DEFAULTS.ctrlOptions;
/**
 * Open on purpose: router files written for the reference router carry channel options of its own (e.g.
 * maxQueuedConnects); rules/ctrl.ts warns about each one svc does not use rather than refusing the file.
 */
const CtrlOptionsSchema = Type.Optional(
  Type.Object(
    {
      connectTimeout: Duration(C.connectTimeout),
      reconnect: Backoff(C.reconnect),
    },
    {
      default: { connectTimeout: C.connectTimeout, reconnect: { ...C.reconnect } },
      description: 'Control channel options: connectTimeout (dial + TLS + hello) and the reconnect backoff',
    },
  ),
);

const CtrlSchema = Type.Object(
  {
    endpoint: Type.Optional(Address('Controller address <protocol>:<host>:<port>; either endpoint or endpoints is required')),
    endpoints: Type.Optional(Type.Array(Address(), { minItems: 1, description: 'Controller addresses; ignored when endpoint is given' })),
    bind: Type.Optional(Text('Local interface name or IP used to dial the controller')),
    defaultRequestTimeout: Duration(ROUTER_DEFAULTS.defaultRequestTimeout),
    heartbeats: HeartbeatsSchema,
    options: CtrlOptionsSchema,
    endpointsFile: Type.Optional(
      Type.String({
        minLength: 1,
        default: ROUTER_DEFAULTS.endpointsFile,
        description: 'File where the router keeps the controller addresses it learns; relative paths start at the config file folder',
      }),
    ),
  },
  closed,
);

const LinkListenerSchema = Type.Object(
  { binding: Type.Literal('transport'), bind: Address(), advertise: LinkAdvertise, groups: Groups, options: Options },
  closed,
);

const LinkDialerSchema = Type.Object(
  {
    binding: Type.Literal('transport'),
    split: Type.Optional(Type.Boolean({ default: ROUTER_DEFAULTS.split, description: 'Separate connections for payloads and acks' })),
    bind: Type.Optional(Text('Local interface name or IP')),
    groups: Groups,
    options: Options,
    healthyDialBackoff: Backoff(ROUTER_DEFAULTS.healthyDialBackoff),
    unhealthyDialBackoff: Backoff(ROUTER_DEFAULTS.unhealthyDialBackoff),
  },
  closed,
);

const LinkSchema = Type.Object(
  { listeners: Type.Optional(Type.Array(LinkListenerSchema)), dialers: Type.Optional(Type.Array(LinkDialerSchema)) },
  closed,
);

/**
 * `options` is only known to be a mapping here; the tunnel binding's options are checked in rules/listeners.ts.
 * Which of bind, address and advertise are required depends on the binding, so rules/listeners.ts says that too.
 */
const ListenerSchema = Type.Object(
  {
    binding: Text('Xgress component name, e.g. edge, tunnel'),
    bind: ListenAddress(),
    address: ListenAddress(),
    advertise: Type.Optional(Text('Advertised <host>:<port> (no protocol); required except for binding tunnel')),
    options: Options,
  },
  closed,
);

/** The binding of the SDK edge listener. */
export const EDGE_BINDING = 'edge';

/**
 * Options of a `binding: edge` listener (svc's own; decision 0066). Open: upstream's keys (`connectTimeoutMs`,
 * `getSessionTimeout`…) are accepted and reported as ignored rather than refused, so an upstream file still loads.
 */
export const EdgeOptionsSchema = Type.Object({
  /** Default 10s. */
  handshakeTimeout: Duration(),
  /** Upstream's name for the same time, in milliseconds; `handshakeTimeout` wins when both are given. */
  connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Default 5s. */
  dialTimeout: Duration(),
  /** Defaults 50,000 / 200,000 / 4,096 / 256 (src/router/edge/edge-listener.ts DEFAULT_EDGE_LIMITS). */
  maxChannels: Type.Optional(Type.Integer({ minimum: 1 })),
  maxConnections: Type.Optional(Type.Integer({ minimum: 1 })),
  maxConnectionsPerChannel: Type.Optional(Type.Integer({ minimum: 1 })),
  maxBindingsPerChannel: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type EdgeOptionsFile = Static<typeof EdgeOptionsSchema>;

/** Options of a `binding: tunnel` listener. */
export const TunnelOptionsSchema = Type.Object(
  {
    mode: Type.Optional(Type.Enum([...TUNNEL_MODES], { default: ROUTER_DEFAULTS.tunnelMode })),
    resolver: Type.Optional(Text('DNS resolver address, e.g. udp:127.0.0.1:53 (mode tproxy)')),
    dnsSvcIpRange: Type.Optional(Text('CIDR for service addresses (mode tproxy)')),
    services: Type.Optional(Type.Array(Text('service:port'), { minItems: 1 })),
  },
  closed,
);

const M = ROUTER_DEFAULTS.metrics;
const MetricsSchema = section({
  reportInterval: Duration(M.reportInterval),
  messageQueueSize: Type.Optional(Type.Integer({ minimum: 1, default: M.messageQueueSize })),
  intervalAgeThreshold: Duration(M.intervalAgeThreshold),
});

const TraceSchema = Type.Object({ path: Text('File for decoded messages (debugging only)') }, closed);

const TransportSchema = Type.Object(
  {
    westworld3: Type.Optional(
      Type.Object(
        {
          profile_version: Type.Optional(Type.Integer({ minimum: 1 })),
          tx_portal_min_sz: Type.Optional(Type.Integer({ minimum: 1 })),
          tx_portal_max_sz: Type.Optional(Type.Integer({ minimum: 1 })),
          instrument: Type.Optional(
            Type.Object(
              {
                name: Type.Optional(Text()),
                path: Type.Optional(Text()),
                snapshot_ms: Type.Optional(Type.Integer({ minimum: 1 })),
                enabled: Type.Optional(Type.Boolean()),
              },
              closed,
            ),
          ),
        },
        closed,
      ),
    ),
  },
  closed,
);

const ProfileSchema = Type.Object(
  {
    cpu: Type.Optional(Type.Object({ path: Text() }, closed)),
    memory: Type.Optional(
      Type.Object(
        { path: Text(), intervalMs: Type.Optional(Type.Integer({ minimum: 1, default: ROUTER_DEFAULTS.memoryIntervalMs })) },
        closed,
      ),
    ),
  },
  closed,
);

const sections = {
  v: Type.Literal(3, { description: 'Configuration version; only 3 is supported' }),
  identity: RouterIdentitySchema,
  ctrl: CtrlSchema,
  csr: Type.Optional(CsrSchema),
  dialers: Type.Optional(Type.Array(DialerSchema)),
  edge: Type.Optional(EdgeSchema),
  forwarder: ForwarderSchema,
  healthChecks: HealthChecksSchema,
  link: Type.Optional(LinkSchema),
  listeners: Type.Optional(Type.Array(ListenerSchema)),
  metrics: MetricsSchema,
  trace: Type.Optional(TraceSchema),
  transport: Type.Optional(TransportSchema),
  profile: Type.Optional(ProfileSchema),
  web: Type.Optional(Type.Array(WebListenerSchema)),
} satisfies Record<string, TSchema>;

/** The whole router configuration file. */
export const RouterFileSchema = Type.Object(sections, closed);

export type RouterFile = Static<typeof RouterFileSchema>;
export type CsrFile = Static<typeof CsrSchema>;
export type TunnelOptionsFile = Static<typeof TunnelOptionsSchema>;
export type LinkDialerFile = Static<typeof LinkDialerSchema>;
export type CtrlFile = Static<typeof CtrlSchema>;
export type ListenerEntryFile = Static<typeof ListenerSchema>;
