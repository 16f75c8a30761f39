/**
 * Links and circuits as the controller knows them (issue 43; decision 0070): a link is what a router reported having
 * dialed to another router; a circuit is what a dial decision opened, from its first (ingress) router along `path`
 * to the terminator's (egress) router.
 */

export type LinkState = 'up' | 'stalled';

export interface Link {
  id: string;
  /** The router that dialed the link (and reports it). */
  sourceRouterId: string;
  /** The router it dialed. */
  destRouterId: string;
  state: LinkState;
  /** Round trip of the last answered probe, ms; null before the first. */
  latencyMs: number | null;
  /** `tls:host:port` dialed. */
  dialAddress: string;
  updatedAt: Date;
}

export interface Circuit {
  id: string;
  serviceId: string;
  identityId: string;
  apiSessionId: string | null;
  terminatorId: string;
  ingressRouterId: string;
  egressRouterId: string;
  /** Router ids from the ingress to the egress router. */
  path: string[];
  /** `links[i]` joins `path[i]` and `path[i + 1]`. */
  links: string[];
  createdAt: Date;
}
