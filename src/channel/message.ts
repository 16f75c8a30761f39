/**
 * The channel's message model (channel "v2", the framing of the public SDKs' edge protocol and of svc's control
 * protocol; docs/control-protocol.md §2, reference/edge-router-protocol-facts.md §2): a content type, a sequence,
 * headers by numeric id, a body. Header values are bytes; the typed readers below are lenient in the way the C SDK
 * is (an integer read from as many little-endian bytes as there are, up to its width) and answer undefined for a
 * header that is absent or empty, never throwing on what a peer sent.
 */

export interface Message {
  contentType: number;
  sequence: number;
  headers: Map<number, Buffer>;
  body: Buffer;
}

/** What a sender gives; the channel assigns the sequence. */
export interface OutboundMessage {
  contentType: number;
  headers?: Map<number, Buffer> | Iterable<[number, Buffer]>;
  body?: Buffer | string;
}

/** The channel's own content types. */
export const ContentType = { Hello: 0, Ping: 1, Result: 2, Latency: 3, LatencyResponse: 4, Heartbeat: 5, Raw: 6 } as const;

/** The channel's own header ids (0-127); 128 is the one header a reply copies from its request. */
export const Header = {
  ConnectionId: 0,
  ReplyFor: 1,
  ResultSuccess: 2,
  HelloRouterAdvertisements: 3,
  HelloVersion: 4,
  Heartbeat: 5,
  HeartbeatResponse: 6,
  Type: 7,
  Id: 8,
  IsGrouped: 9,
  GroupSecret: 10,
  IsFirstGroupConnection: 11,
  UnderlayType: 12,
  HelloRejectClass: 13,
  Reflected: 128,
} as const;

/** Encoders for header values (little-endian integers; a bool is always one byte, as the C SDK reads value[0]). */
export const encode = {
  bool: (value: boolean): Buffer => Buffer.from([value ? 1 : 0]),
  u8: (value: number): Buffer => Buffer.from([value & 0xff]),
  u16(value: number): Buffer {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(value);
    return b;
  },
  i32(value: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    return b;
  },
  u32(value: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value >>> 0);
    return b;
  },
  u64(value: bigint | number): Buffer {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    return b;
  },
  string: (value: string): Buffer => Buffer.from(value, 'utf8'),
};

/** Reads `width` little-endian bytes at most, as many as there are (the C SDK's reading). */
function littleEndian(value: Buffer, width: number): bigint {
  let result = 0n;
  const n = Math.min(value.length, width);
  for (let i = n - 1; i >= 0; i--) result = (result << 8n) | BigInt(value[i]!);
  return result;
}

/** Typed readers of a message's headers; undefined for a header absent or empty. */
export const read = {
  bool(m: Message, id: number): boolean | undefined {
    const v = m.headers.get(id);
    return v === undefined || v.length === 0 ? undefined : v[0] !== 0;
  },
  u16(m: Message, id: number): number | undefined {
    const v = m.headers.get(id);
    return v === undefined || v.length === 0 ? undefined : Number(littleEndian(v, 2));
  },
  u32(m: Message, id: number): number | undefined {
    const v = m.headers.get(id);
    if (v === undefined || v.length === 0) return undefined;
    // The usual four bytes read directly: this runs for every Data message relayed (its connection id).
    return v.length >= 4 ? v.readUInt32LE(0) : Number(littleEndian(v, 4));
  },
  i32(m: Message, id: number): number | undefined {
    const v = m.headers.get(id);
    if (v === undefined || v.length === 0) return undefined;
    return v.length >= 4 ? v.readInt32LE(0) : Number(littleEndian(v, 4));
  },
  u64(m: Message, id: number): bigint | undefined {
    const v = m.headers.get(id);
    return v === undefined || v.length === 0 ? undefined : littleEndian(v, 8);
  },
  string(m: Message, id: number): string | undefined {
    return m.headers.get(id)?.toString('utf8');
  },
  bytes(m: Message, id: number): Buffer | undefined {
    return m.headers.get(id);
  },
};

/** The sequence a reply answers (header 1), or undefined for a message that is no reply. */
export const replyFor = (m: Message): number | undefined => read.i32(m, Header.ReplyFor);
