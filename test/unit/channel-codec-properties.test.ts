/**
 * Properties of the channel decoder (src/channel/codec.ts; reference/edge-router-protocol-facts.md §2), issue 42
 * must-have 2, over thousands of generated cases: what is encoded decodes to the same message; the same stream decodes
 * to the same messages however it is cut into chunks; a stream cut short yields its whole frames and waits for the
 * rest; and whatever bytes arrive (noise, flipped bits, lengths past the caps, a wrong magic) the decoder throws
 * nothing but ChannelProtocolError, never allocates more than the bytes it was given (a header announcing 2 GiB costs
 * its 20 bytes), and a wrong magic is answered with the unknown-version reply the facts describe.
 *
 * The cases come from a seeded generator written here (xoshiro128**): the same seed gives the same cases, and every
 * failure names the seed and the case. SVC_CODEC_SEED=<text> runs another set; the default seed is fixed so the suite
 * is repeatable.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { after, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  acceptHello,
  ChannelProtocolError,
  createFrameDecoder,
  DEFAULT_LIMITS,
  encodeFrame,
  encodeMessage,
  HELLO_LIMITS,
  MAGIC_V2,
  UNKNOWN_VERSION_REPLY,
  type FrameLimits,
  type Message,
} from '../../src/channel/index.js';

const SEED = process.env.SVC_CODEC_SEED || 'channel-codec-properties-1';
/** Caps small enough that thousands of cases stay fast, large enough to cross the decoder's 16 KiB body threshold. */
const CAPS: FrameLimits = { maxHeaderBytes: 600, maxBodyBytes: 40_000 };
const TWO_GIB = 2 ** 31 - 1;
const PROTOCOL_ERROR_CODES = new Set(['BAD_MAGIC', 'FRAME_TOO_LARGE', 'BAD_HEADERS']);

/** A seeded generator (xoshiro128**, state from SHA-256 of the seed and a stream name). */
function generator(stream: string) {
  const digest = createHash('sha256').update(`${SEED}/${stream}`).digest();
  const s = [0, 4, 8, 12].map((at) => digest.readUInt32LE(at) || 1);
  const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;
  const next = (): number => {
    const result = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return result;
  };
  const int = (n: number): number => (n <= 1 ? 0 : Math.floor((next() / 2 ** 32) * n));
  const r = {
    next,
    /** Uniform in [0, n). */
    int,
    /** Uniform in [lo, hi]. */
    between: (lo: number, hi: number): number => lo + int(hi - lo + 1),
    int32: (): number => next() | 0,
    chance: (p: number): boolean => next() / 2 ** 32 < p,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
    /** `n` bytes of an AES-128-CTR keystream keyed from the generator: the same bytes for the same seed, at native speed. */
    bytes(n: number): Buffer {
      if (n <= 64) return Buffer.from(Array.from({ length: n }, () => next() & 0xff));
      const keyAndIv = Buffer.allocUnsafe(32);
      for (let at = 0; at < 32; at += 4) keyAndIv.writeUInt32LE(next(), at);
      return createCipheriv('aes-128-ctr', keyAndIv.subarray(0, 16), keyAndIv.subarray(16)).update(Buffer.alloc(n));
    },
    /** A length up to `max`, most often small, sometimes the extremes and the sizes around the 16 KiB threshold. */
    size(max: number): number {
      const choice = int(10);
      const size = choice < 4 ? int(17) : choice < 6 ? int(300) : choice < 8 ? int(max + 1) : choice === 8 ? max : r.pick([16_383, 16_384, 16_385]);
      return Math.min(size, max);
    },
  };
  return r;
}
type Generator = ReturnType<typeof generator>;

