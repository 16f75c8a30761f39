/**
 * Edge routers: the data-plane processes SDKs connect through. An administrator creates one, which gives it a
 * one-time enrollment (method `erott`); the router later exchanges that token for its certificates. What a router
 * reports when it connects (listeners, version, hostname) arrives with the router process, a later issue
 * (docs/decisions/0027-routers-posture-terminators.md); until then a router reads as offline.
 */

/** The pending one-time enrollment of a router. Only the token's SHA-256 is stored; the JWT carries the token. */
export interface RouterEnrollment {
  tokenHash: string;
  /** The signed enrollment JWT (claims em = erott, sub = router id, jti = token), shown to administrators. */
  jwt: string;
  expiresAt: Date;
}

/** What a connected router reported; empty until routers connect. */
export interface RouterConnection {
  hostname?: string;
  /** Protocol -> advertised address, e.g. `tls` -> `tls:host:3022`. */
  supportedProtocols?: Record<string, string>;
  versionInfo?: { version: string; revision: string; buildDate: string; os: string; arch: string };
}

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
