/**
 * Everything else a request carries costs time linear in its length whatever it holds (issue 12, point 1): the
 * Authorization and Accept headers (16 KiB of request head, 64 KiB at the socket), OAuth forms and JSON bodies (1 MiB),
 * the JWT header read before verification, and redirect URIs. Each parser gets the longest input that can reach it in
 * its worst shapes, timed as a ratio to an ordinary input of the same length measured in the same run. Also the
 * behaviour of what was rewritten for it: reading bearer tokens and parsing forms.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { presentedCredentials } from '../../src/http/kit/credentials.js';
import { SOCKET_MAX_HEADER_BYTES } from '../../src/http/kit/server-errors.js';
import { JSON_TYPE, PEM_TYPE, preferredMediaType } from '../../src/http/edge-client/media-types.js';
import { MAX_TOKEN_PARAM, parseForm } from '../../src/oidc/params.js';
import { postLogoutUriAllowed, redirectUriAllowed } from '../../src/policy/redirect-uri-match.js';
import { parseStrictJson } from '../../src/shared/safe-json.js';
import { MAX_TOKEN_LENGTH } from '../../src/services/external-jwt/external-jwt.js';
import { fill, LINEAR_BOUND, fillWith, ratioSummary, timeRatios, tooSlow } from '../helpers/timing.js';

const MIB = 1024 * 1024;
const HEAD = 16 * 1024;
const BOUND = LINEAR_BOUND;

/** A request whose raw headers are the given name/value pairs, as Node hands them over, on a socket without TLS. */
const withHeaders = (...pairs: string[]) => ({ raw: { rawHeaders: pairs, socket: {} } }) as unknown as FastifyRequest;
const bearerTokens = (...values: string[]) => presentedCredentials(withHeaders(...values.flatMap((v) => ['Authorization', v]))).bearerTokens;

describe('linear time: credential headers', () => {
  for (const size of [HEAD, SOCKET_MAX_HEADER_BYTES]) {
    it(`reads ${size / 1024} KiB of Authorization in a small multiple of the time of one long bearer token`, async (t) => {
      const read = (...pairs: string[]) => () => presentedCredentials(withHeaders(...pairs));
      // One token as long as the header allows; ordinary items would stop the scan after three tokens.
      const normal = `Bearer ${fill('eyJhbGciOiJFUzI1NiJ9.', size - 7)}`;
      assert.equal(bearerTokens(normal).length, 1, 'the ordinary header carries its token');
      const ratios = await timeRatios(read('Authorization', normal), {
        commas: read('Authorization', ','.repeat(size)),
        'white space': read('Authorization', `${' '.repeat(size - 1)}x`),
        'Bearer then white space': read('Authorization', `Bearer${' '.repeat(size - 6)}`),
        'a token followed by a word': read('Authorization', `Bearer ${'a'.repeat(size - 10)} b`),
        'empty bearer items': read('Authorization', fill('Bearer ,', size)),
        'words without scheme': read('Authorization', fill('a b ', size)),
        'many headers': read(...Array.from({ length: size / 24 }, (_, i) => (i % 2 ? 'Bearer x y' : 'Authorization'))),
        'a long session header': read('svc-session', `${' '.repeat(size - 1)}x`),
      });
      t.diagnostic(ratioSummary(ratios));
      assert.equal(tooSlow(ratios, BOUND), '', 'worst-case Authorization headers took longer than allowed');
    });
  }

  it('reads an Accept header of 16 KiB in a small multiple of the time of ordinary media ranges', async (t) => {
    const offered = [JSON_TYPE, PEM_TYPE];
    const accept = (value: string) => () => preferredMediaType(value, offered);
    const normal = `${fillWith((i) => `application/vnd.example-${i}+json;q=0.${i % 10}`, HEAD - 32, ', ')}, application/json;q=0.5`;
    assert.equal(preferredMediaType(normal, offered), JSON_TYPE, 'the ordinary header is read to its end');
    const ratios = await timeRatios(accept(normal), {
      commas: accept(','.repeat(HEAD)),
      semicolons: accept(`a/b${';'.repeat(HEAD - 3)}`),
      slashes: accept('/'.repeat(HEAD)),
      'white space': accept(`${' '.repeat(HEAD - 1)}x`),
      'many q parameters': accept(`a/b${fill(';q=1', HEAD - 3)}`),
    });
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case Accept headers took longer than allowed');
  });
});

