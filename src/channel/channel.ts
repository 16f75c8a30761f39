/**
 * A channel over an already connected byte stream (a TLS socket): numbering outgoing messages, matching replies to
 * their requests by header 1, heartbeats with round-trip times, and the Hello exchange that opens it
 * (reference/edge-router-protocol-facts.md §2 and §7). It opens no sockets: the router and the controller each
 * connect or accept, then hand the stream here.
 *
 * Heartbeats, as upstream's channel has them: every `sendIntervalMs` a side puts header 5 (a u64 timestamp, in
 * milliseconds of its own clock) on a standalone Heartbeat message; the peer echoes the value in header 6 at once.
 * The echo gives `latencyMs`. Nothing heard from the peer for `closeUnresponsiveMs` closes the channel. Timers are unref'd and cleared
 * on close.
 */
import type { Duplex } from 'node:stream';
import { ChannelProtocolError, createFrameDecoder, DEFAULT_LIMITS, encodeFrame, encodeMessage, FRAME_HEADER_BYTES, HELLO_LIMITS, UNKNOWN_VERSION_REPLY, type FrameLimits } from './codec.js';
import { ContentType, encode, Header, read, replyFor, type Message, type OutboundMessage } from './message.js';

export interface HeartbeatOptions {
  sendIntervalMs: number;
  checkIntervalMs: number;
  closeUnresponsiveMs: number;
}

export interface ChannelOptions {
  id?: string;
  heartbeat?: HeartbeatOptions | false;
  limits?: FrameLimits;
  /** Answer Latency probes (content type 3) with a Result echoing header 128, as SDKs expect of a router. */
  answerLatency?: boolean;
  /** Milliseconds now (tests move it); Date.now by default. */
  clock?: () => number;
  onProtocolError?(error: ChannelProtocolError): void;
}

export interface ChannelClose {
  reason: string;
  error?: Error;
}

export interface Channel {
  readonly id: string;
  /** Numbers and writes a message; false when the stream's buffer is full (wait for `drained()`). */
  send(m: OutboundMessage): boolean;
  /** Sends `m` and resolves with the message answering it; rejects on timeout or close. */
  request(m: OutboundMessage, timeoutMs: number): Promise<Message>;
  /** Sends `m` as the reply to `to` (header 1 = to's sequence). */
  reply(to: Message, m: OutboundMessage): boolean;
  /** Every inbound message that is neither a reply to a pending request nor a heartbeat. */
  onMessage(handler: (m: Message) => void): void;
  onClose(handler: (close: ChannelClose) => void): void;
  close(reason?: string): void;
  readonly closed: boolean;
  readonly latencyMs: number | undefined;
  readonly stats: { messagesIn: number; messagesOut: number; bytesIn: number; bytesOut: number; repliesDropped: number };
  drained(): Promise<void>;
}

/** A request that could not be answered: the channel closed, or the answer took too long. */
export class ChannelRequestError extends Error {
  override readonly name = 'ChannelRequestError';
}

/** A Hello the peer refused: its answer (a Result with ResultSuccess 0) is kept for the headers it carries. */
export class HelloRefusedError extends Error {
  override readonly name = 'HelloRefusedError';
  constructor(
    message: string,
    readonly answer: Message,
  ) {
    super(message);
  }
}

let channelCount = 0;
/** Bodies from this size on are written after their frame's head instead of being copied into one buffer. */
const LARGE_BODY_BYTES = 16_384;

/**
 * One timer per check interval for every channel of the process, not one per channel: a controller with a thousand
 * routers would otherwise wake a thousand times a second to find each of them answering.
 */
const checkers = new Map<number, { timer: NodeJS.Timeout; checks: Set<() => void> }>();
function everyInterval(intervalMs: number, check: () => void): () => void {
  let entry = checkers.get(intervalMs);
  if (!entry) {
    const checks = new Set<() => void>();
    const timer = setInterval(() => {
      for (const one of [...checks]) one();
    }, intervalMs);
    timer.unref();
    entry = { timer, checks };
    checkers.set(intervalMs, entry);
  }
  entry.checks.add(check);
  const own = entry;
  return () => {
    own.checks.delete(check);
    if (own.checks.size === 0) {
      clearInterval(own.timer);
      checkers.delete(intervalMs);
    }
  };
}

