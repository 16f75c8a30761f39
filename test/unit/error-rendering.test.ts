/**
 * Rendering errors whatever they carry (errors/excerpt.ts, http/kit/errors.ts, the OIDC error shape): values are
 * echoed as short escaped excerpts, texts are printable and bounded, deep and cyclic causes render without throwing
 * or overflowing, and the server's own refusals made before any route is known are answered in the envelope.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/errors/api-error.js';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';
import { excerpt, printable, renderCause, TEXT_EXCERPT_CHARS, VALUE_EXCERPT_CHARS } from '../../src/errors/excerpt.js';
import { storeValueError } from '../../src/errors/store-value.js';
import { errorBody, quoteHeaderValue } from '../../src/http/kit/errors.js';
import { clientApiError, clientErrorHandler } from '../../src/http/kit/server-errors.js';
import { oauthDescription } from '../../src/oidc/errors.js';

function deepArray(depth: number): unknown[] {
  const root: unknown[] = [];
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: unknown[] = [];
    at.push(next);
    at = next;
  }
  return root;
}

describe('error rendering', () => {
  it('echoes a rejected string as at most 64 characters and an ellipsis', () => {
    assert.equal(excerpt('abc'), 'abc');
    const long = excerpt('x'.repeat(1024 * 1024)) as string;
    assert.equal(long, `${'x'.repeat(VALUE_EXCERPT_CHARS)}…`);
  });

  it('escapes control, invisible and bidi characters and lone surrogates, and keeps letters of any script', () => {
    assert.equal(printable('a\u0000b\u001b[31m\u202e\u200b\ud800\\'), 'a\\u0000b\\u001b[31m\\u202e\\u200b\\ud800\\\\');
    assert.equal(printable('Zoë 名前 🙂'), 'Zoë 名前 🙂');
    // A cut never splits a surrogate pair.
    assert.equal(printable('🙂🙂🙂', 3), '🙂…');
  });

  it('echoes a structure as a bounded excerpt of its JSON, however deep or cyclic', () => {
    assert.equal(excerpt({ a: [1, 'b', null] }), '{"a":[1,"b",null]}');
    const deep = excerpt(deepArray(200_000)) as string;
    assert.equal(deep, `${'['.repeat(VALUE_EXCERPT_CHARS)}…`);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    assert.match(excerpt(cyclic) as string, /^\{"name":"loop","self":\{"name":"loop","self":.*…$/);
    assert.equal(excerpt(Number.POSITIVE_INFINITY), 'Infinity');
    assert.equal(excerpt(42), 42);
    assert.equal(excerpt(false), false);
  });

  it('says a value is unprintable rather than fail when reading it throws', () => {
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('boom'); } });
    assert.equal(excerpt(hostile), '[unprintable value]');
  });

  it('renders a cause with bounded keys, items, depth and texts, and every value as an excerpt', () => {
    const cause = {
      field: 'f'.repeat(10_000),
      value: deepArray(100_000),
      nested: { value: 'v'.repeat(1000), deeper: { deeper: { deeper: { x: 1 } } } },
      list: Array.from({ length: 1000 }, (_, i) => ({ id: i })),
      ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])),
    };
    const rendered = renderCause(cause);
    assert.equal(rendered.field, `${'f'.repeat(TEXT_EXCERPT_CHARS)}…`);
    assert.equal(rendered.value, `${'['.repeat(VALUE_EXCERPT_CHARS)}…`);
    assert.equal((rendered.nested as Record<string, unknown>).value, `${'v'.repeat(VALUE_EXCERPT_CHARS)}…`);
    assert.equal(typeof ((rendered.nested as any).deeper.deeper), 'string');
    assert.equal((rendered.list as unknown[]).length, 16);
    assert.equal(Object.keys(rendered).length, 16);
    assert.ok(JSON.stringify(rendered).length < 4096);
  });

  it('keeps a __proto__ key of a cause an ordinary key of the rendering', () => {
    const cause = JSON.parse('{"__proto__":{"polluted":true},"field":"x"}');
    const rendered = renderCause(cause);
    assert.equal(Object.getPrototypeOf(rendered), Object.prototype);
    assert.equal((rendered as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(rendered), ['__proto__', 'field']);
  });

  it('renders an error whose message and cause hold a whole request body in a few kilobytes', () => {
    const body = `{"name":${JSON.stringify('\u202e'.repeat(300_000))}}`;
    const error = new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${body}`, cause: { field: body, reason: body, value: JSON.parse(body) } });
    const rendered = JSON.stringify(errorBody(error, 'r-1'));
    assert.ok(rendered.length < 8192, `${rendered.length} characters`);
    assert.ok(!rendered.includes('\u202e'));
  });

  it('quotes header values and OAuth descriptions within their alphabets', () => {
    assert.equal(quoteHeaderValue('a"b\\c\u00e9\n'), '"a\\"b\\\\c\\u00e9\\u000a"');
    assert.equal(oauthDescription('say "hi" \\ to Zoë\u0000'), "say 'hi' / to Zo??");
    assert.equal(oauthDescription('must be a form (RFC 6749 §3.2)…'), 'must be a form (RFC 6749 section 3.2)...');
    assert.match(oauthDescription('x'.repeat(100_000)), /^x{512}\.\.\.$/);
  });

  it('maps a PostgreSQL refusal of a value to 400 and leaves other errors alone', () => {
    const refused = storeValueError(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', severity: 'ERROR' }));
    assert.equal(refused?.code, 'COULD_NOT_VALIDATE');
    assert.equal(storeValueError(Object.assign(new Error('index row size 9000 exceeds maximum'), { code: '54000', severity: 'ERROR' }))?.status, 400);
    assert.equal(storeValueError(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })), undefined);
    assert.equal(storeValueError(Object.assign(new Error('deadlock'), { code: '40P01', severity: 'ERROR' })), undefined);
  });
});

describe('errors the HTTP layer raises before any route is known', () => {
  /** A socket stand-in that records what is written and whether it was ended or destroyed. */
  function fakeSocket() {
    const socket = new PassThrough();
    const written: string[] = [];
    socket.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    return { socket, written: () => written.join('') };
  }
  const handler = clientErrorHandler(() => ({ server: 'svc-controller/test', 'svc-instance-id': 'instance-1' }), () => 'request-1');

  for (const [code, status, errorCode] of [
    ['HPE_HEADER_OVERFLOW', 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'COULD_NOT_PARSE_REQUEST'],
  ] as const) {
    it(`answers ${code} with ${status} ${errorCode} in the envelope and closes the connection`, async () => {
      const { socket, written } = fakeSocket();
      handler(Object.assign(new Error(code), { code }), socket);
      await new Promise((resolve) => setImmediate(resolve));
      const text = written();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(head, /\r\nconnection: close\r\n/);
      assert.match(head, /\r\nsvc-request-id: request-1\r\n/);
      assert.match(head, /\r\nsvc-instance-id: instance-1/);
      assert.match(head, new RegExp(`\\r\\ncontent-length: ${Buffer.byteLength(body)}\\r\\n`));
      const parsed = JSON.parse(body);
      assert.deepEqual(Object.keys(parsed), ['error', 'meta']);
      assert.equal(parsed.error.code, errorCode);
      assert.equal(parsed.error.requestId, 'request-1');
      assert.equal(ERROR_CATALOGUE[errorCode].status, status);
      assert.equal(socket.writableEnded, true);
    });
  }

  it('answers a socket once however often its parser fails again', async () => {
    const { socket, written } = fakeSocket();
    const overflow = Object.assign(new Error('overflow'), { code: 'HPE_HEADER_OVERFLOW' });
    handler(overflow, socket);
    handler(overflow, socket);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written().match(/HTTP\/1\.1 431/g)?.length, 1);
  });

  it('closes without an answer a connection whose error is not HTTP (a TLS handshake timeout, a reset)', () => {
    for (const code of ['ERR_TLS_HANDSHAKE_TIMEOUT', 'ECONNRESET', undefined]) {
      const { socket } = fakeSocket();
      handler(Object.assign(new Error('not http'), { code }), socket);
      assert.equal(socket.destroyed, true, String(code));
      assert.equal(socket.writableEnded, false, String(code));
    }
  });

  it('names the parser error code, and only when it looks like one', () => {
    assert.match(clientApiError({ code: 'HPE_INVALID_METHOD' }).message, /\(HPE_INVALID_METHOD\)$/);
    assert.equal(clientApiError({ code: 'weird <code>' }).message, 'The request is not well-formed HTTP');
  });
});
