/**
 * The shape of the controller configuration file as a TypeBox schema: keys, types, required keys and
 * defaults. It is plain JSON Schema underneath, so the same definition can be published for editors.
 * What JSON Schema cannot say well (host:port syntax, durations, binding names and their options,
 * cross-listener rules) is checked in the rule files beside this one.
 */
import { Type } from 'typebox';
import type { Static, TProperties } from 'typebox';

/** Defaults written into the file's value by the schema check; the single place they are spelled. */
export const DEFAULTS = {
  sessionTimeout: '30m',
  disableOidcAutoBinding: false,
  enrollmentDuration: '180m',
  allowRouterLocalNames: false,
  accessTokenDuration: '30m',
  idTokenDuration: '30m',
  refreshTokenDuration: '24h',
  idleTimeout: '5s',
  readTimeout: '5s',
  writeTimeout: '10s',
  handshakeTimeout: '10s',
  headerTimeout: '10s',
  requestTimeout: '30s',
  maxConnections: 10_000,
  maxConnectionsPerClient: 256,
  minTLSVersion: 'TLS1.2',
  maxTLSVersion: 'TLS1.3',
  allowHttpJwks: false,
  refusePrivateAddresses: false,
  jwksTimeout: '5s',
  jwksMaxBytes: 262_144,
  jwksMaxRedirects: 5,
  jwksRefreshInterval: '30s',
  totpMaxAttempts: 5,
  authQueueConcurrency: 8,
  authQueueMaxQueued: 256,
  authQueueMaxWait: '10s',
  totpLockoutDuration: '5m',
} as const;

const closed = { additionalProperties: false } as const;

/** An optional section whose default is the object its own property defaults make, so it is always present. */
function section<P extends TProperties>(properties: P) {
  const defaults: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if ('default' in schema) defaults[key] = (schema as { default: unknown }).default;
  }
  return Type.Optional(Type.Object(properties, { ...closed, default: defaults }));
}

const FilePath = Type.String({ minLength: 1, description: 'File path; relative paths start at the config file folder' });
const Duration = (fallback: string) =>
  Type.Optional(Type.String({ minLength: 1, default: fallback, description: 'Duration such as 30s, 5m or 1h30m' }));
const HostPort = Type.String({ minLength: 1, description: 'host:port; IPv6 hosts in brackets' });
const TlsVersion = (fallback: string) => Type.Optional(Type.Enum(['TLS1.2', 'TLS1.3'], { default: fallback }));

export const IdentitySchema = Type.Object(
  { cert: FilePath, server_cert: FilePath, key: FilePath, ca: FilePath, server_key: Type.Optional(FilePath) },
  closed,
);

const EdgeSchema = Type.Object(
  {
    api: Type.Object(
      {
        address: HostPort,
        sessionTimeout: Duration(DEFAULTS.sessionTimeout),
        disableOidcAutoBinding: Type.Optional(Type.Boolean({ default: DEFAULTS.disableOidcAutoBinding })),
        /** Bounds on concurrent login work (password hashing, certificate and JWT checks); beyond them, 429. */
        authQueue: section({
          concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULTS.authQueueConcurrency, description: 'logins checked at once' })),
          maxQueued: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: DEFAULTS.authQueueMaxQueued, description: 'logins waiting for a turn before new ones get 429' })),
          maxWait: Duration(DEFAULTS.authQueueMaxWait),
        }),
      },
      closed,
    ),
    enrollment: Type.Object(
      {
        signingCert: Type.Object({ cert: FilePath, key: FilePath, ca: Type.Optional(FilePath) }, closed),
        edgeIdentity: section({ duration: Duration(DEFAULTS.enrollmentDuration) }),
        edgeRouter: section({
          duration: Duration(DEFAULTS.enrollmentDuration),
          /** Off except in quickstart's config: a router on the controller's machine (decision 0056). */
          allowLocalNames: Type.Optional(
            Type.Boolean({
              default: DEFAULTS.allowRouterLocalNames,
              description: "let routers' server certificates name loopback addresses and this controller's own host names",
            }),
          ),
        }),
      },
      closed,
    ),
    oidc: section({
      accessTokenDuration: Duration(DEFAULTS.accessTokenDuration),
      idTokenDuration: Duration(DEFAULTS.idTokenDuration),
      refreshTokenDuration: Duration(DEFAULTS.refreshTokenDuration),
    }),
    totp: Type.Optional(
      Type.Object(
        {
          hostname: Type.Optional(Type.String({ minLength: 1 })),
          /** File holding the 32-byte key that seals TOTP secrets and recovery codes at rest (base64 or hex). */
          encryptionKeyFile: Type.Optional(FilePath),
          /** Wrong codes in a row before TOTP checks lock. */
          maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: DEFAULTS.totpMaxAttempts })),
          /** How long TOTP checks stay locked. */
          lockoutDuration: Duration(DEFAULTS.totpLockoutDuration),
        },
        closed,
      ),
    ),
    /** How the keys of external JWT signers are fetched (src/services/external-jwt/jwks-fetcher.ts). */
    externalJwt: section({
      allowHttpJwks: Type.Optional(Type.Boolean({ default: DEFAULTS.allowHttpJwks, description: 'accept plain http:// JWKS endpoints' })),
      refusePrivateAddresses: Type.Optional(
        Type.Boolean({ default: DEFAULTS.refusePrivateAddresses, description: 'refuse JWKS endpoints on loopback and private addresses' }),
      ),
      jwksTimeout: Duration(DEFAULTS.jwksTimeout),
      jwksMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 16_777_216, default: DEFAULTS.jwksMaxBytes, description: 'largest JWKS body accepted' })),
      jwksMaxRedirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: DEFAULTS.jwksMaxRedirects })),
      jwksRefreshInterval: Duration(DEFAULTS.jwksRefreshInterval),
    }),
  },
  closed,
);

