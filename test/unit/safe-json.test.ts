/**
 * The strict JSON parser of request bodies (shared/safe-json.ts) and its Fastify adapter (http/kit/json-body.ts):
 * it accepts exactly JSON, and refuses nesting past the limit, duplicate keys, prototype keys, U+0000, unpaired
 * surrogates, numbers past a double and bytes that are not UTF-8, naming what and where, without recursion.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '../../src/errors/api-error.js';
import { MAX_JSON_DEPTH, parseJsonBody } from '../../src/http/kit/json-body.js';
import { describeJsonPath, JsonTextError, parseStrictJson } from '../../src/shared/safe-json.js';

const parse = (text: string, maxDepth = 32) => parseStrictJson(text, { maxDepth });

/** The refusal `text` gets; fails the test when it is accepted. */
function refusal(text: string, maxDepth = 32): JsonTextError {
  try {
    parse(text, maxDepth);
  } catch (error) {
    assert.ok(error instanceof JsonTextError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(text.slice(0, 80))}`);
}

describe('strict JSON for request bodies', () => {
  it('reads every JSON value as JSON.parse does', () => {
    const texts = ['{}', '[]', '0', '-0.5e+3', '1E2', 'true', 'false', 'null', '""', '"a\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"', ' \t\r\n{"a":[1,{"b":null}],"c":"d"} '];
    for (const text of texts) assert.deepEqual(parse(text), JSON.parse(text), text);
  });

  it('refuses what JSON.parse refuses', () => {
    const texts = ['', ' ', '{', '[1,]', '{"a":1,}', '{,}', "{'a':1}", '01', '1.', '.5', '-', '+1', 'NaN', 'nul', 'True', '{"a" 1}', '{"a":1 "b":2}', '"\\x"', '"\\u12"', '"a\tb"', '{} {}', '/* c */{}', '\ufeff{}'];
    for (const text of texts) {
      assert.throws(() => JSON.parse(text), SyntaxError, `JSON.parse accepts ${JSON.stringify(text)}`);
      refusal(text);
    }
  });

  it('refuses nesting one level past the limit, naming where, and accepts the limit itself', () => {
    assert.deepEqual(parse(`${'['.repeat(32)}${']'.repeat(32)}`), JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`));
    const error = refusal(`{"tags":${'['.repeat(32)}${']'.repeat(32)}}`);
    assert.match(error.message, /nests deeper than 32 levels at \$\.tags\[0\]/);
    assert.deepEqual(error.path.slice(0, 2), ['tags', 0]);
  });

  it('refuses half a million nested arrays (a whole 1 MiB body of them) without running out of stack', () => {
    const depth = 512 * 1024;
    assert.match(refusal(`${'['.repeat(depth)}${']'.repeat(depth)}`).message, /nests deeper than 32 levels/);
    assert.match(refusal('{"a":'.repeat(200_000)).message, /nests deeper than 32 levels/);
  });

  it('refuses a duplicate key at any depth, also when one spelling uses an escape', () => {
    assert.deepEqual(refusal('{"isAdmin":false,"isAdmin":true}').path, ['isAdmin']);
    assert.deepEqual(refusal('{"a":[0,{"b":1,"\\u0062":2}]}').path, ['a', 1, 'b']);
    assert.match(refusal('{"a":[0,{"b":1,"b":2}]}').message, /duplicate key at \$\.a\[1\]\.b/);
    // The same name in two different objects is not a duplicate.
    assert.deepEqual(parse('{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}'), { a: { x: 1 }, b: { x: 1 }, c: [{ x: 1 }, { x: 2 }] });
  });

  it('refuses __proto__ and constructor as keys anywhere, however spelled', () => {
    for (const text of ['{"__proto__":{"isAdmin":true}}', '{"a":[{"__proto__":1}]}', '{"\\u005f_proto__":{}}', '{"constructor":{"prototype":{}}}', '{"tags":{"constructor":"x"}}']) {
      assert.match(refusal(text).message, /the key '(__proto__|constructor)' is not accepted/, text);
    }
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  it('refuses U+0000 and unpaired surrogates in strings and keys, and accepts a surrogate pair', () => {
    for (const text of ['"a\\u0000b"', '{"\\u0000":1}', '"\\ud800"', '"\\ud800x"', '"\\ud800\\u0041"', '"\\udc00"', '"x\ud800"', '"\udc00"']) refusal(text);
    assert.equal(parse('"\\ud83d\\ude00 \ud83d\ude00"'), '😀 😀');
  });

  it('refuses a number a double cannot hold rather than reading it as Infinity', () => {
    for (const text of ['1e400', '-1e400', '[1e309]']) assert.match(refusal(text).message, /too large to represent/);
    assert.equal(parse('1e-400'), 0);
    assert.equal(parse('123456789012345678901234567890'), 1.2345678901234568e29);
  });

  it('says where a syntax error is, as a 1-based character and a path', () => {
    const error = refusal('{"a":[1,2,}');
    assert.match(error.message, /unexpected '\}' at character 11 \(in \$\.a\[2\]\)/);
    assert.equal(error.position, 10);
  });

  it('writes paths readably and briefly whatever the keys', () => {
    assert.equal(describeJsonPath([]), '$');
    assert.equal(describeJsonPath(['a', 0, 'b c', 'x'.repeat(50)]), `$.a[0]["b c"]["${'x'.repeat(40)}…"]`);
    assert.ok(describeJsonPath(Array.from({ length: 500 }, () => 'segment')).length < 220);
  });
});

describe('the JSON body parser of the listeners', () => {
  const bodyRefusal = (bytes: Buffer) => {
    try {
      parseJsonBody(bytes);
    } catch (error) {
      assert.ok(isApiError(error));
      return error;
    }
    assert.fail('accepted');
  };

  it('answers COULD_NOT_PARSE_BODY with the field and the character', () => {
    const error = bodyRefusal(Buffer.from('{"name":"a","name":"b"}'));
    assert.equal(error.code, 'COULD_NOT_PARSE_BODY');
    assert.equal(error.status, 400);
    assert.equal(error.message, 'The body could not be parsed: duplicate key at $.name');
    assert.deepEqual(error.cause, { field: 'name', reason: 'duplicate key at $.name', position: 13, in: 'body' });
  });

  it('names the limit it enforces', () => {
    assert.equal(MAX_JSON_DEPTH, 32);
    assert.match(bodyRefusal(Buffer.from(`${'['.repeat(33)}${']'.repeat(33)}`)).message, /deeper than 32 levels/);
  });

  it('refuses an empty body and bytes that are not UTF-8, and drops a leading byte order mark', () => {
    assert.match(bodyRefusal(Buffer.alloc(0)).message, /empty/);
    assert.match(bodyRefusal(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])).message, /not valid UTF-8/);
    assert.deepEqual(parseJsonBody(Buffer.from('\ufeff{"a":1}')), { a: 1 });
  });
});