/** A message whose headers and body fit `caps`; header ids are unique (duplicates have their own property). */
function randomMessage(r: Generator, caps: FrameLimits = CAPS): Message {
  const headers = new Map<number, Buffer>();
  let headerBytes = 0;
  for (let n = r.int(7); n > 0; n--) {
    const room = caps.maxHeaderBytes - headerBytes - 8;
    if (room < 0) break;
    // Edge header ids are in the thousands; any int32 is legal on the wire.
    const id = r.chance(0.6) ? r.int(1_100) : r.int32();
    if (headers.has(id)) continue;
    const value = r.bytes(Math.min(room, r.size(80)));
    headers.set(id, value);
    headerBytes += 8 + value.length;
  }
  return {
    contentType: r.chance(0.3) ? r.pick([0, 2, 3, 60_783, 60_786, 2 ** 31 - 1, -(2 ** 31)]) : r.int32(),
    sequence: r.chance(0.2) ? r.pick([-1, 0, 1, 2 ** 31 - 1]) : r.int32(),
    headers,
    body: r.bytes(r.size(caps.maxBodyBytes)),
  };
}

/** 1 to `most` random messages, their frames and the frames end to end. */
function randomStream(r: Generator, most: number) {
  const messages = Array.from({ length: 1 + r.int(most) }, () => randomMessage(r));
  const frames = messages.map((m) => encodeMessage(m));
  return { messages, frames, stream: Buffer.concat(frames) };
}