const BindPointSchema = Type.Object({ interface: HostPort, address: HostPort }, closed);

/** `options` is only known to be a mapping here; its keys depend on `binding` (see binding-rules.ts). */
const ApiSchema = Type.Object(
  { binding: Type.String({ minLength: 1 }), options: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  closed,
);

const ListenerSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    bindPoints: Type.Array(BindPointSchema, { minItems: 1 }),
    apis: Type.Array(ApiSchema, { minItems: 1 }),
    identity: Type.Optional(IdentitySchema),
    options: section({
      idleTimeout: Duration(DEFAULTS.idleTimeout),
      readTimeout: Duration(DEFAULTS.readTimeout),
      writeTimeout: Duration(DEFAULTS.writeTimeout),
      /** A connection must finish its TLS handshake within this. */
      handshakeTimeout: Duration(DEFAULTS.handshakeTimeout),
      /** A request's headers must arrive whole within this. */
      headerTimeout: Duration(DEFAULTS.headerTimeout),
      /** A whole request, headers and body, must arrive within this. */
      requestTimeout: Duration(DEFAULTS.requestTimeout),
      maxConnections: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1_000_000, default: DEFAULTS.maxConnections, description: 'open connections per bind point; more are closed at once' }),
      ),
      maxConnectionsPerClient: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1_000_000, default: DEFAULTS.maxConnectionsPerClient, description: 'open connections per client address per bind point' }),
      ),
      minTLSVersion: TlsVersion(DEFAULTS.minTLSVersion),
      maxTLSVersion: TlsVersion(DEFAULTS.maxTLSVersion),
    }),
  },
  closed,
);

/** The control-plane listener routers connect to (decision 0065); its address rules are in ctrl-rules.ts. */
const CtrlSchema = Type.Object(
  {
    listener: Type.String({ minLength: 1, description: 'Where routers connect: tls:<host>:<port>, e.g. tls:0.0.0.0:6262' }),
    advertise: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'host:port routers are told to use; default the listener host:port, or the edge API host when the listener binds all interfaces',
      }),
    ),
  },
  closed,
);

/** The whole controller configuration file. */
export const ControllerFileSchema = Type.Object(
  {
    v: Type.Optional(Type.Literal(3)),
    db: Type.String({ minLength: 1, description: 'postgres:// URL or SQLite file path' }),
    identity: IdentitySchema,
    ctrl: Type.Optional(CtrlSchema),
    edge: Type.Optional(EdgeSchema),
    web: Type.Array(ListenerSchema, { minItems: 1 }),
  },
  closed,
);

/** Options of the `edge-client`, `edge-management` and `metrics` bindings: none. */
export const NoOptionsSchema = Type.Object({}, closed);

/** Options of the `edge-oidc` binding. */
export const EdgeOidcOptionsSchema = Type.Object(
  { redirectURIs: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })) },
  closed,
);

/** The file's value after a clean schema check (defaulted keys are filled in though typed optional). */
export type ControllerFile = Static<typeof ControllerFileSchema>;
export type IdentityFile = Static<typeof IdentitySchema>;
export type EdgeFile = Static<typeof EdgeSchema>;
export type CtrlFile = Static<typeof CtrlSchema>;
export type ListenerFile = Static<typeof ListenerSchema>;
export type EdgeOidcOptionsFile = Static<typeof EdgeOidcOptionsSchema>;

/** One `web` listener; the router file reuses it (its only API, `health-checks`, is checked by the router rules). */
export const WebListenerSchema = ListenerSchema;