describe('reading bearer tokens', () => {
  it('reads what the old split-and-match reader read, on generated values', () => {
    const reference = (value: string) =>
      value
        .split(',')
        .map((part) => /^\s*Bearer\s+(\S+)\s*$/i.exec(part)?.[1])
        .filter((token): token is string => token !== undefined)
        .slice(0, 3);
    const pieces = ['Bearer', 'bEARER', ' ', ' ', ',', ',', 'a', 'b.c', '\t', '\u00a0', '\u2003', 'Basic', 'x,y', 'Bearer '];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 3000; i++) {
      const value = Array.from({ length: next() % 10 }, () => pieces[next() % pieces.length]).join('');
      assert.deepEqual(bearerTokens(value), reference(value), JSON.stringify(value));
    }
  });

  it('takes `Bearer <token>` items of a comma-separated value, in any case, with white space around', () => {
    assert.deepEqual(bearerTokens('Bearer a'), ['a']);
    assert.deepEqual(bearerTokens(' bearer  a.b.c ,BEARER\tx-y , Basic Zm9v'), ['a.b.c', 'x-y']);
    assert.deepEqual(bearerTokens('Basic Zm9v, Bearer t'), ['t']);
    assert.deepEqual(bearerTokens('Bearer a', 'Bearer b, Bearer c'), ['a', 'b', 'c']);
  });

  it('skips items that are not exactly a scheme and one token', () => {
    assert.deepEqual(bearerTokens('Bearer', 'Bearer ', 'Bearera', 'Bearer a b', 'xBearer a', 'Bearer\u00a0', ',,,'), []);
    assert.deepEqual(bearerTokens('Bearer a b, Bearer c'), ['c']);
  });

  it('counts white space as JavaScript does, including no-break and Unicode spaces', () => {
    assert.deepEqual(bearerTokens('Bearer\u00a0a\u2003'), ['a']);
    assert.deepEqual(bearerTokens('Bearer\u0085a'), [], 'U+0085 is not white space in JavaScript, so it is part of the scheme');
  });

  it('keeps the first three tokens of all Authorization headers', () => {
    assert.deepEqual(bearerTokens('Bearer a, Bearer b', 'Bearer c, Bearer d', 'Bearer e'), ['a', 'b', 'c']);
  });

  it('takes the first svc-session header, trimmed', () => {
    assert.equal(presentedCredentials(withHeaders('svc-session', '  t1 ', 'SVC-Session', 't2')).sessionToken, 't1');
  });

  it('reads each request of a connection afresh: a changed Authorization value gives its own tokens', () => {
    // The tokens a connection sent last are kept with the value they came from (credentials.ts); only the same value
    // again may give them back, however the value changes between requests.
    const socket = {};
    const on = (...values: string[]) =>
      presentedCredentials({ raw: { rawHeaders: values.flatMap((v) => ['Authorization', v]), socket } } as unknown as FastifyRequest).bearerTokens;
    const first = on('Bearer a.b.c');
    assert.deepEqual(first, ['a.b.c']);
    assert.deepEqual(on('Bearer a.b.c'), ['a.b.c']);
    assert.deepEqual(on('Bearer a.b.d'), ['a.b.d'], 'one character changed');
    assert.deepEqual(on('Bearer a.b.c, Bearer x'), ['a.b.c', 'x']);
    assert.deepEqual(on('Basic Zm9v'), []);
    assert.deepEqual(on('Bearer a.b.c', 'Bearer a.b.c', 'Bearer y', 'Bearer z'), ['a.b.c', 'a.b.c', 'y'], 'still the first three of all headers');
    assert.deepEqual(on('Bearer a.b.c'), ['a.b.c']);
    first.push('changed by a caller');
    assert.deepEqual(on('Bearer a.b.c'), ['a.b.c'], 'what a caller does with the tokens it was given changes nothing kept');
    // Another connection sending the same value reads it itself.
    assert.deepEqual(bearerTokens('Bearer a.b.c'), ['a.b.c']);
  });
});