/**
 * Opens a channel on `stream` whose Hello exchange is done (see dialHello and acceptHello); `initial` are bytes
 * already read past the Hello, `firstSequence` the next sequence to send.
 */
export function openChannel(stream: Duplex, options: ChannelOptions = {}, start: { initial?: Buffer; firstSequence?: number } = {}): Channel {
  const clock = options.clock ?? Date.now;
  const decoder = createFrameDecoder(options.limits ?? DEFAULT_LIMITS);
  const waiters = new Map<number, { resolve(m: Message): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  const messageHandlers: Array<(m: Message) => void> = [];
  const closeHandlers: Array<(c: ChannelClose) => void> = [];
  const stats = { messagesIn: 0, messagesOut: 0, bytesIn: 0, bytesOut: 0, repliesDropped: 0 };
  let sequence = start.firstSequence ?? 1;
  let closed = false;
  let closeInfo: ChannelClose | undefined;
  let latencyMs: number | undefined;
  let lastEchoAt = clock();
  // Any message from the peer shows it alive; its own heartbeats show it is measuring the link (see below).
  let lastHeardAt = clock();
  let lastPeerHeartbeatAt = 0;
  const timers: NodeJS.Timeout[] = [];
  const id = options.id ?? `ch-${++channelCount}`;

  const write = (m: OutboundMessage & { sequence: number }): boolean => {
    if (closed) return false;
    stats.messagesOut++;
    const bodyLength = m.body === undefined ? 0 : m.body.length;
    if (bodyLength < LARGE_BODY_BYTES) {
      const frame = encodeMessage(m);
      stats.bytesOut += frame.length;
      return stream.write(frame);
    }
    // A large body is written as it is, after its head, rather than copied into one frame.
    const [head, body] = encodeFrame(m, false) as [Buffer, Buffer];
    stats.bytesOut += head.length + body.length;
    // Corked, so that head and body go down as one write (one pass through TLS), not a tiny record then the body.
    stream.cork();
    stream.write(head);
    const more = stream.write(body);
    stream.uncork();
    return more;
  };

  function close(reason = 'closed', error?: Error): void {
    if (closed) return;
    closed = true;
    closeInfo = error ? { reason, error } : { reason };
    for (const timer of timers) clearInterval(timer);
    for (const [, waiter] of waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new ChannelRequestError(`the channel closed before an answer: ${reason}`));
    }
    waiters.clear();
    stream.off('data', onData);
    stream.end();
    // A peer that never reads would keep the socket open for ever after end(): it goes after a short grace.
    setTimeout(() => stream.destroy(), 1_000).unref();
    for (const handler of closeHandlers) handler(closeInfo);
  }

  function dispatch(m: Message): void {
    stats.messagesIn++;
    lastHeardAt = clock();
    if (m.headers.has(Header.Heartbeat)) lastPeerHeartbeatAt = lastHeardAt;
    if (m.headers.has(Header.Heartbeat)) write({ contentType: ContentType.Heartbeat, sequence: sequence++, headers: [[Header.HeartbeatResponse, m.headers.get(Header.Heartbeat)!]] });
    const echoed = read.u64(m, Header.HeartbeatResponse);
    if (echoed !== undefined) {
      lastEchoAt = clock();
      latencyMs = Math.max(0, lastEchoAt - Number(echoed));
    }
    if (m.contentType === ContentType.Heartbeat) return;
    if (m.contentType === ContentType.Latency && options.answerLatency) {
      const reflected = m.headers.get(Header.Reflected);
      write({ contentType: ContentType.Result, sequence: sequence++, headers: [[Header.ReplyFor, encode.i32(m.sequence)], [Header.ResultSuccess, encode.bool(true)], ...(reflected ? [[Header.Reflected, reflected] as [number, Buffer]] : [])] });
      return;
    }
    const answers = replyFor(m);
    if (answers !== undefined) {
      const waiter = waiters.get(answers);
      if (waiter) {
        waiters.delete(answers);
        clearTimeout(waiter.timer);
        waiter.resolve(m);
        return;
      }
      // A reply nobody waits for (its request timed out): dropped, unless the message is itself a request kind.
      if (m.contentType === ContentType.Result) {
        stats.repliesDropped++;
        return;
      }
    }
    for (const handler of messageHandlers) handler(m);
  }

  function onData(chunk: Buffer): void {
    stats.bytesIn += chunk.length;
    let messages: Message[];
    try {
      messages = decoder.push(chunk);
    } catch (error) {
      if (!(error instanceof ChannelProtocolError)) throw error;
      if (error.code === 'BAD_MAGIC') stream.write(UNKNOWN_VERSION_REPLY);
      options.onProtocolError?.(error);
      close(error.message, error);
      return;
    }
    for (const m of messages) {
      if (closed) return;
      try {
        dispatch(m);
      } catch (error) {
        close(`a handler failed: ${(error as Error).message}`, error as Error);
        return;
      }
    }
  }

  // Bytes that came with the Hello are read once the caller has attached its handlers (it does so in the same turn
  // it gets the channel), and before any later bytes: this tick is queued before the one resume() queues to
  // deliver what the stream buffered meanwhile. A peer that sends ahead of the Hello's answer loses nothing.
  const initial = start.initial;
  if (initial && initial.length > 0) process.nextTick(() => onData(initial));
  stream.on('data', onData);
  stream.resume();
  stream.once('end', () => close('the peer closed the connection'));
  stream.once('close', () => close('the connection closed'));
  stream.on('error', (error: Error) => close(error.message, error));

  if (options.heartbeat) {
    const hb = options.heartbeat;
    // While the peer heartbeats this side (and so proves the link both ways), this side sends its own only every
    // third interval, to keep its own latency figure fresh: a controller with a thousand routers then handles a third
    // fewer heartbeat messages, and either side still notices a silent peer by the time nothing was heard.
    timers.push(
      setInterval(() => {
        const now = clock();
        if (now - lastPeerHeartbeatAt < hb.sendIntervalMs && now - lastEchoAt < 3 * hb.sendIntervalMs) return;
        write({ contentType: ContentType.Heartbeat, sequence: sequence++, headers: [[Header.Heartbeat, encode.u64(now)]] });
      }, hb.sendIntervalMs),
    );
    for (const timer of timers) timer.unref();
    const stopChecking = everyInterval(hb.checkIntervalMs, () => {
      const silent = clock() - lastHeardAt;
      if (silent > hb.closeUnresponsiveMs) close(`unresponsive: nothing heard from the peer for ${(silent / 1000).toFixed(1)}s`);
    });
    closeHandlers.unshift(stopChecking);
  }

  const channel: Channel = {
    id,
    send: (m) => write({ ...m, sequence: sequence++ }),
    request(m, timeoutMs) {
      if (closed) return Promise.reject(new ChannelRequestError(`the channel is closed: ${closeInfo?.reason ?? 'closed'}`));
      const seq = sequence++;
      return new Promise<Message>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(seq);
          reject(new ChannelRequestError(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        waiters.set(seq, { resolve, reject, timer });
        write({ ...m, sequence: seq });
      });
    },
    reply(to, m) {
      const headers = new Map(m.headers instanceof Map ? m.headers : [...(m.headers ?? [])]);
      headers.set(Header.ReplyFor, encode.i32(to.sequence));
      return write({ ...m, headers, sequence: sequence++ });
    },
    onMessage: (handler) => void messageHandlers.push(handler),
    onClose(handler) {
      if (closeInfo) handler(closeInfo);
      else closeHandlers.push(handler);
    },
    close: (reason) => close(reason ?? 'closed by this side'),
    get closed() {
      return closed;
    },
    get latencyMs() {
      return latencyMs;
    },
    stats,
    drained: () => (stream.writableNeedDrain ? new Promise<void>((resolve) => stream.once('drain', () => resolve())) : Promise.resolve()),
  };

  return channel;
}

