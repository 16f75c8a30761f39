/**
 * The circuit end of a tunnel socket (issue 43, decision 0071), whatever carries it: a TCP connection to a hosted
 * target or from a proxy-mode client, or a UDP socket to a hosted target. This module holds what they share: the
 * end-to-end encryption when the router is the encryption peer (facts §5C: the first payload each way is the
 * sender's 24-byte secretstream header, then one sealed message per payload), half-close (FIN both ways ends the
 * circuit), backpressure (the contract's rule: pause own input while the peer holds more than HIGH_WATER_BYTES), and
 * ending once with a reason on both sides. A Transport (tcp-end.ts, udp-end.ts) does the socket's part.
 */
import type { E2eeSession } from '../../sdk/e2ee.js';
import { HIGH_WATER_BYTES, PayloadFlag, type CircuitEnd, type Payload } from '../fabric/circuit-end.js';

/** The largest plaintext in one payload: the SDKs' own Data size, so an SDK reader never meets a bigger message. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Payloads from the peer held before the end is started (the far end's header can arrive before the dial answer). */
const MAX_EARLY_PAYLOADS = 64;
const NO_HEADERS: Payload['extra'] = [];

/** The socket side of a tunnel end. */
export interface Transport {
  /** Writes plaintext from the peer to the socket. */
  write(plain: Buffer): void;
  /** The peer will send no more: TCP half-closes its socket; UDP has nothing to do. */
  writeFin(): void;
  /** Bytes written and not yet sent. */
  queued(): number;
  pauseInput(): void;
  resumeInput(): void;
  /** Releases the socket: `graceful` writes out what is queued first; otherwise at once (an error). */
  close(graceful: boolean): void;
}

export interface TunnelEnd extends CircuitEnd {
  /** Starts the end once its peer is known: sends this end's encryption header, then reads its socket. */
  start(peer: CircuitEnd, crypto?: E2eeSession): void;
  /** The transport read `plain` from the socket. */
  read(plain: Buffer): void;
  /** The transport read EOF (TCP half-close from the outside). */
  readFin(): void;
  /** The socket was lost or closed: ends the circuit with `reason`. */
  lost(reason: string): void;
  /** The socket's write queue drained. */
  drained(): void;
  readonly ended: boolean;
}

/** A tunnel end around `transport`; `onEnded` runs once, with the reason, however it ended. */
export function createTunnelEnd(label: string, transport: Transport, onEnded: (reason: string) => void): TunnelEnd {
  let peer: CircuitEnd | undefined;
  let crypto: E2eeSession | undefined;
  let early: Payload[] | undefined = [];
  let ended = false;
  let pauses = 1; // input stays paused until start()
  let congested = false;
  let finIn = false;
  let finOut = false;
  let drainListeners: Array<() => void> = [];
  /** Why the socket ended before the peer was known: the peer is told when it arrives. */
  let untold: string | undefined;

  function finish(reason: string, graceful: boolean, tellPeer: boolean): void {
    if (ended) return;
    ended = true;
    early = undefined;
    transport.close(graceful);
    flushDrained();
    if (tellPeer && peer) peer.end(reason);
    else if (tellPeer) untold = reason;
    onEnded(reason);
  }

  function flushDrained(): void {
    const listeners = drainListeners;
    drainListeners = [];
    for (const listener of listeners) listener();
  }

  function deliver(payload: Payload): void {
    if (payload.body.length > 0) {
      let plain: Buffer | undefined = payload.body;
      if (crypto) {
        try {
          plain = crypto.open(payload.body);
        } catch (error) {
          finish(`${label}: end-to-end decryption failed: ${(error as Error).message}`, false, true);
          return;
        }
      }
      if (plain && plain.length > 0) transport.write(plain);
    }
    if (payload.flags & PayloadFlag.FIN && !finIn) {
      finIn = true;
      transport.writeFin();
      if (finOut) finish('both sides closed the connection', true, true);
    }
  }

  function toPeer(body: Buffer, flags: number): void {
    const to = peer;
    if (!to || ended) return;
    to.send({ body, flags, extra: NO_HEADERS });
    if (!congested && to.queued > HIGH_WATER_BYTES) {
      // Once per congestion episode (contract "Backpressure rule").
      congested = true;
      end.pause();
      to.onceDrained(() => {
        congested = false;
        end.resume();
      });
    }
  }

  const end: TunnelEnd = {
    label,
    get queued() {
      return ended ? 0 : transport.queued();
    },
    get ended() {
      return ended;
    },
    send(payload) {
      if (ended) return;
      if (early) {
        if (early.length >= MAX_EARLY_PAYLOADS) finish(`${label}: the far end sent more than ${MAX_EARLY_PAYLOADS} payloads before the circuit was set up`, false, true);
        else early.push(payload);
        return;
      }
      deliver(payload);
    },
    end(reason) {
      // What the peer sent before it ended is still written out, then the socket closes.
      finish(reason, true, false);
    },
    onceDrained(listener) {
      if (ended || transport.queued() <= HIGH_WATER_BYTES) queueMicrotask(listener);
      else drainListeners.push(listener);
    },
    pause() {
      if (pauses++ === 0 && !ended) transport.pauseInput();
    },
    resume() {
      if (pauses === 0) return;
      if (--pauses === 0 && !ended) transport.resumeInput();
    },
    start(to, session) {
      if (peer) return;
      if (ended) {
        if (untold !== undefined) to.end(untold);
        return;
      }
      peer = to;
      crypto = session;
      if (crypto) to.send({ body: crypto.header, flags: 0, extra: NO_HEADERS });
      const held = early ?? [];
      early = undefined;
      for (const payload of held) if (!ended) deliver(payload);
      end.resume();
    },
    read(plain) {
      for (let at = 0; at < plain.length && !ended; at += MAX_PAYLOAD_BYTES) {
        const piece = plain.length <= MAX_PAYLOAD_BYTES ? plain : plain.subarray(at, at + MAX_PAYLOAD_BYTES);
        toPeer(crypto ? crypto.seal(piece) : piece, 0);
      }
    },
    readFin() {
      if (finOut || ended) return;
      finOut = true;
      toPeer(Buffer.alloc(0), PayloadFlag.FIN);
      if (finIn) finish('both sides closed the connection', true, true);
    },
    lost(reason) {
      finish(reason, false, true);
    },
    drained() {
      if (transport.queued() <= HIGH_WATER_BYTES) flushDrained();
    },
  };
  return end;
}