describe('linear time: bodies and what is read from them before verification', () => {
  it('parses a 1 MiB form in a small multiple of the time of one with distinct names', async (t) => {
    const normal = fillWith((i) => `name${i}=value${i}`, MIB, '&');
    assert.equal(parseForm(normal).name1, 'value1', 'the ordinary form parses');
    const ratios = await timeRatios(() => parseForm(normal), {
      'one name repeated': () => parseForm(fill('a=&', MIB)),
      'one name repeated with values': () => parseForm(fill('grant_type=x&', MIB)),
      ampersands: () => parseForm('&'.repeat(MIB)),
      'percent escapes': () => parseForm(`a=${fill('%41', MIB - 2)}`),
      'equals signs': () => parseForm('='.repeat(MIB)),
    }, 3);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case forms took longer than allowed');
  });

  it('gives a repeated form name all its values in order, and a single one as a string', () => {
    assert.deepEqual(parseForm('a=1&b=2&a=3&a=4'), { a: ['1', '3', '4'], b: '2' });
  });

  it('checks a 1 MiB JSON body in a small multiple of the time of an ordinary one', async (t) => {
    const check = (text: string) => () => parseStrictJson(text, { maxDepth: 32 });
    // The only ordinary body that large: an identity with many tags and role attributes.
    const tags = fillWith((i) => `"tag-${i}":"value-${i}"`, MIB / 2, ',');
    const attributes = fillWith((i) => `"attribute-${i}"`, MIB / 2 - 64, ',');
    const normal = `{"name":"edge-router","isAdmin":false,"tags":{${tags}},"roleAttributes":[${attributes}]}`;
    const keys = `{${fillWith((i) => `"k${i}":1`, MIB - 2, ',')}}`;
    assert.ok(parseStrictJson(normal, { maxDepth: 32 }), 'the ordinary body parses');
    const ratios = await timeRatios(check(normal), {
      'opening brackets': check('['.repeat(MIB)),
      'many keys in one object': check(keys),
      'escapes in one string': check(`"${fill('\\u0041', MIB - 2)}"`),
      'surrogate pairs': check(`"${fill('\\ud83d\\ude00', MIB - 2)}"`),
      'one long number': check(`1${'0'.repeat(MIB - 1)}`),
      'many numbers': check(`[${fill('1,', MIB - 3)}1]`),
      'white space': check(`${' '.repeat(MIB - 1)}1`),
      'an unterminated string': check(`"${'a'.repeat(MIB - 1)}`),
    }, 3);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case JSON bodies took longer than allowed');
  });

  it(`reads the header and claims of a ${MAX_TOKEN_LENGTH}-character JWT in a small multiple of an ordinary one`, async (t) => {
    const size = MAX_TOKEN_LENGTH;
    const part = (json: string) => Buffer.from(json).toString('base64url');
    const read = (token: string) => () => {
      decodeProtectedHeader(token);
      decodeJwt(token);
    };
    // A large ordinary token: an identity provider's access token listing the groups of its subject.
    const groups = fillWith((i) => `"group-${i}"`, Math.floor(((size - 200) * 3) / 4) - 40, ',');
    const normal = `${part('{"alg":"ES256","kid":"k"}')}.${part(`{"sub":"someone","groups":[${groups}]}`)}.${'A'.repeat(86)}`;
    const nested = (length: number) => part(`{"a":${'['.repeat(length)}${']'.repeat(length)}}`);
    assert.ok(normal.length <= size && decodeJwt(normal).sub === 'someone', 'the ordinary token is read');
    const ratios = await timeRatios(read(normal), {
      'a deeply nested header': read(`${nested(Math.floor((size * 3) / 8) - 8)}.e30.`),
      'deeply nested claims': read(`${part('{"alg":"ES256"}')}.${nested(Math.floor((size * 3) / 8) - 16)}.`),
      'dots only': read('.'.repeat(size)),
      'no dots': read('A'.repeat(size)),
      'not base64url': read(`${'!'.repeat(size - 2)}..`),
    });
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case JWTs took longer than allowed');
  });

  it(`matches a ${MAX_TOKEN_PARAM}-character redirect URI in a small multiple of an ordinary one`, async (t) => {
    const size = MAX_TOKEN_PARAM;
    const patterns = [{ text: 'https://app.example.com:*/cb', scheme: 'https', host: 'app.example.com', port: '*' as const, path: '/cb' }];
    const match = (uri: string) => () => redirectUriAllowed(uri, patterns);
    const normal = `https://app.example.com:8443/${fill('segment/', size - 30)}`;
    assert.ok(postLogoutUriAllowed(normal, patterns), 'the ordinary URI is read (it matches in all but its path)');
    const ratios = await timeRatios(match(normal), {
      'question marks then a fragment': match(`https://h/${'?'.repeat(size - 11)}#`),
      'a long scheme': match('a'.repeat(size)),
      'a long host then a fragment': match(`a://${'h'.repeat(size - 5)}#`),
      'a long host then a bracket': match(`a://${'h'.repeat(size - 5)}[`),
      'a long path then a fragment': match(`a://h/${'p'.repeat(size - 7)}#`),
      brackets: match(`a://[${']'.repeat(size - 5)}`),
      colons: match(`a://h${':'.repeat(size - 5)}`),
      'a long port': match(`a://h:${'1'.repeat(size - 6)}`),
    });
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case redirect URIs took longer than allowed');
  });
});
