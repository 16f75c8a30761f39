/**
 * The controller configuration as the rest of the code sees it: typed, defaults filled in, durations in
 * milliseconds, file paths absolute, auto-binding resolved. Produced only by `loadControllerConfig`
 * (config/load.ts) and frozen; passed down explicitly, never read from a global.
 */
import type { DatabaseTarget } from '../persistence/database.js';

/** `host:port` split into its parts; `host` is a DNS name, an IPv4 address or an IPv6 address without brackets. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
  /** As written in the file, e.g. `127.0.0.1:1280` or `[::1]:1280`. */
  readonly text: string;
}

/** Certificate and key files of an identity (absolute paths). */
export interface IdentityFiles {
  /** Client certificate (PEM, may hold a chain). */
  readonly cert: string;
  /** Server certificate chain presented by listeners (PEM). */
  readonly serverCert: string;
  /** Private key of the server certificate (and of `cert` unless `serverKey` is given). */
  readonly key: string;
  /** Optional separate key for `serverCert`. */
  readonly serverKey?: string;
  /** CA bundle (PEM) this identity trusts. */
  readonly ca: string;
}

/** A `redirectURIs` entry of the `edge-oidc` binding; `*` may stand in the port position. */
export interface RedirectUriPattern {
  readonly text: string;
  readonly scheme: string;
  readonly host: string;
  /** `'*'` for any port, undefined when the URI has none. */
  readonly port: number | '*' | undefined;
  readonly path: string;
}

export type ApiBindingName = 'edge-client' | 'edge-management' | 'edge-oidc';

/** Every name a listener's `apis` may list: the Edge APIs, and `metrics` (Prometheus text at `/metrics`, decision 0033). */
export type BindingName = ApiBindingName | 'metrics';

export type ApiBinding =
  | { readonly binding: 'edge-client'; readonly options: Readonly<Record<string, never>> }
  | { readonly binding: 'edge-management'; readonly options: Readonly<Record<string, never>> }
  | {
      readonly binding: 'edge-oidc';
      readonly options: { readonly redirectURIs: readonly RedirectUriPattern[] };
      /** True when added by auto-binding rather than listed in the file. */
      readonly auto: boolean;
    };

export interface BindPoint {
  /** Where to listen. */
  readonly interface: HostPort;
  /** The public address clients use (issuer and apiBaseUrls are derived from it). */
  readonly address: HostPort;
}

export interface WebListenerOptions {
  readonly idleTimeoutMs: number;
  readonly readTimeoutMs: number;
  readonly writeTimeoutMs: number;
  /** Slow clients (decision 0013): the TLS handshake, the headers and the whole request each have a deadline. */
  readonly handshakeTimeoutMs: number;
  readonly headerTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Open connections per bind point, and per client address on it. */
  readonly maxConnections: number;
  readonly maxConnectionsPerClient: number;
  readonly minTLSVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly maxTLSVersion: 'TLSv1.2' | 'TLSv1.3';
}

export interface WebListener {
  readonly name: string;
  readonly bindPoints: readonly BindPoint[];
  /** After auto-binding: the APIs this listener serves. */
  readonly apis: readonly ApiBinding[];
  /** Serves `GET /metrics` (the `metrics` binding); apart from `apis`, the Edge APIs that `/version` lists. */
  readonly metrics: boolean;
  /** Server identity for this listener; defaults to the controller identity. */
  readonly identity: IdentityFiles;
  readonly options: WebListenerOptions;
}

export interface EdgeConfig {
  readonly api: {
    readonly address: HostPort;
    readonly sessionTimeoutMs: number;
    readonly disableOidcAutoBinding: boolean;
    /** Bounds on concurrent login work: beyond `concurrency` running and `maxQueued` waiting, 429 RATE_LIMITED. */
    readonly authQueue: { readonly concurrency: number; readonly maxQueued: number; readonly maxWaitMs: number };
  };
  readonly enrollment: {
    readonly signingCert: { readonly cert: string; readonly key: string; readonly ca?: string };
    readonly edgeIdentityDurationMs: number;
    readonly edgeRouterDurationMs: number;
    /**
     * Whether routers' server certificates may name loopback addresses (localhost, 127.0.0.0/8, ::1) and this
     * controller's own host names; false (the default) refuses them, true is for a router on the controller's machine.
     */
    readonly allowRouterLocalNames: boolean;
  };
  readonly oidc: {
    readonly accessTokenDurationMs: number;
    readonly idTokenDurationMs: number;
    readonly refreshTokenDurationMs: number;
  };
  readonly totp: {
    readonly hostname: string;
    /**
     * Absolute path of the key that seals TOTP secrets and recovery codes; without it the key is derived from the
     * controller identity's private key.
     */
    readonly encryptionKeyFile?: string;
    /** Wrong codes in a row before TOTP checks lock (default 5). */
    readonly maxAttempts: number;
    /** How long they stay locked (default 5 minutes). */
    readonly lockoutMs: number;
  };
  readonly externalJwt: ExternalJwtConfig;
}

/** `edge.externalJwt`: how the JWKS of external JWT signers are fetched. */
export interface ExternalJwtConfig {
  /** Accept `http://` JWKS endpoints (default false: https only). */
  readonly allowHttpJwks: boolean;
  /** Refuse endpoints whose addresses are loopback, private or otherwise not public (link-local is always refused). */
  readonly refusePrivateAddresses: boolean;
  /** Budget of one fetch, redirects included. */
  readonly jwksTimeoutMs: number;
  readonly jwksMaxBytes: number;
  readonly jwksMaxRedirects: number;
  /** A token naming an unknown `kid` re-fetches the JWKS at most once per this interval. */
  readonly jwksRefreshIntervalMs: number;
}

/** `ctrl`: the control-plane listener routers connect to over mutual TLS (decision 0065). */
export interface CtrlConfig {
  /** Where to listen; `text` is the file's `tls:<host>:<port>`. */
  readonly listener: HostPort;
  /** The address routers are told to use (endpoints lists, quickstart's output). */
  readonly advertise: HostPort;
}

export interface ControllerConfig {
  /** Absolute path of the file this was loaded from. */
  readonly source: string;
  readonly db: DatabaseTarget;
  readonly identity: IdentityFiles;
  /** Absent when the file has no `ctrl` section: no router can connect. */
  readonly ctrl?: CtrlConfig;
  /** Absent when the file has no `edge` section: no Edge APIs, no OIDC. */
  readonly edge: EdgeConfig | undefined;
  readonly web: readonly WebListener[];
}

/** One problem found in a YAML file, with where it is (defined with its formatter in shared/). */
export type { Diagnostic } from '../shared/diagnostics.js';
