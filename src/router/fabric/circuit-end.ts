/**
 * The one shape every end of a circuit takes on a router (issue 43, decision 0069): an SDK connection on an edge
 * channel, a hop onto a link toward another router, or a tunnel's socket (a host-mode target, a proxy-mode client).
 * A circuit joins two ends; each end sends what it reads from its outside to the other end's `send`, and the relay
 * code never needs to know which kinds it joins. Backpressure is the same for all: a sender that finds its peer's
 * `queued` above HIGH_WATER_BYTES pauses its own input until the peer drains.
 */

/** Unsent bytes an end may hold toward its outside before the ends sending to it are paused. */
export const HIGH_WATER_BYTES = 1_048_576;

/** Flags of a payload are the edge protocol's Flags header (facts §3): FIN is a half-close, the rest pass through. */
export { EdgeFlag as PayloadFlag } from '../../channel/edge-protocol.js';

/** One payload along a circuit: the body of one edge Data message, its Flags, and headers passed through unchanged. */
export interface Payload {
  body: Buffer;
  /** The Flags header's value (0 when absent). */
  flags: number;
  /** Other edge Data headers that travel end to end unchanged (the UUID header 128), as `[id, value]`. */
  extra: Array<[number, Buffer]>;
}

export interface CircuitEnd {
  /** What this end is, for logs: `sdk <identity> conn 7`, `link <id> to er2`, `tcp 127.0.0.1:8080`. */
  readonly label: string;
  /** Delivers a payload from the other end to this end's outside. */
  send(payload: Payload): void;
  /** The other end (or the path) ended the circuit: release this end and tell its outside why. Called at most once. */
  end(reason: string): void;
  /** Bytes queued toward this end's outside and not yet written. */
  readonly queued: number;
  /** Calls `listener` once, when `queued` falls back under HIGH_WATER_BYTES or the end closes. */
  onceDrained(listener: () => void): void;
  /** Stops reading from this end's outside (its peer is congested); counted, so every pause needs its resume. */
  pause(): void;
  resume(): void;
}

/** What the other end of a dial said when it accepted: its public key when it is the end-to-end encryption peer. */
export interface Accepted {
  end: CircuitEnd;
  /** The accepting end's key-exchange public key (32 bytes), sent back to the dialer as header 1003. */
  publicKey?: Buffer;
}

/** What travels with a dial from the dialer to the hosting end (edge headers of the Connect, facts §5A). */
export interface DialerInfo {
  identityId: string;
  identityName: string;
  /** Header 1008: the caller's id as the dialer set it. */
  callerId?: Buffer;
  /** Header 1003: the dialer's key-exchange public key, when it encrypts end to end. */
  publicKey?: Buffer;
  /** Header 1025. */
  connectionMarker?: Buffer;
  /** Header 1011: intercept data (JSON from a tunneler: `dst_protocol`, `dst_ip`, `dst_port`, `dst_hostname`…). */
  appData?: Buffer;
}

/** Why a dial failed at its hosting end: `reason` goes back to the dialer as one sentence. */
export class EgressError extends Error {
  override readonly name = 'EgressError';
  /** `refused`: the target refused or was unreachable (the terminator is marked failed); `denied`: not allowed. */
  constructor(message: string, readonly kind: 'refused' | 'denied' | 'timeout' | 'internal') {
    super(message);
  }
}

/**
 * The hosting side of a binding on this router: an SDK binding (edge) or a tunnel host (tunnel). `dial` opens the
 * circuit's far end toward the service and wires it to `peer` (the end toward the dialer), or throws EgressError.
 */
export interface Egress {
  dial(request: { circuitId: string; terminatorId: string; serviceId: string; dialer: DialerInfo }, peer: CircuitEnd): Promise<Accepted>;
}
