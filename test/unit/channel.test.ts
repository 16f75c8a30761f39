/**
 * The channel (src/channel/): the v2 frame byte for byte as the public C SDK builds its Hello, decoding whatever way
 * the stream is split, a seeded fuzz of the decoder (only ChannelProtocolError, never an allocation past the caps),
 * bad magic answered as the reference does, and the runtime over real loopback sockets: Hello, request/reply,
 * heartbeat round trips, an unresponsive peer closed, close rejecting what waits.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import {
  acceptHello,
  ChannelProtocolError,
  ChannelRequestError,
  createFrameDecoder,
  dialHello,
  encode,
  encodeMessage,
  Header,
  HelloRefusedError,
  read,
  UNKNOWN_VERSION_REPLY,
  type Message,
} from '../../src/channel/index.js';

/** Deterministic bytes from a seed (SHA-256 in counter mode), so a failing fuzz case can be run again. */
function seeded(seed: string) {
  let counter = 0;
  let pool = Buffer.alloc(0);
  const bytes = (n: number) => {
    while (pool.length < n) pool = Buffer.concat([pool, createHash('sha256').update(`${seed}:${counter++}`).digest()]);
    const out = pool.subarray(0, n);
    pool = pool.subarray(n);
    return Buffer.from(out);
  };
  return { bytes, int: (max: number) => bytes(4).readUInt32LE(0) % max };
}

describe('channel frames', () => {
  it('encodes the C SDK Hello exactly as its bytes are laid out', () => {
    const headers: Array<[number, Buffer]> = [
      [1002, Buffer.from('token')],
      [1023, encode.bool(true)],
      [Header.IsGrouped, encode.bool(true)],
      [Header.IsFirstGroupConnection, encode.bool(true)],
      [Header.Type, Buffer.from('edge.default')],
    ];
    const body = Buffer.from('ziti-sdk-c[0]@host');
    const frame = encodeMessage({ contentType: 0, sequence: 1, headers, body });
    const expected = Buffer.concat([
      Buffer.from([3, 6, 9, 12]),
      encode.i32(0),
      encode.i32(1),
      encode.i32(headers.reduce((n, [, v]) => n + 8 + v.length, 0)),
      encode.i32(body.length),
      ...headers.flatMap(([id, v]) => [encode.i32(id), encode.i32(v.length), v]),
      body,
    ]);
    assert.deepEqual(frame, expected);
    const [decoded] = createFrameDecoder().push(frame);
    assert.equal(read.string(decoded!, Header.Type), 'edge.default');
    assert.equal(read.bool(decoded!, 1023), true);
    assert.equal(decoded!.body.toString(), 'ziti-sdk-c[0]@host');
  });

  it('reads integers leniently, as the C SDK does, and absent or empty headers as undefined', () => {
    const m: Message = { contentType: 0, sequence: 0, headers: new Map([[1, Buffer.from([5])], [2, Buffer.alloc(0)], [3, encode.u64(2n ** 40n)]]), body: Buffer.alloc(0) };
    assert.equal(read.u32(m, 1), 5);
    assert.equal(read.bool(m, 2), undefined, 'an empty bool is not false');
    assert.equal(read.u64(m, 3), 2n ** 40n);
    assert.equal(read.u32(m, 9), undefined);
  });

  it('decodes the same frames however the stream is split, byte by byte included', () => {
    const frames = [0, 1, 2].map((i) => encodeMessage({ contentType: 60_786 + i, sequence: i, headers: [[1000, encode.u32(i)]], body: Buffer.alloc(i * 7, i) }));
    const stream = Buffer.concat(frames);
    for (let split = 1; split <= stream.length; split++) {
      const decoder = createFrameDecoder();
      const out: Message[] = [];
      for (let at = 0; at < stream.length; at += split) out.push(...decoder.push(stream.subarray(at, at + split)));
      assert.deepEqual(out.map((m) => [m.contentType, m.sequence, read.u32(m, 1000), m.body.length]), [[60_786, 0, 0, 0], [60_787, 1, 1, 7], [60_788, 2, 2, 14]], `split ${split}`);
      assert.equal(decoder.buffered, 0);
    }
  });

  it('refuses sizes past the caps from the header alone, the first frame under the Hello caps', () => {
    const header = (headers: number, body: number) => Buffer.concat([Buffer.from([3, 6, 9, 12]), encode.i32(0), encode.i32(1), encode.i32(headers), encode.i32(body)]);
    assert.throws(() => createFrameDecoder().push(header(0, 2 ** 31 - 1)), (e: ChannelProtocolError) => e.code === 'FRAME_TOO_LARGE' && /body length 2147483647 exceeds 4194304/.test(e.message));
    assert.throws(() => createFrameDecoder().push(header(-1, 0)), /headers length -1 exceeds/);
    const hello = { maxHeaderBytes: 16_384, maxBodyBytes: 4_192 };
    assert.throws(() => createFrameDecoder(undefined, hello).push(header(0, 4_193)), /body length 4193 exceeds 4192/);
    const bad = Buffer.concat([header(12, 0), encode.i32(7), encode.i32(9), Buffer.alloc(4)]);
    assert.throws(() => createFrameDecoder().push(bad), (e: ChannelProtocolError) => e.code === 'BAD_HEADERS' && /header 7 announces 9 bytes but 4 remain/.test(e.message));
    assert.throws(() => createFrameDecoder().push(Buffer.from('GET ')), (e: ChannelProtocolError) => e.code === 'BAD_MAGIC');
  });

  it('never throws anything but ChannelProtocolError, whatever the bytes (seeded fuzz)', () => {
    const random = seeded('channel-fuzz-1');
    for (let round = 0; round < 2_000; round++) {
      const decoder = createFrameDecoder({ maxHeaderBytes: 256, maxBodyBytes: 1_024 });
      // Half the rounds start from a valid frame with bytes flipped; the others are noise after a valid magic.
      const base = round % 2 === 0
        ? encodeMessage({ contentType: random.int(70_000), sequence: random.int(100), headers: [[random.int(2_000), random.bytes(random.int(40))]], body: random.bytes(random.int(300)) })
        : Buffer.concat([Buffer.from([3, 6, 9, 12]), random.bytes(random.int(400))]);
      for (let flips = random.int(4); flips > 0; flips--) base[random.int(base.length)] = random.int(256);
      try {
        for (const m of decoder.push(base)) {
          assert.ok(m.body.length <= 1_024);
          for (const value of m.headers.values()) assert.ok(value.length <= 256);
        }
      } catch (error) {
        assert.ok(error instanceof ChannelProtocolError, `round ${round}: ${(error as Error).message}`);
      }
    }
  });
});

