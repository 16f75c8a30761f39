/**
 * One SDK connection (dialled or accepted) as a Node Duplex, as `net.connect` answers a socket. Writes become Data
 * messages on the router channel (one write up to 64 KiB per message, sealed when the connection is encrypted) and
 * their callbacks wait for the channel's socket to drain; Data from the peer is pushed to the reader, and when the
 * reader's buffer is full the router socket is paused until `read()` asks for more (the socket carries every
 * connection of that router, as a TCP connection does for its streams). `end()` sends Data{FIN} (half-close: the
 * peer reads EOF and may still write); `destroy()` sends StateClosed; a StateClosed from the peer ends reading.
 */
import { Duplex } from 'node:stream';
import type { Channel } from '../channel/channel.js';
import { encode, read, type Message } from '../channel/message.js';
import { SdkError } from './errors.js';
import type { E2eeSession } from './e2ee.js';
import { EdgeFlag, EdgeHeader, EdgeType } from '../channel/edge-protocol.js';
import type { LinkConn } from './router-link.js';

/** What `dial` answers and `listen` hands to its callback. */
export interface SvcConnection extends Duplex {
  readonly service: string;
  /** The dialling identity's name, on an accepted connection. */
  readonly callerId?: string;
  readonly circuitId?: string;
  /** App data the dialer sent with the dial, on an accepted connection. */
  readonly appData?: Buffer;
}

/** A pause of the router socket for one connection: each connection pauses once and resumes what it paused. */
export interface FlowControl {
  pause(connId: number): void;
  resume(connId: number): void;
}

export interface EdgeConnectionOptions {
  service: string;
  connId: number;
  channel: Channel;
  flow: FlowControl;
  /** Set on an encrypted connection: the keys are known and this end's header is sent at once. */
  crypto?: E2eeSession;
  callerId?: string;
  circuitId?: string;
  appData?: Buffer;
  /** 1 dialled, 2 accepted-from-bind (the C SDK's inspect types). */
  type: 1 | 2;
  onGone(): void;
}

const MAX_DATA_BODY = 64 * 1024;

export class EdgeConnection extends Duplex implements SvcConnection, LinkConn {
  readonly service: string;
  readonly callerId?: string;
  readonly circuitId?: string;
  readonly appData?: Buffer;
  readonly type: 1 | 2;
  private readonly connId: number;
  private readonly channel: Channel;
  private readonly flow: FlowControl;
  private readonly crypto?: E2eeSession;
  private readonly onGone: () => void;
  private seq = 0;
  private peerClosed = false;
  private finReceived = false;
  private paused = false;

  constructor(options: EdgeConnectionOptions) {
    super({ allowHalfOpen: true });
    this.service = options.service;
    this.connId = options.connId;
    this.channel = options.channel;
    this.flow = options.flow;
    this.type = options.type;
    this.onGone = options.onGone;
    if (options.callerId !== undefined) this.callerId = options.callerId;
    if (options.circuitId !== undefined) this.circuitId = options.circuitId;
    if (options.appData !== undefined) this.appData = options.appData;
    if (options.crypto) {
      this.crypto = options.crypto;
      this.sendData(options.crypto.header);
    }
  }

  private sendData(body: Buffer, flags = 0): boolean {
    const headers: Array<[number, Buffer]> = [
      [EdgeHeader.ConnId, encode.u32(this.connId)],
      [EdgeHeader.Seq, encode.u32(this.seq++)],
    ];
    if (flags) headers.push([EdgeHeader.Flags, encode.u32(flags)]);
    return this.channel.send({ contentType: EdgeType.Data, headers, body });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.peerClosed || this.channel.closed) return callback(new SdkError('CLOSED', `the connection to service '${this.service}' is closed`));
    let room = true;
    try {
      for (let at = 0; at < chunk.length; at += MAX_DATA_BODY) {
        const piece = chunk.subarray(at, at + MAX_DATA_BODY);
        room = this.sendData(this.crypto ? this.crypto.seal(piece) : piece) && room;
      }
    } catch (error) {
      return callback(error as Error);
    }
    if (room) callback();
    else this.channel.drained().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // Half-close: the peer reads EOF and may keep writing.
    if (!this.peerClosed && !this.channel.closed) this.sendData(Buffer.alloc(0), EdgeFlag.FIN);
    callback();
  }

  override _read(): void {
    if (this.paused) {
      this.paused = false;
      this.flow.resume(this.connId);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.paused) this.flow.resume(this.connId);
    if (!this.peerClosed && !this.channel.closed) {
      this.channel.send({ contentType: EdgeType.StateClosed, headers: [[EdgeHeader.ConnId, encode.u32(this.connId)]], body: error ? error.message : 'closed' });
    }
    this.peerClosed = true;
    this.onGone();
    callback(error);
  }

  /** A message the router sent for this connection. */
  onMessage(m: Message): void {
    if (m.contentType === EdgeType.StateClosed) return this.peerEnded();
    if (m.contentType !== EdgeType.Data || this.finReceived) return;
    const flags = read.u32(m, EdgeHeader.Flags) ?? 0;
    if (m.body.length > 0) {
      let plain: Buffer | undefined = m.body;
      if (this.crypto) {
        try {
          plain = this.crypto.open(m.body);
        } catch (error) {
          this.destroy(error as Error);
          return;
        }
      }
      if (plain && plain.length > 0 && !this.push(plain) && !this.paused) {
        this.paused = true;
        this.flow.pause(this.connId);
      }
    }
    if (flags & EdgeFlag.FIN) {
      this.finReceived = true;
      this.push(null);
    }
  }

  private peerEnded(): void {
    this.peerClosed = true;
    if (!this.finReceived) {
      this.finReceived = true;
      this.push(null);
    }
    // Nothing more can be written to a closed peer: the writable side ends here, and the stream closes once read.
    if (!this.writableEnded) this.end();
  }

  onLinkLost(reason: string): void {
    this.peerClosed = true;
    this.destroy(new SdkError('CLOSED', `connection to service '${this.service}' lost: ${reason}`));
  }

  describe(): string {
    return `svc-sdk-ts conn ${this.connId} service=${this.service} ${this.peerClosed ? 'closed' : 'connected'}`;
  }
}
