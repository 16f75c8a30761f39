/**
 * Edge routers: the data-plane processes SDKs connect through. An administrator creates one, which gives it a
 * one-time enrollment (method `erott`); the router later exchanges that token for its certificates. What a router
 * reports when it connects (listeners, version, hostname) is its presence (services/routers/presence.ts;
 * docs/decisions/0064-router-presence.md): read with each router, online while its control channel is up.
 */

/** The pending one-time enrollment of a router. Only the token's SHA-256 is stored; the JWT carries the token. */
export interface RouterEnrollment {
  tokenHash: string;
  /** The signed enrollment JWT (claims em = erott, sub = router id, jti = token), shown to administrators. */
  jwt: string;
  expiresAt: Date;
}

/** Reference sync statuses a router shows: never connected, connected now, connected before but not now. */
export type RouterSyncStatus = 'SYNC_NEW' | 'SYNC_DONE' | 'SYNC_DISCONNECTED';

/** The build a router reported in its hello. */
export interface RouterVersionInfo {
  version: string;
  revision: string;
  buildDate: string;
  os: string;
  arch: string;
}

/**
 * A router's online status and what it reported when it last connected (services/routers/presence.ts): whether its
 * control channel is up at a live controller, and the hello it sent.
 */
export interface RouterStatus {
  isOnline: boolean;
  syncStatus: RouterSyncStatus;
  hostname: string;
  /** Protocol -> address as SDKs dial it, e.g. `tls` -> `tls://er1.example:3022`. */
  supportedProtocols: Record<string, string>;
  versionInfo?: RouterVersionInfo;
  capabilities: string[];
}

/** A router's status as read with it; empty (offline, never connected) where nothing was read. */
export type RouterConnection = Partial<RouterStatus>;

export type AppData = Record<string, unknown>;

export interface EdgeRouter {
  id: string;
  name: string;
  roleAttributes: string[];
  isTunnelerEnabled: boolean;
  /** Routing cost, 0..65535. */
  cost: number;
  noTraversal: boolean;
  disabled: boolean;
  appData: AppData;
  tags: Record<string, string | boolean | null>;
  /** Set once the router has enrolled. */
  fingerprint: string | null;
  certPem: string | null;
  isVerified: boolean;
  /** Null once used (or never issued). */
  enrollment: RouterEnrollment | null;
  connection: RouterConnection;
  createdAt: Date;
  updatedAt: Date;
}

/** The largest routing cost (an unsigned 16-bit value, as the reference stores it). */
export const MAX_ROUTER_COST = 65_535;