describe('channel runtime over loopback sockets', () => {
  const servers: Array<{ close(): void }> = [];
  after(() => servers.forEach((s) => s.close()));

  /** A connected pair of sockets. */
  async function pair(): Promise<{ client: Socket; server: Socket }> {
    const server = createServer();
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection');
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    const [socket] = (await accepted) as [Socket];
    return { client, server: socket };
  }

  it('exchanges the Hello, then requests and replies by header 1, and pushes', async () => {
    const { client, server } = await pair();
    const accepting = acceptHello(server, { timeoutMs: 2_000 });
    const dialing = dialHello(client, { contentType: 0, body: 'hello' }, { timeoutMs: 2_000 });
    const pending = await accepting;
    assert.equal(pending.hello.body.toString(), 'hello');
    const serverSide = pending.accept({ contentType: 2, body: 'welcome' });
    const { channel, reply } = await dialing;
    assert.equal(reply.body.toString(), 'welcome');
    assert.equal(reply.sequence, -1, 'the Hello is answered with sequence -1, as the reference does');

    serverSide.onMessage((m) => serverSide.reply(m, { contentType: 2, body: `echo ${m.body}` }));
    const answer = await channel.request({ contentType: 30_060, body: 'ping' }, 2_000);
    assert.equal(answer.body.toString(), 'echo ping');
    const pushed = new Promise<Message>((resolve) => channel.onMessage(resolve));
    serverSide.send({ contentType: 30_011, body: 'revoked' });
    assert.equal((await pushed).body.toString(), 'revoked');

    const waiting = channel.request({ contentType: 30_099, body: 'never answered' }, 60_000);
    serverSide.onMessage(() => undefined);
    channel.close('done');
    await assert.rejects(waiting, (e: Error) => e instanceof ChannelRequestError && /closed before an answer: done/.test(e.message));
  });

  it('delivers messages a peer sent in the same write as its Hello to the handlers attached after accepting', async () => {
    const { client, server } = await pair();
    const accepting = acceptHello(server, { timeoutMs: 2_000 });
    client.write(Buffer.concat([encodeMessage({ contentType: 0, sequence: 1, body: 'hello' }), encodeMessage({ contentType: 60_786, sequence: 2, body: 'sent ahead' })]));
    const channel = (await accepting).accept({ contentType: 2 });
    const first = await new Promise<Message>((resolve) => channel.onMessage(resolve));
    assert.equal(first.body.toString(), 'sent ahead');
    channel.close();
    client.destroy();
  });

  it('rejects a refused Hello with the peer sentence, and answers bad magic with the unknown-version reply', async () => {
    let { client, server } = await pair();
    const accepting = acceptHello(server, { timeoutMs: 2_000 });
    const dialing = dialHello(client, { contentType: 0 }, { timeoutMs: 2_000 });
    (await accepting).reject('router disabled');
    await assert.rejects(dialing, (e: Error) => e instanceof HelloRefusedError && e.message === 'router disabled');

    ({ client, server } = await pair());
    const bad = acceptHello(server, { timeoutMs: 2_000 });
    const received: Buffer[] = [];
    client.on('data', (chunk: Buffer) => received.push(chunk));
    client.write('GET / HTTP/1.1\r\n\r\n');
    await assert.rejects(bad, (e: Error) => e instanceof ChannelProtocolError && e.code === 'BAD_MAGIC');
    await once(client, 'close');
    assert.deepEqual(Buffer.concat(received), UNKNOWN_VERSION_REPLY);
  });

  it('measures heartbeat round trips, and closes a peer that stops answering them', async () => {
    const { client, server } = await pair();
    const heartbeat = { sendIntervalMs: 50, checkIntervalMs: 20, closeUnresponsiveMs: 400 };
    // Only the client checks: the server answers heartbeats (every channel does) but sends none of its own.
    const accepting = acceptHello(server, { timeoutMs: 2_000 });
    const dialing = dialHello(client, { contentType: 0 }, { timeoutMs: 2_000, heartbeat });
    const serverSide = (await accepting).accept({ contentType: 2 });
    const { channel } = await dialing;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(typeof channel.latencyMs, 'number');
    assert.ok(channel.latencyMs! >= 0);

    // The server side stops reading: its echoes stop, and the client closes the channel as unresponsive.
    server.pause();
    const closed = new Promise<string>((resolve) => channel.onClose(({ reason }) => resolve(reason)));
    assert.match(await closed, /^unresponsive: nothing heard from the peer for/);
    serverSide.close();
  });
});
