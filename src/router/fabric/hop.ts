/**
 * A circuit's end on a link: what this router sends toward the next router of the path (or back toward the previous
 * one). Payloads go out as link Payload messages under the circuit's number on that link; the end of the circuit
 * goes out as CircuitClose. Payloads arriving for the number go to the hop's peer through its Inlet.
 */
import { encode } from '../../channel/message.js';
import type { Link } from '../links/link.js';
import { circuitPayload, LinkHeader, LinkType } from '../links/link-protocol.js';
import type { CircuitEnd, Payload } from './circuit-end.js';
import { Inlet, onceSocketDrained } from './inlet.js';

export class Hop implements CircuitEnd {
  readonly inlet: Inlet;
  #closed = false;

  constructor(
    readonly link: Link,
    readonly circuit: number,
    private readonly onRelayed: (bytes: number) => void,
  ) {
    this.inlet = new Inlet(this, () => this.closeBothWays('too much data arrived before the circuit was set up'));
    link.hops.set(circuit, this);
  }

  get label(): string {
    return `link ${this.link.id} to ${this.link.peerName} circuit ${this.circuit}`;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(payload: Payload): void {
    if (this.#closed || this.link.channel.closed) return;
    this.link.channel.send(circuitPayload(this.circuit, payload));
    this.onRelayed(payload.body.length);
  }

  /** Its peer ended the circuit: the next router is told. */
  end(reason: string): void {
    if (!this.#release()) return;
    if (!this.link.channel.closed) {
      this.link.channel.send({ contentType: LinkType.CircuitClose, headers: [[LinkHeader.Circuit, encode.u32(this.circuit)]], body: reason.slice(0, 500) });
    }
  }

  /** The other router ended the circuit (CircuitClose) or the link went: the peer is told. */
  closedByLink(reason: string): void {
    const peer = this.inlet.peer;
    if (!this.#release()) return;
    peer?.end(reason);
  }

  /** Ends both ways: the peer and the next router. */
  closeBothWays(reason: string): void {
    const peer = this.inlet.peer;
    this.end(reason);
    peer?.end(reason);
  }

  get queued(): number {
    return this.link.socket.writableLength;
  }

  onceDrained(listener: () => void): void {
    onceSocketDrained(this.link.socket, listener);
  }

  pause(): void {
    this.link.reading.pause();
  }

  resume(): void {
    this.link.reading.resume();
  }

  #release(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.inlet.close();
    if (this.link.hops.get(this.circuit) === this) this.link.hops.delete(this.circuit);
    return true;
  }
}
