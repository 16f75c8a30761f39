/**
 * The `application/json` body parser of every listener (Edge APIs and the OIDC provider alike), in place of
 * Fastify's: the body must be UTF-8 (RFC 8259 §8.1) and pass the strict checks of shared/safe-json.ts (nesting at
 * most MAX_JSON_DEPTH deep, no duplicate keys, no `__proto__`/`constructor` keys, well-formed strings without
 * U+0000, finite numbers). A refusal is 400 COULD_NOT_PARSE_BODY saying what and where.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import { JsonTextError, parseStrictJson } from '../../shared/safe-json.js';

/** Deepest nesting of arrays and objects a JSON body may have; the APIs' own bodies nest a few levels at most. */
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The value of a JSON body; ApiError COULD_NOT_PARSE_BODY when it is refused. */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body is empty but its content type says JSON' });
  let text: string;
  try {
    // A leading byte order mark is dropped, as RFC 8259 §8.1 allows a parser to.
    text = utf8.decode(body);
  } catch {
    throw new ApiError('COULD_NOT_PARSE_BODY', { message: 'The body is not valid UTF-8, which JSON requires (RFC 8259 §8.1)' });
  }
  try {
    return parseStrictJson(text, { maxDepth: MAX_JSON_DEPTH });
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    // `field` dotted as validation errors name fields (`roleAttributes.0`); `position` 1-based, in characters.
    throw new ApiError('COULD_NOT_PARSE_BODY', {
      message: `The body could not be parsed: ${error.message}`,
      cause: { field: error.path.join('.') || 'body', reason: error.message, position: error.position + 1, in: 'body' },
    });
  }
}

/** Replaces Fastify's JSON parser on `app` (and so on every plugin registered inside it). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Routes that say so read an empty body as none (route.ts `emptyJsonBody`).
    if ((body as Buffer).length === 0 && (request.routeOptions.config as { emptyJsonBody?: boolean } | undefined)?.emptyJsonBody === true) {
      done(null, undefined);
      return;
    }
    let value: unknown;
    try {
      value = parseJsonBody(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });
}
