/**
 * An SDK's connection on an edge channel as one end of a circuit (facts §5A steps 6-8): payloads from the other end
 * go to the SDK as Data under the connection id it knows, Flags (FIN half-close included) and UUID unchanged; Data
 * from the SDK goes to the other end through the connection's Inlet. A dialer's connection holds what arrives for it
 * until the router has answered its Connect (Data reaching a C SDK connection still Connecting is dropped).
 */
import { encode } from '../../channel/message.js';
import { EdgeHeader, EdgeType } from '../../channel/edge-protocol.js';
import type { CircuitEnd, Payload } from '../fabric/circuit-end.js';
import { Inlet, onceSocketDrained } from '../fabric/inlet.js';
import { payloadHeaders } from '../links/link-protocol.js';
import type { EdgeMetrics } from '../metrics/edge-metrics.js';
import { sendStateClosed, type SdkChannel } from './sdk-channel.js';

/** Connection ends open on this router, for the router-wide limit and the gauge. */
export class ConnLedger {
  open = 0;
  constructor(readonly metrics: EdgeMetrics) {}
  opened(): void {
    this.open++;
    this.metrics.connections(1);
  }
  closed(): void {
    this.open--;
    this.metrics.connections(-1);
  }
}

export class EdgeConn implements CircuitEnd {
  state: 'connecting' | 'connected' | 'closed' = 'connecting';
  circuitId = '';
  readonly inlet: Inlet;
  #outbox: Payload[] | undefined;
  #outboxBytes = 0;

  /**
   * @param holdOutput true for a dialer's connection: payloads wait until `announce()` (after StateConnected).
   */
  constructor(
    readonly channel: SdkChannel,
    readonly connId: number,
    readonly serviceId: string,
    private readonly ledger: ConnLedger,
    holdOutput: boolean,
  ) {
    this.inlet = new Inlet(this, () => this.close('too much data before the circuit was set up', true));
    if (holdOutput) this.#outbox = [];
    channel.conns.set(connId, this);
    ledger.opened();
  }

  get label(): string {
    return `sdk ${this.channel.session.identityName || this.channel.session.identityId} conn ${this.connId}`;
  }

  send(payload: Payload): void {
    if (this.state === 'closed') return;
    if (this.#outbox) {
      this.#outbox.push(payload);
      this.#outboxBytes += payload.body.length;
      return;
    }
    this.channel.channel.send({ contentType: EdgeType.Data, headers: payloadHeaders([EdgeHeader.ConnId, encode.u32(this.connId)], payload), body: payload.body });
    this.ledger.metrics.relayed(payload.body.length);
  }

  /** The SDK was told the circuit is up: what waited goes out, and from now on payloads go at once. */
  announce(): void {
    const held = this.#outbox ?? [];
    this.#outbox = undefined;
    this.#outboxBytes = 0;
    this.state = 'connected';
    for (const payload of held) this.send(payload);
  }

  /** The other end closed the circuit: the SDK is told why. */
  end(reason: string): void {
    if (!this.#drop()) return;
    if (!this.channel.channel.closed) sendStateClosed(this.channel, this.connId, reason);
  }

  /**
   * This side ends the circuit (the SDK's StateClosed, its channel gone, a limit): the other end is told why; the
   * SDK too when `tellSdk`.
   */
  close(reason: string, tellSdk = false): void {
    const peer = this.inlet.peer;
    if (!this.#drop()) return;
    if (tellSdk && !this.channel.channel.closed) sendStateClosed(this.channel, this.connId, reason);
    peer?.end(reason);
  }

  /** Forgets the connection without a word to anyone (its SDK refused a Dial and keeps nothing of it). */
  discard(): void {
    this.#drop();
  }

  get queued(): number {
    return this.channel.socket.writableLength + this.#outboxBytes;
  }

  onceDrained(listener: () => void): void {
    onceSocketDrained(this.channel.socket, listener);
  }

  pause(): void {
    this.channel.reading.pause();
    this.ledger.metrics.paused();
  }

  resume(): void {
    this.channel.reading.resume();
  }

  #drop(): boolean {
    if (this.state === 'closed') return false;
    this.state = 'closed';
    this.#outbox = undefined;
    this.inlet.close();
    if (this.channel.conns.get(this.connId) === this) this.channel.conns.delete(this.connId);
    this.ledger.closed();
    return true;
  }
}
