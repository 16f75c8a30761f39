/**
 * The control protocol's pure parts (docs/control-protocol.md): bodies are read strictly against their schemas with
 * refusals that name the field, answers have one shape, the router's reconnect backoff stays within its bounds, and
 * its revocation memory is bounded in age and size.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControlErrorCode, ControlHeader, controlTypeName, ControlType } from '../../src/control-protocol/catalogue.js';
import { ControlBodyError, readBody, RouterHelloSchema, CreateTerminatorSchema, writeBody } from '../../src/control-protocol/bodies.js';
import { ControlRefusal, readAnswer, refusal, success } from '../../src/control-protocol/results.js';
import { backoffDelay, parseControllerAddress } from '../../src/router/control/control-client.js';
import { createRevocationState } from '../../src/router/state/revocations.js';

const hello = {
  protocol: 1,
  versionInfo: { version: '1.0.0', revision: 'r', buildDate: 'd', os: 'linux', arch: 'x64' },
  hostname: 'er1',
  listeners: [{ binding: 'edge', advertise: 'tls:er1.example:3022' }],
  capabilities: ['edge'],
};
const asMessage = (m: { contentType: number; headers?: Map<number, Buffer> | Iterable<[number, Buffer]>; body?: Buffer | string }) => ({
  contentType: m.contentType,
  sequence: 7,
  headers: new Map(m.headers ?? []),
  body: Buffer.isBuffer(m.body) ? m.body : Buffer.from(m.body ?? ''),
});

describe('control protocol bodies', () => {
  it('reads a valid Hello', () => {
    assert.deepEqual(readBody(RouterHelloSchema, writeBody(hello), 'Hello'), hello);
  });

  for (const [name, text, expected] of [
    ['not JSON', '{"protocol":', /Hello: the body is not valid JSON/],
    ['a duplicate key', '{"protocol":1,"protocol":2}', /duplicate/],
    ['a prototype key', '{"__proto__":{}}', /__proto__/],
    ['a missing field', JSON.stringify({ ...hello, hostname: undefined }), /Hello: body must have required property 'hostname'/],
    ['an unknown field', JSON.stringify({ ...hello, routerId: 'claimed' }), /Hello: body must NOT have additional properties \(routerId\)/],
    ['a field too long', JSON.stringify({ ...hello, listeners: [{ binding: 'edge', advertise: 'x'.repeat(301) }] }), /body\.listeners\.0\.advertise must NOT have more than 300 characters/],
    ['too deep', `${'['.repeat(40)}${']'.repeat(40)}`, /deep|nest/i],
  ] as const) {
    it(`refuses ${name}, naming what is wrong`, () => {
      assert.throws(() => readBody(RouterHelloSchema, Buffer.from(text), 'Hello'), (error: Error) => error instanceof ControlBodyError && expected.test(error.message));
    });
  }

  it('names the field of a terminator request out of range', () => {
    assert.throws(
      () => readBody(CreateTerminatorSchema, writeBody({ serviceId: 's', binding: 'edge', address: 'a', cost: 65_536 }), 'CreateTerminator'),
      /CreateTerminator: body\.cost must be <= 65535/,
    );
  });

  it('gives every content type a bounded label', () => {
    assert.equal(controlTypeName(ControlType.TrustState), 'TrustState');
    assert.equal(controlTypeName(0), 'Hello');
    assert.equal(controlTypeName(123_456), 'unknown');
  });
});

describe('control protocol answers', () => {
  it('reads a success against its schema and a refusal as ControlRefusal with code and sentence', () => {
    assert.deepEqual(readAnswer(asMessage(success(hello)), RouterHelloSchema, 'answer'), hello);
    const refused = asMessage(refusal(ControlErrorCode.NotAllowed, 'identity x may not dial s'));
    assert.equal(refused.headers.get(ControlHeader.ErrorCode)?.toString(), 'NOT_ALLOWED');
    assert.throws(() => readAnswer(refused, RouterHelloSchema, 'answer'), (error: Error) => error instanceof ControlRefusal && error.code === 'NOT_ALLOWED' && error.message === 'identity x may not dial s');
  });

  it('refuses a message that is not a Result as an answer', () => {
    assert.throws(() => readAnswer(asMessage({ contentType: ControlType.TrustState, body: '{}' }), RouterHelloSchema, 'answer'), /expected a Result, got content type 30010/);
  });
});

describe('router reconnection and revocation memory', () => {
  it('waits between half and all of min x factor^attempt, capped at max', () => {
    const backoff = { minMs: 100, maxMs: 1_000, factor: 2 };
    assert.equal(backoffDelay(backoff, 0, () => 0), 50);
    assert.equal(backoffDelay(backoff, 0, () => 1), 100);
    assert.equal(backoffDelay(backoff, 3, () => 1), 800);
    assert.equal(backoffDelay(backoff, 10, () => 1), 1_000);
    assert.equal(backoffDelay(backoff, 10, () => 0), 500);
  });

  it('parses controller addresses and refuses others by name', () => {
    assert.deepEqual(parseControllerAddress('tls:ctrl.example:6262'), { host: 'ctrl.example', port: 6262 });
    assert.deepEqual(parseControllerAddress('tls:[::1]:6262'), { host: '::1', port: 6262 });
    assert.throws(() => parseControllerAddress('tcp:ctrl:6262'), /'tcp:ctrl:6262' is not a controller address; expected tls:<host>:<port>/);
    assert.throws(() => parseControllerAddress('tls:ctrl:99999'), /not a controller address/);
  });

  it('remembers revocations for their keep time and at most its capacity, oldest dropped first', () => {
    const state = createRevocationState({ keepMs: 1_000, capacity: 2 });
    const seen: number[] = [];
    state.subscribe((items) => seen.push(items.length));
    const now = Date.now();
    state.apply(
      [
        { kind: 'api-session', id: 's1', reason: 'ended', committedAt: now },
        { kind: 'api-session', id: 's2', reason: 'ended', committedAt: now },
        { kind: 'identity', id: 'i1', reason: 'disabled', committedAt: now },
        { kind: 'access', id: '*', reason: 'policy', committedAt: now },
      ],
      now,
    );
    assert.deepEqual(seen, [4]);
    assert.equal(state.isSessionRevoked('s1', now), true);
    assert.equal(state.isIdentityRevoked('i1', now), true);
    assert.equal(state.accessChangedAt, now);
    state.apply([{ kind: 'api-session', id: 's3', reason: 'ended', committedAt: now }], now);
    assert.equal(state.isSessionRevoked('s1', now), false, 'the oldest went past the capacity');
    assert.equal(state.isSessionRevoked('s3', now), true);
    assert.equal(state.isSessionRevoked('s3', now + 1_001), false, 'forgotten after the keep time');
    assert.equal(state.isIdentityRevoked('unknown', now), false);
  });
});