/** Cuts `bytes` into chunks: whole, byte by byte, or random sizes with the odd empty chunk. */
function randomChunks(r: Generator, bytes: Buffer): Buffer[] {
  const style = r.int(4);
  if (style === 0) return [bytes];
  if (style === 1 && bytes.length <= 3_000) return [...bytes].map((b) => Buffer.from([b]));
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    // Small chunks stay small on a short stream; on a long one, a few hundred of them at most.
    const n = r.chance(0.05) ? 0 : 1 + r.size(style === 2 ? Math.max(64, Math.ceil(bytes.length / 200)) : 20_000);
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

/** A message with the fields compared; headers as sorted [id, hex] pairs. */
function comparable(m: Message) {
  return {
    contentType: m.contentType,
    sequence: m.sequence,
    headers: [...m.headers].sort(([a], [b]) => a - b).map(([id, v]) => [id, v.toString('hex')]),
    bodyLength: m.body.length,
    bodyHash: createHash('sha256').update(m.body).digest('hex'),
  };
}
const sameMessages = (actual: Message[], expected: Message[], where: string) => assert.deepEqual(actual.map(comparable), expected.map(comparable), where);

/** Pushes chunks in order; returns the messages, or the error thrown and at which chunk. */
function decodeAll(chunks: Buffer[], limits: FrameLimits = CAPS, first?: FrameLimits) {
  const decoder = createFrameDecoder(limits, first);
  const messages: Message[] = [];
  for (let i = 0; i < chunks.length; i++) {
    try {
      messages.push(...decoder.push(chunks[i]!));
    } catch (error) {
      return { messages, error, chunk: i, decoder };
    }
  }
  return { messages, error: undefined, chunk: -1, decoder };
}

/** A frame head announcing the given lengths, and nothing after it. */
function frameHead(headersLength: number, bodyLength: number, magic: Buffer = MAGIC_V2): Buffer {
  const head = Buffer.alloc(20);
  magic.copy(head, 0);
  head.writeInt32LE(60_786, 4);
  head.writeInt32LE(7, 8);
  head.writeInt32LE(headersLength | 0, 12);
  head.writeInt32LE(bodyLength | 0, 16);
  return head;
}

type Allocator = (...args: unknown[]) => Buffer;
/**
 * Runs `task` noting the size of every Buffer allocated meanwhile (alloc, allocUnsafe, allocUnsafeSlow, concat, from),
 * and how much array-buffer memory the process holds after it: allocations past the caps show in either.
 */
function allocationsDuring(task: () => void): { largest: number; arrayBufferGrowth: number } {
  const table = Buffer as unknown as Record<'alloc' | 'allocUnsafe' | 'allocUnsafeSlow' | 'concat' | 'from', Allocator>;
  const names = ['alloc', 'allocUnsafe', 'allocUnsafeSlow', 'concat', 'from'] as const;
  const originals = Object.fromEntries(names.map((name) => [name, table[name]])) as Record<(typeof names)[number], Allocator>;
  let largest = 0;
  for (const name of names) {
    table[name] = (...args: unknown[]) => {
      // The size asked for when it is a number; else (concat, from) the size of what was made.
      if (typeof args[0] === 'number') largest = Math.max(largest, args[0]);
      const made = originals[name].apply(Buffer, args);
      largest = Math.max(largest, made.length);
      return made;
    };
  }
  const before = process.memoryUsage().arrayBuffers;
  try {
    task();
  } finally {
    for (const name of names) table[name] = originals[name];
  }
  return { largest, arrayBufferGrowth: process.memoryUsage().arrayBuffers - before };
}

const isProtocolError = (error: unknown): error is ChannelProtocolError =>
  error instanceof ChannelProtocolError && PROTOCOL_ERROR_CODES.has(error.code) && error.message.length > 0;

describe('channel decoder properties (seeded)', () => {
  it(`decodes every encoded message to the same message, in one buffer or as head and body (1,500 cases, seed ${SEED})`, () => {
    const r = generator('round-trip');
    for (let i = 0; i < 1_500; i++) {
      const m = randomMessage(r);
      const frame = encodeMessage({ ...m, sequence: m.sequence });
      const [head, body] = encodeFrame({ ...m, sequence: m.sequence }, false) as [Buffer, Buffer];
      assert.deepEqual(Buffer.concat([head, body]), frame, `case ${i}: head + body is the one-buffer frame`);
      assert.equal(frame.length, 20 + [...m.headers.values()].reduce((n, v) => n + 8 + v.length, 0) + m.body.length, `case ${i}: frame size`);
      const decoder = createFrameDecoder(CAPS);
      sameMessages(decoder.push(frame), [m], `seed ${SEED}, case ${i}`);
      assert.equal(decoder.buffered, 0, `case ${i}: nothing left over`);
    }
  });

  it('decodes a stream of frames to the same messages however it is cut into chunks, holding only the unfinished frame (600 streams)', () => {
    const r = generator('splits');
    for (let i = 0; i < 600; i++) {
      const { messages, frames, stream } = randomStream(r, 6);
      const decoder = createFrameDecoder(CAPS);
      const out: Message[] = [];
      let pushed = 0;
      for (const chunk of randomChunks(r, stream)) {
        out.push(...decoder.push(chunk));
        pushed += chunk.length;
        const consumed = frames.slice(0, out.length).reduce((n, f) => n + f.length, 0);
        assert.equal(decoder.buffered, pushed - consumed, `case ${i}: the decoder holds exactly the bytes of frames not yet whole`);
      }
      sameMessages(out, messages, `seed ${SEED}, case ${i}`);
      assert.equal(decoder.buffered, 0, `case ${i}`);
    }
  });

  it('yields the whole frames of a stream cut short, waits for the rest, and finishes when it comes (600 cuts)', () => {
    const r = generator('truncation');
    for (let i = 0; i < 600; i++) {
      const { messages, frames, stream } = randomStream(r, 4);
      const cut = r.int(stream.length);
      let whole = 0;
      let end = 0;
      while (whole < frames.length && end + frames[whole]!.length <= cut) end += frames[whole++]!.length;
      const first = decodeAll(randomChunks(r, stream.subarray(0, cut)));
      assert.equal(first.error, undefined, `case ${i}: a short stream is no error`);
      sameMessages(first.messages, messages.slice(0, whole), `seed ${SEED}, case ${i}: the frames before the cut`);
      assert.equal(first.decoder.buffered, cut - end, `case ${i}: the unfinished frame is held`);
      const rest = first.decoder.push(stream.subarray(cut));
      sameMessages([...first.messages, ...rest], messages, `seed ${SEED}, case ${i}: after the rest arrived`);
    }
  });

  it('keeps the last of repeated header ids, as the reference does, and leaves the pushed bytes and earlier messages untouched', () => {
    const r = generator('duplicates');
    for (let i = 0; i < 500; i++) {
      const id = r.int(2_000);
      const values = Array.from({ length: 2 + r.int(3) }, () => r.bytes(r.int(20)));
      const m = randomMessage(r);
      const frame = encodeMessage({ contentType: 60_786, sequence: i, headers: values.map((v): [number, Buffer] => [id, v]), body: m.body });
      const copy = Buffer.from(frame);
      const decoder = createFrameDecoder(CAPS);
      const [decoded] = decoder.push(frame);
      assert.deepEqual(decoded!.headers.get(id), values.at(-1), `case ${i}`);
      assert.deepEqual(frame, copy, `case ${i}: the decoder does not write into what it was given`);
      const bodyBefore = Buffer.from(decoded!.body);
      decoder.push(encodeMessage({ ...randomMessage(r), sequence: 1 }));
      assert.deepEqual(decoded!.body, bodyBefore, `case ${i}: a later push does not change an earlier message`);
    }
  });

  it('applies the Hello caps to the first frame only (600 cases)', () => {
    const r = generator('hello-caps');
    for (let i = 0; i < 600; i++) {
      const hello = randomMessage(r, HELLO_LIMITS);
      const later = randomMessage(r, CAPS);
      const both = decodeAll(randomChunks(r, Buffer.concat([encodeMessage(hello), encodeMessage(later)])), CAPS, HELLO_LIMITS);
      assert.equal(both.error, undefined, `case ${i}`);
      sameMessages(both.messages, [hello, later], `seed ${SEED}, case ${i}`);
      // The same large frame first is refused under the Hello's caps.
      if (later.body.length > HELLO_LIMITS.maxBodyBytes) {
        const refused = decodeAll(randomChunks(r, encodeMessage(later)), CAPS, HELLO_LIMITS);
        assert.ok(refused.error instanceof ChannelProtocolError && refused.error.code === 'FRAME_TOO_LARGE', `case ${i}: ${String(refused.error)}`);
        assert.match(refused.error.message, new RegExp(`body length ${later.body.length} exceeds ${HELLO_LIMITS.maxBodyBytes}`));
      }
    }
  });

  it('refuses a length past the caps (or negative) as soon as the 20-byte head is whole, after the frames before it, naming the length and the cap (1,000 cases)', () => {
    const r = generator('oversized');
    for (let i = 0; i < 1_000; i++) {
      const before = Array.from({ length: r.int(3) }, () => randomMessage(r));
      const which = r.pick(['headers', 'body'] as const);
      const cap = which === 'headers' ? CAPS.maxHeaderBytes : CAPS.maxBodyBytes;
      const bad = r.pick([cap + 1, r.between(cap + 1, TWO_GIB), TWO_GIB, -1, -(2 ** 31), r.between(-(2 ** 31), -1)]);
      const head = which === 'headers' ? frameHead(bad, 0) : frameHead(0, bad);
      const prefix = Buffer.concat(before.map((m) => encodeMessage(m)));
      // Everything but the head's last byte: no error yet, since the length is not known.
      const waiting = decodeAll(randomChunks(r, Buffer.concat([prefix, head.subarray(0, 19)])));
      assert.equal(waiting.error, undefined, `case ${i}: 19 bytes of head are no error`);
      sameMessages(waiting.messages, before, `seed ${SEED}, case ${i}`);
      assert.throws(
        () => waiting.decoder.push(head.subarray(19)),
        (e: unknown) => e instanceof ChannelProtocolError && e.code === 'FRAME_TOO_LARGE' && e.message === `${which} length ${bad} exceeds ${cap}`,
        `seed ${SEED}, case ${i}: ${which} ${bad}`,
      );
    }
  });

  it('allocates nothing near what a head announces: 2 GiB of headers or body costs the 20 bytes read (under the default, Hello and test caps)', () => {
    for (const [name, limits, first] of [['default', DEFAULT_LIMITS, undefined], ['hello', DEFAULT_LIMITS, HELLO_LIMITS], ['test', CAPS, undefined]] as const) {
      for (const head of [frameHead(0, TWO_GIB), frameHead(TWO_GIB, 0), frameHead(TWO_GIB, TWO_GIB), frameHead(0, 2 ** 31), frameHead(0, (limits.maxBodyBytes + 1) | 0)]) {
        let thrown: unknown;
        const cost = allocationsDuring(() => {
          try {
            createFrameDecoder(limits, first).push(head);
          } catch (error) {
            thrown = error;
          }
        });
        assert.ok(thrown instanceof ChannelProtocolError && thrown.code === 'FRAME_TOO_LARGE', `${name}: ${String(thrown)}`);
        assert.ok(cost.largest <= 20, `${name} caps: the largest buffer made was ${cost.largest} bytes`);
        assert.ok(cost.arrayBufferGrowth < 1_048_576, `${name} caps: array-buffer memory grew by ${cost.arrayBufferGrowth} bytes`);
      }
    }
    // Positive control: a head announcing exactly the default caps is accepted and waits, still allocating nothing
    // beyond what arrived, and a frame that size decodes once its bytes are there.
    const decoder = createFrameDecoder(DEFAULT_LIMITS);
    const atCaps = allocationsDuring(() => assert.deepEqual(decoder.push(frameHead(DEFAULT_LIMITS.maxHeaderBytes, DEFAULT_LIMITS.maxBodyBytes)), []));
    assert.ok(atCaps.largest <= 20, `a head at the caps made a buffer of ${atCaps.largest} bytes`);
    assert.equal(decoder.buffered, 20);
    const big: Message = { contentType: 60_786, sequence: 3, headers: new Map([[1_000, Buffer.alloc(DEFAULT_LIMITS.maxHeaderBytes - 8, 7)]]), body: Buffer.alloc(DEFAULT_LIMITS.maxBodyBytes, 9) };
    sameMessages(createFrameDecoder(DEFAULT_LIMITS).push(encodeMessage(big)), [big], 'a frame at the default caps');
  });

  it('throws only ChannelProtocolError on noise, flipped bytes and truncations, and allocates no more than it was given (2,000 cases)', () => {
    const r = generator('garbage');
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const kind = i % 4;
      let input: Buffer;
      if (kind === 0) input = r.bytes(r.size(2_000));
      else if (kind === 1) input = Buffer.concat([MAGIC_V2, r.bytes(r.size(2_000))]);
      else {
        input = Buffer.concat(Array.from({ length: 1 + r.int(3) }, () => encodeMessage(randomMessage(r))));
        // Flipped bytes, most often in the heads and header records where lengths live.
        for (let flips = 1 + r.int(4); flips > 0; flips--) input[r.chance(0.7) ? r.int(Math.min(input.length, 120)) : r.int(input.length)] = r.int(256);
        if (kind === 3) input = input.subarray(0, r.int(input.length + 1));
      }
      const chunks = randomChunks(r, input);
      let outcome: ReturnType<typeof decodeAll> | undefined;
      const cost = allocationsDuring(() => {
        outcome = decodeAll(chunks);
      });
      const { messages, error } = outcome!;
      if (error !== undefined) {
        assert.ok(isProtocolError(error), `seed ${SEED}, case ${i}: threw ${String(error)}`);
        seen.add(error.code);
      }
      assert.ok(cost.largest <= input.length, `seed ${SEED}, case ${i}: a buffer of ${cost.largest} bytes for ${input.length} bytes of input`);
      for (const m of messages) {
        assert.ok(m.body.length <= CAPS.maxBodyBytes, `case ${i}: body within the cap`);
        assert.ok([...m.headers.values()].reduce((n, v) => n + 8 + v.length, 0) <= CAPS.maxHeaderBytes, `case ${i}: headers within the cap`);
      }
    }
    assert.deepEqual([...seen].sort(), [...PROTOCOL_ERROR_CODES].sort(), 'the cases reached every kind of refusal');
  });

  it('refuses a wrong magic at its first wrong byte, at the start or between frames, naming the bytes seen (1,000 cases)', () => {
    const r = generator('magic');
    const known = [Buffer.from([3, 6, 9, 13]), Buffer.from([3, 6, 9, 10]), Buffer.from('GET '), Buffer.from([0x16, 3, 1, 2]), Buffer.from([3, 6, 9, 11])];
    for (let i = 0; i < 1_000; i++) {
      let magic = i < known.length ? known[i]! : r.bytes(4);
      if (magic.equals(MAGIC_V2)) magic = Buffer.from([3, 6, 9, 13]);
      const wrongAt = [...magic].findIndex((b, k) => b !== MAGIC_V2[k]);
      const before = Array.from({ length: r.int(3) }, () => randomMessage(r));
      const decoder = createFrameDecoder(CAPS);
      const out: Message[] = [];
      for (const chunk of randomChunks(r, Buffer.concat(before.map((m) => encodeMessage(m))))) out.push(...decoder.push(chunk));
      sameMessages(out, before, `case ${i}`);
      // Byte by byte: silent while the bytes still match, refused at the first that does not.
      for (let k = 0; k < wrongAt; k++) assert.deepEqual(decoder.push(magic.subarray(k, k + 1)), [], `case ${i}: byte ${k} still matches`);
      assert.throws(
        () => decoder.push(Buffer.concat([magic.subarray(wrongAt), r.bytes(r.int(30))])),
        (e: unknown) => e instanceof ChannelProtocolError && e.code === 'BAD_MAGIC' && e.message.includes(magic.subarray(0, wrongAt + 1).toString('hex')) && e.message.includes('expected 0306090c'),
        `seed ${SEED}, case ${i}: magic ${magic.toString('hex')}`,
      );
    }
  });
});

