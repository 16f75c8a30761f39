/**
 * The one shape of every control-protocol answer: the channel's Result (content type 2) with ResultSuccess, and
 * either the answer's JSON body or, on refusal, the error code header and a sentence (catalogue.ts). Both sides read
 * and write answers only through these functions.
 */
import { ContentType, Header, type Message, type OutboundMessage } from '../channel/message.js';
import { ControlHeader, type ControlErrorCode } from './catalogue.js';
import { ControlBodyError, readBody, writeBody } from './bodies.js';
import type { Static, TSchema } from 'typebox';

const TRUE = Buffer.from([1]);
const FALSE = Buffer.from([0]);

/** A successful answer carrying `body` as JSON. */
export function success(body: unknown): OutboundMessage {
  return { contentType: ContentType.Result, headers: new Map([[Header.ResultSuccess, TRUE]]), body: writeBody(body) };
}

/** A refusal: the code for programs, the sentence for people. */
export function refusal(code: ControlErrorCode, sentence: string): OutboundMessage {
  return {
    contentType: ContentType.Result,
    headers: new Map([
      [Header.ResultSuccess, FALSE],
      [ControlHeader.ErrorCode, Buffer.from(code, 'utf8')],
    ]),
    body: Buffer.from(sentence, 'utf8'),
  };
}

/** A refused request, as the requesting side sees it. */
export class ControlRefusal extends Error {
  override readonly name = 'ControlRefusal';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads an answer: its body against `schema` when it succeeded; throws ControlRefusal with the peer's code and
 * sentence when it refused, ControlBodyError when it is not an answer at all.
 */
export function readAnswer<S extends TSchema>(message: Message, schema: S, what: string): Static<S> {
  if (message.contentType !== ContentType.Result) throw new ControlBodyError(`${what}: expected a Result, got content type ${message.contentType}`);
  const ok = message.headers.get(Header.ResultSuccess)?.[0] === 1;
  if (!ok) {
    const code = message.headers.get(ControlHeader.ErrorCode)?.toString('utf8') ?? 'UNKNOWN';
    throw new ControlRefusal(code, message.body.toString('utf8').slice(0, 1_000) || `${what} was refused`);
  }
  return readBody(schema, message.body, what);
}
