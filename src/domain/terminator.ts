/**
 * Terminators: where a service's traffic leaves the network, on one edge router (reference facts §A1, §D3). Routers
 * create them when an SDK binds a service; administrators may create them too. A terminator has no name; it is
 * deleted with its service or its router.
 */

export const TERMINATOR_PRECEDENCES = ['default', 'required', 'failed'] as const;
export type TerminatorPrecedence = (typeof TERMINATOR_PRECEDENCES)[number];

export interface Terminator {
  id: string;
  serviceId: string;
  routerId: string;
  /** How the router reaches the address, e.g. `transport` or `edge`. */
  binding: string;
  address: string;
  /** The instance id a hosting SDK gave (the reference's `identity`); '' when none. */
  identity: string;
  /** Base64 secret proving the instance id; never shown. */
  identitySecret: string | null;
  /** 0..65535. */
  cost: number;
  precedence: TerminatorPrecedence;
  /** The hosting identity, when an SDK bound it. */
  hostId: string | null;
  tags: Record<string, string | boolean | null>;
  createdAt: Date;
  updatedAt: Date;
}

/** A terminator with the names of its service and router, as lists and details show it. */
export interface NamedTerminator extends Terminator {
  serviceName: string;
  routerName: string;
}
