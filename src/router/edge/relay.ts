/**
 * The relay between the two ends of a circuit on this router (facts §5A steps 6-8): Data passes one message for one,
 * its body, Flags (FIN half-close included) and UUID unchanged and its connection id rewritten to the peer's; a
 * StateClosed ends both ends, the other one told why. Backpressure: when the peer's socket holds more than
 * HIGH_WATER_BYTES unsent, the sender's socket stops being read until the peer drains, so a slow reader costs the
 * router a bounded buffer per channel. The SDK protocol has no per-connection window, so the pause is per channel.
 */
import { encode, type Message } from '../../channel/message.js';
import type { EdgeMetrics } from '../metrics/edge-metrics.js';
import { EdgeHeader, EdgeType } from '../../channel/edge-protocol.js';
import { sendStateClosed, type EdgeConn, type SdkChannel } from './sdk-channel.js';

/** Unsent bytes a peer's socket may hold before its senders are paused. */
export const HIGH_WATER_BYTES = 1_048_576;
/** Data held for a connection whose circuit is not joined yet (its first messages only). */
const MAX_PENDING = 64;

/** Headers copied from a relayed Data: everything but the connection id and the sender's own sequence. */
const NOT_RELAYED = new Set<number>([EdgeHeader.ConnId, EdgeHeader.Seq, 1 /* ReplyFor */]);

export interface Relay {
  /** Data from `from` for its connection `conn`. */
  data(conn: EdgeConn, m: Message): void;
  /** Joins two connections into a circuit and sends each what it received early. */
  join(a: EdgeConn, b: EdgeConn): void;
  /** Ends `conn` and tells its peer why (not `conn`'s own SDK, which closed it or is gone). */
  close(conn: EdgeConn, reason: string, tellSelf?: boolean): void;
  /** A connection end was opened (counted until it closes). */
  opened(): void;
  /** Connection ends open on the router now. */
  readonly open: number;
}

export function createRelay(deps: { metrics: EdgeMetrics }): Relay {
  const { metrics } = deps;
  let open = 0;

  function block(sender: SdkChannel, receiver: SdkChannel): void {
    if (sender.blockedOn.has(receiver)) return;
    if (sender.blockedOn.size === 0) sender.socket.pause();
    sender.blockedOn.add(receiver);
    metrics.paused();
    const release = () => {
      receiver.socket.off('drain', release);
      receiver.socket.off('close', release);
      if (!sender.blockedOn.delete(receiver)) return;
      if (sender.blockedOn.size === 0 && !sender.channel.closed) sender.socket.resume();
    };
    receiver.socket.on('drain', release);
    receiver.socket.on('close', release);
  }

  function forward(from: EdgeConn, to: EdgeConn, m: Message): void {
    const headers: Array<[number, Buffer]> = [[EdgeHeader.ConnId, encode.u32(to.connId)]];
    for (const [id, value] of m.headers) if (!NOT_RELAYED.has(id)) headers.push([id, value]);
    to.channel.channel.send({ contentType: EdgeType.Data, headers, body: m.body });
    metrics.relayed(m.body.length);
    if (to.channel.socket.writableLength > HIGH_WATER_BYTES) block(from.channel, to.channel);
  }

  function drop(conn: EdgeConn): void {
    if (conn.state === 'closed') return;
    conn.state = 'closed';
    conn.pending = [];
    if (conn.channel.conns.get(conn.connId) === conn) conn.channel.conns.delete(conn.connId);
    open--;
    metrics.connections(-1);
  }

  return {
    opened() {
      open++;
      metrics.connections(1);
    },
    get open() {
      return open;
    },
    data(conn, m) {
      if (conn.state === 'connecting') {
        if (conn.pending.length >= MAX_PENDING) {
          this.close(conn, 'too much data before the circuit was set up', true);
          return;
        }
        conn.pending.push(m);
        return;
      }
      if (conn.state === 'closed' || !conn.peer) return;
      forward(conn, conn.peer, m);
    },
    join(a, b) {
      a.peer = b;
      b.peer = a;
      a.state = 'connected';
      b.state = 'connected';
      for (const [x, y] of [[a, b], [b, a]] as const) {
        const early = x.pending;
        x.pending = [];
        for (const m of early) forward(x, y, m);
      }
    },
    close(conn, reason, tellSelf = false) {
      if (conn.state === 'closed') return;
      const peer = conn.peer;
      drop(conn);
      if (tellSelf && !conn.channel.channel.closed) sendStateClosed(conn.channel, conn.connId, reason);
      if (peer && peer.state !== 'closed') {
        drop(peer);
        if (!peer.channel.channel.closed) sendStateClosed(peer.channel, peer.connId, reason);
      }
    },
  };
}