/** Reads the first frame of a stream under the Hello's caps; the bytes after it are returned for the channel. */
function readFirstFrame(stream: Duplex, timeoutMs: number, firstLimits: FrameLimits, what: string): Promise<{ message: Message; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const decoder = createFrameDecoder(DEFAULT_LIMITS, firstLimits);
    let head = Buffer.alloc(0);
    let received = 0;
    let settled = false;
    const finish = (error: Error | undefined, value?: { message: Message; rest: Buffer }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData);
      // Held until the channel takes the stream: bytes arriving meanwhile (a heartbeat) must wait, not be dropped.
      stream.pause();
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (error) reject(error);
      else resolve(value!);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (head.length < FRAME_HEADER_BYTES) head = Buffer.concat([head, chunk.subarray(0, FRAME_HEADER_BYTES - head.length)]);
      try {
        // The decoder checks the magic and the Hello's caps as bytes arrive; once the first frame is whole, the bytes
        // after it belong to the channel. They are the end of this chunk: every byte before it was part of the first
        // frame, still incomplete then, so nothing but its head needs keeping here.
        const [first] = decoder.push(chunk);
        if (!first) return;
        const total = FRAME_HEADER_BYTES + head.readInt32LE(12) + head.readInt32LE(16);
        finish(undefined, { message: first, rest: chunk.subarray(chunk.length - (received - total)) });
      } catch (error) {
        if (error instanceof ChannelProtocolError && error.code === 'BAD_MAGIC') stream.write(UNKNOWN_VERSION_REPLY);
        finish(error as Error);
      }
    };
    const onEnd = () => finish(new ChannelRequestError(`the peer closed the connection before ${what}`));
    const onError = (error: Error) => finish(error);
    const timer = setTimeout(() => finish(new ChannelRequestError(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/**
 * Says Hello on a connected stream and waits for the answer. Resolves with the open channel and the answer; rejects
 * with HelloRefusedError (the peer's sentence) when it refused, ChannelRequestError on timeout or close.
 */
export async function dialHello(stream: Duplex, hello: OutboundMessage, options: ChannelOptions & { timeoutMs: number }): Promise<{ channel: Channel; reply: Message }> {
  stream.write(encodeMessage({ ...hello, contentType: ContentType.Hello, sequence: 1 }));
  let first: { message: Message; rest: Buffer };
  try {
    first = await readFirstFrame(stream, options.timeoutMs, DEFAULT_LIMITS, 'an answer to the Hello');
  } catch (error) {
    stream.destroy();
    throw error;
  }
  const { message, rest } = first;
  if (message.contentType !== ContentType.Result || replyFor(message) !== 1) {
    stream.destroy();
    throw new ChannelRequestError(`expected a Result answering the Hello, got content type ${message.contentType}`);
  }
  if (read.bool(message, Header.ResultSuccess) !== true) {
    stream.destroy();
    throw new HelloRefusedError(message.body.toString('utf8') || 'the Hello was refused', message);
  }
  return { channel: openChannel(stream, options, { initial: rest, firstSequence: 2 }), reply: message };
}

export interface PendingHello {
  hello: Message;
  /** Answers Result(success) with header 1 = the Hello's sequence and opens the channel. */
  accept(reply: OutboundMessage): Channel;
  /** Answers Result(failure) with `reason` as body and ends the stream. */
  reject(reason: string, headers?: Map<number, Buffer>): void;
}

/** Reads a peer's Hello (under the Hello caps). A first frame that is not a Hello is refused and the stream ended. */
export async function acceptHello(stream: Duplex, options: ChannelOptions & { timeoutMs: number }): Promise<PendingHello> {
  let first: { message: Message; rest: Buffer };
  try {
    first = await readFirstFrame(stream, options.timeoutMs, HELLO_LIMITS, 'a Hello');
  } catch (error) {
    stream.destroy();
    throw error;
  }
  const { message: hello, rest } = first;
  const answer = (success: boolean, m: OutboundMessage) => {
    const headers = new Map(m.headers instanceof Map ? m.headers : [...(m.headers ?? [])]);
    headers.set(Header.ReplyFor, encode.i32(hello.sequence));
    headers.set(Header.ResultSuccess, encode.bool(success));
    // The reference answers a Hello with sequence -1.
    stream.write(encodeMessage({ contentType: ContentType.Result, sequence: -1, headers, body: m.body ?? Buffer.alloc(0) }));
  };
  if (hello.contentType !== ContentType.Hello) {
    answer(false, { contentType: ContentType.Result, body: `expected Hello, got content type ${hello.contentType}` });
    stream.end();
    throw new ChannelRequestError(`expected Hello, got content type ${hello.contentType}`);
  }
  return {
    hello,
    accept(reply) {
      answer(true, reply);
      return openChannel(stream, options, { initial: rest, firstSequence: 1 });
    },
    reject(reason, headers) {
      answer(false, { contentType: ContentType.Result, ...(headers ? { headers } : {}), body: reason });
      stream.end();
      setTimeout(() => stream.destroy(), 1_000).unref();
    },
  };
}