describe('the unknown-version reply over a real socket', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  /** The reply as the facts spell it: magic 03 06 09 0A, then little-endian u32 count 2 and versions 1 and 2. */
  const FACTS_REPLY = Buffer.concat([Buffer.from([3, 6, 9, 10]), ...[2, 1, 2].map((n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  })]);

  /** A listener that waits for a Hello on every connection; `next()` resolves with what the next acceptHello settles to. */
  async function helloListener(): Promise<{ port: number; next(): Promise<unknown> }> {
    const settled: Array<Promise<unknown>> = [];
    const waiting: Array<(outcome: Promise<unknown>) => void> = [];
    const server = createServer((socket) => {
      const outcome = acceptHello(socket, { timeoutMs: 5_000 }).then((p) => p.hello, (e: unknown) => e);
      const waiter = waiting.shift();
      if (waiter) waiter(outcome);
      else settled.push(outcome);
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const next = () => settled.shift() ?? new Promise<unknown>((resolve) => waiting.push((outcome) => resolve(outcome)));
    return { port: (server.address() as { port: number }).port, next };
  }

  /** Sends `chunks` one write each; resolves with every byte the listener sent before it closed. */
  async function sendAndCollect(port: number, chunks: Buffer[]): Promise<Buffer> {
    const socket: Socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', () => undefined);
    for (const chunk of chunks) socket.write(chunk);
    await once(socket, 'close');
    return Buffer.concat(received);
  }

  it('is what the facts spell, and a listener answers it to any wrong magic, however it arrives, then closes (24 connections)', async () => {
    assert.deepEqual(UNKNOWN_VERSION_REPLY, FACTS_REPLY);
    const r = generator('socket-magic');
    const { port, next } = await helloListener();
    for (let i = 0; i < 24; i++) {
      let magic = r.bytes(4);
      if (magic.equals(MAGIC_V2)) magic = Buffer.from('GET ');
      const input = Buffer.concat([magic, r.bytes(r.size(500))]);
      const reply = await sendAndCollect(port, randomChunks(r, input).filter((c) => c.length > 0));
      assert.deepEqual(reply, FACTS_REPLY, `seed ${SEED}, connection ${i}: magic ${magic.toString('hex')}`);
      const outcome = await next();
      assert.ok(outcome instanceof ChannelProtocolError && outcome.code === 'BAD_MAGIC', `connection ${i}: ${String(outcome)}`);
    }
    // Positive control: a right magic and a Hello are read, and no reply of that kind is sent.
    const hello = encodeMessage({ contentType: 0, sequence: 1, headers: [[1002, Buffer.from('token')]], body: 'ziti-sdk-c[0]@host' });
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(hello);
    const read = (await next()) as Message;
    assert.equal(read.body.toString(), 'ziti-sdk-c[0]@host');
    socket.destroy();
  });
});

describe('channel decoder memory', () => {
  /** The collector, reached as node:test runs without --expose-gc. */
  const collect = (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();

  it('holds a frame that arrives a byte at a time (one-byte TLS records) in memory close to its bytes, and decodes it whole', () => {
    const r = generator('trickle');
    const body = r.bytes(300_000);
    const frame = encodeMessage({ contentType: 60_786, sequence: 9, headers: [[1_000, Buffer.from([1, 0, 0, 0])]], body });
    const decoder = createFrameDecoder(DEFAULT_LIMITS);
    assert.deepEqual(decoder.push(frame.subarray(0, 40)), []);
    collect();
    const before = process.memoryUsage();
    for (let at = 40; at < frame.length - 1; at++) decoder.push(frame.subarray(at, at + 1));
    collect();
    const after = process.memoryUsage();
    const held = frame.length - 1;
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    assert.equal(decoder.buffered, held);
    // Kept as one Buffer per byte, 300 KB would cost tens of MiB (a Buffer object is ~100 bytes of heap).
    assert.ok(growth < 4 * held, `${held} bytes held cost ${(growth / 1_048_576).toFixed(1)} MiB of heap and array buffers`);
    const [decoded] = decoder.push(frame.subarray(frame.length - 1));
    assert.ok(decoded!.body.equals(body), 'the body decodes as it was sent');
    assert.equal(decoder.buffered, 0);
  });

  it('reads Hellos that arrive a byte at a time without keeping a Buffer per byte, and hands the channel the frame after each', async () => {
    const r = generator('trickled-hello');
    const hello = encodeMessage({ contentType: 0, sequence: 1, headers: [[1002, r.bytes(HELLO_LIMITS.maxHeaderBytes - 8)]], body: r.bytes(HELLO_LIMITS.maxBodyBytes) });
    const after = encodeMessage({ contentType: 60_786, sequence: 2, body: 'next' });
    // Streams whose reads are what the test pushes, and whose writes (the answers) go nowhere; ten of them, so that
    // the memory a Buffer per byte would cost (about 2 MiB a Hello) stands far above the heap's own noise.
    const streams = Array.from({ length: 10 }, () => new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() }));
    const accepting = streams.map((stream) => acceptHello(stream, { timeoutMs: 10_000 }));
    // The streams flow from the next tick on; pushed before that, the bytes would wait in the streams' own buffers.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    const before = process.memoryUsage();
    for (let at = 0; at < hello.length - 1; at++) for (const stream of streams) stream.push(hello.subarray(at, at + 1));
    collect();
    const grown = process.memoryUsage();
    const growth = grown.heapUsed + grown.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    const held = streams.length * (hello.length - 1);
    assert.ok(growth < Math.max(4 * held, 2 * 1_048_576), `${held} bytes of Hellos held cost ${(growth / 1_048_576).toFixed(1)} MiB of heap and array buffers`);
    // Each Hello's last byte arrives with the next frame: each channel starts from exactly that frame.
    for (const stream of streams) stream.push(Buffer.concat([hello.subarray(hello.length - 1), after]));
    for (const pending of await Promise.all(accepting)) {
      assert.ok(pending.hello.body.equals(hello.subarray(hello.length - HELLO_LIMITS.maxBodyBytes)));
      const channel = pending.accept({ contentType: 2 });
      // The frame after the Hello is read in the next tick, once the caller has attached its handlers.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual([channel.stats.messagesIn, channel.stats.bytesIn], [1, after.length]);
      channel.close('done');
    }
  });
});
