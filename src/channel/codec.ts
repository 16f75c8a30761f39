/**
 * The channel v2 wire format (reference/edge-router-protocol-facts.md §2): a 20-byte little-endian header — magic
 * `03 06 09 0C`, content type, sequence, headers length, body length — then the headers as `{id, length, bytes}`
 * records and the body. The decoder takes the stream in chunks of any size and refuses, before allocating anything,
 * a frame whose announced sizes pass its caps: a peer that announces a 2 GiB body costs 20 bytes of reading.
 */
import type { Message, OutboundMessage } from './message.js';

export const MAGIC_V2 = Buffer.from([0x03, 0x06, 0x09, 0x0c]);
/** What a listener answers to a frame of unknown magic, before closing: magic `03 06 09 0A`, count 2, versions 1 and 2. */
export const UNKNOWN_VERSION_REPLY = Buffer.from([0x03, 0x06, 0x09, 0x0a, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
export const FRAME_HEADER_BYTES = 20;

export interface FrameLimits {
  maxHeaderBytes: number;
  maxBodyBytes: number;
}

/** Defaults for an open channel; the first frame (a Hello) has the reference's tighter caps. */
export const DEFAULT_LIMITS: FrameLimits = { maxHeaderBytes: 65_536, maxBodyBytes: 4 * 1_048_576 };
export const HELLO_LIMITS: FrameLimits = { maxHeaderBytes: 16_384, maxBodyBytes: 4_192 };

export type ChannelProtocolErrorCode = 'BAD_MAGIC' | 'FRAME_TOO_LARGE' | 'BAD_HEADERS';

/** Input that is not the channel protocol; `message` says what was wrong. */
export class ChannelProtocolError extends Error {
  override readonly name = 'ChannelProtocolError';
  constructor(
    readonly code: ChannelProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function headerEntries(headers: OutboundMessage['headers']): Array<[number, Buffer]> {
  if (!headers) return [];
  return headers instanceof Map ? [...headers.entries()] : [...headers];
}

/** One frame in one Buffer. */
export function encodeMessage(m: OutboundMessage & { sequence: number }): Buffer {
  return encodeFrame(m, true)[0];
}

/**
 * One frame as [head] (the body copied in) or, with `joinBody` false, [head, body] with the body not copied: a
 * relay writes megabytes of Data bodies, and copying each into a new frame buffer only to write it costs a copy per hop.
 */
export function encodeFrame(m: OutboundMessage & { sequence: number }, joinBody: boolean): [Buffer] | [Buffer, Buffer] {
  const entries = headerEntries(m.headers);
  const body = m.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(m.body) ? m.body : Buffer.from(m.body, 'utf8');
  let headersLength = 0;
  for (const [, value] of entries) headersLength += 8 + value.length;
  if (!joinBody) {
    const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES + headersLength);
    writeHead(head, m, entries, headersLength, body.length);
    return [head, body];
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + headersLength + body.length);
  const at = writeHead(frame, m, entries, headersLength, body.length);
  body.copy(frame, at);
  return [frame];
}

function writeHead(frame: Buffer, m: { contentType: number; sequence: number }, entries: Array<[number, Buffer]>, headersLength: number, bodyLength: number): number {
  MAGIC_V2.copy(frame, 0);
  frame.writeInt32LE(m.contentType, 4);
  frame.writeInt32LE(m.sequence, 8);
  frame.writeInt32LE(headersLength, 12);
  frame.writeInt32LE(bodyLength, 16);
  let at = FRAME_HEADER_BYTES;
  for (const [id, value] of entries) {
    frame.writeInt32LE(id, at);
    frame.writeInt32LE(value.length, at + 4);
    value.copy(frame, at + 8);
    at += 8 + value.length;
  }
  return at;
}

/** Reads the header records of one frame; a record running past the block is refused. */
function decodeHeaders(block: Buffer): Map<number, Buffer> {
  const headers = new Map<number, Buffer>();
  let at = 0;
  while (at < block.length) {
    if (block.length - at < 8) throw new ChannelProtocolError('BAD_HEADERS', `a header record at byte ${at} is cut short (${block.length - at} bytes left of 8)`);
    const id = block.readInt32LE(at);
    const length = block.readInt32LE(at + 4);
    if (length < 0 || length > block.length - at - 8) {
      throw new ChannelProtocolError('BAD_HEADERS', `header ${id} announces ${length} bytes but ${block.length - at - 8} remain in the headers`);
    }
    // A copy: the frame's buffer is not kept alive by one small header.
    headers.set(id, Buffer.from(block.subarray(at + 8, at + 8 + length)));
    at += 8 + length;
  }
  return headers;
}

/** Chunks below this size are staged (see createFrameDecoder); TLS records from a normal sender are 16 KiB. */
const SMALL_CHUNK_BYTES = 4_096;
const MAX_STAGE_BYTES = 65_536;

export interface FrameDecoder {
  /** Takes the next bytes of the stream; returns the frames they complete. Throws ChannelProtocolError. */
  push(chunk: Buffer): Message[];
  /** Bytes held waiting for the rest of a frame. */
  readonly buffered: number;
}

/**
 * @example
 * const decoder = createFrameDecoder(DEFAULT_LIMITS, HELLO_LIMITS);
 * socket.on('data', (chunk) => decoder.push(chunk).forEach(handle));
 */
export function createFrameDecoder(limits: FrameLimits = DEFAULT_LIMITS, firstMessage?: FrameLimits): FrameDecoder {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let frames = 0;
  // The size of the frame being read once its header is known: chunks are joined only when it is complete, so a
  // large body arriving in many chunks is copied once, not once per chunk.
  let needed = 0;
  // Small chunks of a frame still incomplete are copied into one staging buffer instead of being kept one Buffer
  // each: a peer sending one-byte TLS records would otherwise make every byte it sends cost a Buffer object (about
  // a hundred bytes of heap). The staging buffer is never larger than what arrived so far (so it doubles), never
  // sized by what a head announces.
  let stage: Buffer | undefined;
  let staged = 0;
  const flushStage = () => {
    if (stage && staged > 0) pending.push(stage.subarray(0, staged));
    stage = undefined;
    staged = 0;
  };

  return {
    get buffered() {
      return pendingBytes;
    },
    push(chunk) {
      if (chunk.length === 0) return [];
      if (needed > 0 && chunk.length < SMALL_CHUNK_BYTES && pendingBytes + chunk.length < needed) {
        if (!stage || staged + chunk.length > stage.length) {
          flushStage();
          stage = Buffer.allocUnsafe(Math.min(Math.max(pendingBytes, chunk.length), MAX_STAGE_BYTES, needed - pendingBytes));
        }
        chunk.copy(stage, staged);
        staged += chunk.length;
        pendingBytes += chunk.length;
        return [];
      }
      flushStage();
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (needed > 0 && pendingBytes < needed) return [];
      const out: Message[] = [];
      let data = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      let at = 0;
      for (;;) {
        const left = data.length - at;
        // Bad magic is told as soon as its bytes arrive, not when 20 have.
        const magicSeen = Math.min(left, 4);
        for (let i = 0; i < magicSeen; i++) {
          if (data[at + i] !== MAGIC_V2[i]) throw new ChannelProtocolError('BAD_MAGIC', `not a channel v2 frame: the magic is ${data.subarray(at, at + magicSeen).toString('hex')}, expected 0306090c`);
        }
        needed = 0;
        if (left < FRAME_HEADER_BYTES) break;
        const caps = frames === 0 && firstMessage ? firstMessage : limits;
        const headersLength = data.readInt32LE(at + 12);
        const bodyLength = data.readInt32LE(at + 16);
        if (headersLength < 0 || headersLength > caps.maxHeaderBytes) throw new ChannelProtocolError('FRAME_TOO_LARGE', `headers length ${headersLength} exceeds ${caps.maxHeaderBytes}`);
        if (bodyLength < 0 || bodyLength > caps.maxBodyBytes) throw new ChannelProtocolError('FRAME_TOO_LARGE', `body length ${bodyLength} exceeds ${caps.maxBodyBytes}`);
        const total = FRAME_HEADER_BYTES + headersLength + bodyLength;
        if (left < total) {
          needed = total;
          break;
        }
        const headersStart = at + FRAME_HEADER_BYTES;
        out.push({
          contentType: data.readInt32LE(at + 4),
          sequence: data.readInt32LE(at + 8),
          headers: decodeHeaders(data.subarray(headersStart, headersStart + headersLength)),
          // A small body is copied so that it does not keep a large read buffer alive; a large one is most of that
          // buffer anyway and is passed on as it is.
          body: bodyLength >= 16_384 ? data.subarray(headersStart + headersLength, at + total) : Buffer.from(data.subarray(headersStart + headersLength, at + total)),
        });
        frames++;
        at += total;
      }
      if (at === data.length) {
        pending = [];
        pendingBytes = 0;
      } else {
        data = at === 0 ? data : data.subarray(at);
        pending = [data];
        pendingBytes = data.length;
      }
      return out;
    },
  };
}
