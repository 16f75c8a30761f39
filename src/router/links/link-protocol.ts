/**
 * The link protocol between two svc routers (docs/link-protocol.md, decision 0069): the channel framing over mutual
 * TLS with ALPN `svc-link`, and the three messages a circuit needs on a link. A Route is a request that opens a
 * circuit hop by hop along a path the controller chose; Payload carries one edge Data's body and flags; CircuitClose
 * ends a circuit with a reason. Circuit numbers are per link: the dialing side of the link numbers its circuits odd,
 * the accepting side even, so both may open circuits without agreeing first.
 */
import { Type, type Static } from 'typebox';
import { encode, read, type Message, type OutboundMessage } from '../../channel/message.js';
import { EdgeHeader } from '../../channel/edge-protocol.js';
import type { Payload } from '../fabric/circuit-end.js';

export const LINK_ALPN = 'svc-link';

export const LinkType = {
  /** request: open a circuit along `path` (body: RouteBody); answered by a Result. */
  Route: 31000,
  /** one payload of a circuit: header Circuit, Flags when set, the passed-through headers; body = the bytes. */
  Payload: 31001,
  /** a circuit ended: header Circuit, body = the reason. */
  CircuitClose: 31002,
} as const;

export const LinkHeader = {
  /** string, in the Hello and its answer: the sender's router id. */
  RouterId: 31010,
  /** string, in the Hello: the link id the dialing router chose. */
  LinkId: 31011,
  /** u32: the circuit's number on this link. */
  Circuit: 31012,
} as const;

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Bytes = (maxLength: number) => Type.Optional(Type.String({ maxLength, pattern: '^[A-Za-z0-9+/=]*$' }));

/** What a Route carries: the rest of the path (this router first), the terminator, and who dials. */
export const RouteBodySchema = Type.Object(
  {
    circuitId: Id,
    serviceId: Id,
    terminator: Type.Object({ id: Id, binding: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
    path: Type.Array(Id, { minItems: 1, maxItems: 16 }),
    links: Type.Array(Id, { maxItems: 15 }),
    /** How long the rest of the path may take to answer (each hop gives the next a little less). */
    timeoutMs: Type.Integer({ minimum: 1, maximum: 120_000 }),
    dialer: Type.Object(
      {
        identityId: Id,
        identityName: Type.String({ maxLength: 512 }),
        callerId: Bytes(2_048),
        publicKey: Bytes(64),
        connectionMarker: Bytes(128),
        appData: Bytes(65_536),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type RouteBody = Static<typeof RouteBodySchema>;

/** The answer of a successful Route: the far end's key-exchange public key, when it encrypts end to end. */
export const RouteAnswerSchema = Type.Object({ publicKey: Bytes(64) }, { additionalProperties: false });
export type RouteAnswer = Static<typeof RouteAnswerSchema>;

/** Headers of an edge Data that are not passed along a circuit: the per-channel ones and the flags (kept apart). */
const LOCAL_HEADERS = new Set<number>([EdgeHeader.ConnId, EdgeHeader.Seq, 1 /* ReplyFor */, EdgeHeader.Flags, LinkHeader.Circuit]);

/** The payload an edge Data or a link Payload carries. */
export function payloadOf(m: Message): Payload {
  const extra: Array<[number, Buffer]> = [];
  for (const [id, value] of m.headers) if (!LOCAL_HEADERS.has(id)) extra.push([id, value]);
  return { body: m.body, flags: read.u32(m, EdgeHeader.Flags) ?? 0, extra };
}

/** The headers that carry a payload's flags and passed-through headers after `first` (the connection or circuit). */
export function payloadHeaders(first: [number, Buffer], payload: Payload): Array<[number, Buffer]> {
  const headers: Array<[number, Buffer]> = [first, ...payload.extra];
  if (payload.flags !== 0) headers.push([EdgeHeader.Flags, encode.u32(payload.flags)]);
  return headers;
}

export function circuitPayload(circuit: number, payload: Payload): OutboundMessage {
  return { contentType: LinkType.Payload, headers: payloadHeaders([LinkHeader.Circuit, encode.u32(circuit)], payload), body: payload.body };
}
