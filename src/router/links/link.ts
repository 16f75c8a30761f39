/**
 * One link to another router as the fabric sees it: its channel and socket, who is at the other end, its state from
 * the latency probes, and the circuits crossing it by their number on this link.
 */
import type { TLSSocket } from 'node:tls';
import type { Channel } from '../../channel/channel.js';
import type { Hop } from '../fabric/hop.js';

export interface Link {
  readonly id: string;
  readonly peerRouterId: string;
  readonly peerName: string;
  /** True on the router that dialed it (it probes and reports it); false on the one that accepted it. */
  readonly dialed: boolean;
  readonly dialAddress: string;
  readonly channel: Channel;
  readonly socket: TLSSocket;
  state: 'up' | 'stalled';
  latencyMs: number | null;
  readonly hops: Map<number, Hop>;
  /** A fresh circuit number on this link: odd on the dialing side, even on the accepting side. */
  nextCircuitNumber(): number;
  /** Pauses reading the link (counted): a circuit's far end is congested. */
  readonly reading: { pause(): void; resume(): void };
}

/** The circuit-number allocator of one side of a link: odd numbers for the dialer, even for the acceptor, skipping those in use. */
export function circuitNumbers(dialed: boolean, inUse: (n: number) => boolean): () => number {
  let next = dialed ? 1 : 2;
  return () => {
    for (;;) {
      const n = next;
      next = next >= 0xffff_fffd ? (dialed ? 1 : 2) : next + 2;
      if (!inUse(n)) return n;
    }
  };
}
