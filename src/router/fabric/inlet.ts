/**
 * The input side of a circuit end: what an end reads from its outside goes to its peer through here. Before the
 * circuit is joined (the peer is not known yet) payloads wait, up to a byte bound; after, each one is delivered and
 * the end's outside is paused while the peer holds more than HIGH_WATER_BYTES unsent (resumed when it drains). One
 * class for SDK connections, link hops and tunnel sockets, so backpressure works the same across a whole path.
 */
import { HIGH_WATER_BYTES, type CircuitEnd, type Payload } from './circuit-end.js';

/** Bytes an end may receive before its circuit is joined (a target that speaks first, data racing a route answer). */
export const MAX_EARLY_BYTES = 4 * 1_048_576;

export class Inlet {
  #peer: CircuitEnd | undefined;
  #early: Payload[] = [];
  #earlyBytes = 0;
  #waiting = false;
  #closed = false;

  /**
   * @param owner the end this inlet reads for: paused while its peer is congested.
   * @param overflow called once when more than MAX_EARLY_BYTES arrive before the join: the owner ends the circuit.
   */
  constructor(
    private readonly owner: Pick<CircuitEnd, 'pause' | 'resume'>,
    private readonly overflow: () => void,
  ) {}

  get peer(): CircuitEnd | undefined {
    return this.#peer;
  }

  /** A payload from the owner's outside. */
  push(payload: Payload): void {
    if (this.#closed) return;
    const peer = this.#peer;
    if (!peer) {
      this.#earlyBytes += payload.body.length;
      if (this.#earlyBytes > MAX_EARLY_BYTES) {
        this.close();
        this.overflow();
        return;
      }
      this.#early.push(payload);
      return;
    }
    this.#deliver(peer, payload);
  }

  /** The circuit is joined: what arrived early goes first, in order. */
  connect(peer: CircuitEnd): void {
    if (this.#closed) return;
    this.#peer = peer;
    const early = this.#early;
    this.#early = [];
    this.#earlyBytes = 0;
    for (const payload of early) this.#deliver(peer, payload);
  }

  /** Nothing more is delivered (the owner ended); payloads held early are dropped. */
  close(): void {
    this.#closed = true;
    this.#early = [];
  }

  #deliver(peer: CircuitEnd, payload: Payload): void {
    peer.send(payload);
    if (this.#waiting || peer.queued <= HIGH_WATER_BYTES) return;
    this.#waiting = true;
    this.owner.pause();
    peer.onceDrained(() => {
      this.#waiting = false;
      this.owner.resume();
    });
  }
}

/** Pauses a stream while at least one reason holds: each `pause()` needs its `resume()`. */
export function pauseCounter(stream: { pause(): unknown; resume(): unknown; readonly destroyed: boolean }): { pause(): void; resume(): void } {
  let count = 0;
  return {
    pause() {
      if (count++ === 0) stream.pause();
    },
    resume() {
      if (count === 0) return;
      if (--count === 0 && !stream.destroyed) stream.resume();
    },
  };
}

/** `onceDrained` for an end writing to `socket`: at once when it is under the mark, else at its next drain or close. */
export function onceSocketDrained(socket: NodeJS.EventEmitter & { writableLength: number }, listener: () => void): void {
  if (socket.writableLength <= HIGH_WATER_BYTES) {
    queueMicrotask(listener);
    return;
  }
  const done = () => {
    socket.off('drain', done);
    socket.off('close', done);
    listener();
  };
  socket.on('drain', done);
  socket.on('close', done);
}
