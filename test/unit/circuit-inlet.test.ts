/**
 * The Inlet every circuit end reads through (issue 43, decision 0069): payloads that arrive before the circuit is
 * joined wait, in order, up to a byte bound past which the circuit ends; after the join each payload goes to the
 * peer, and the owner's input is paused while the peer holds more than the high-water mark, resumed once it drains.
 * Circuit numbers on a link: odd for the dialing side, even for the accepting side, never one in use.
 * @store-independent
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HIGH_WATER_BYTES, type CircuitEnd, type Payload } from '../../src/router/fabric/circuit-end.js';
import { Inlet, MAX_EARLY_BYTES } from '../../src/router/fabric/inlet.js';
import { circuitNumbers } from '../../src/router/links/link.js';

const payload = (text: string | Buffer): Payload => ({ body: Buffer.isBuffer(text) ? text : Buffer.from(text), flags: 0, extra: [] });

function peer() {
  const drained: Array<() => void> = [];
  const end = {
    label: 'peer',
    got: [] as string[],
    queued: 0,
    send(p: Payload) {
      end.got.push(p.body.toString());
      end.queued += p.body.length;
    },
    end: () => undefined,
    onceDrained: (listener: () => void) => void drained.push(listener),
    pause: () => undefined,
    resume: () => undefined,
    drain() {
      end.queued = 0;
      for (const listener of drained.splice(0)) listener();
    },
  };
  return end satisfies CircuitEnd & Record<string, unknown>;
}

function owner() {
  return { paused: 0, pause() { this.paused++; }, resume() { this.paused--; } };
}

describe('the circuit inlet', () => {
  it('holds payloads that arrive before the join and delivers them first, in order', () => {
    const inlet = new Inlet(owner(), () => assert.fail('no overflow'));
    inlet.push(payload('one'));
    inlet.push(payload('two'));
    const far = peer();
    inlet.connect(far);
    inlet.push(payload('three'));
    assert.deepEqual(far.got, ['one', 'two', 'three']);
  });

  it('ends the circuit when more than the early bound arrives before the join, and keeps nothing', () => {
    let overflowed = 0;
    const inlet = new Inlet(owner(), () => overflowed++);
    inlet.push(payload(Buffer.alloc(MAX_EARLY_BYTES)));
    assert.equal(overflowed, 0, 'exactly the bound is still held');
    inlet.push(payload('x'));
    inlet.push(payload('y'));
    assert.equal(overflowed, 1, 'called once');
    const far = peer();
    inlet.connect(far);
    assert.deepEqual(far.got, [], 'nothing is delivered after the overflow');
  });

  it('pauses its owner once while the peer holds more than the high-water mark, and resumes it when the peer drains', () => {
    const who = owner();
    const inlet = new Inlet(who, () => undefined);
    const far = peer();
    inlet.connect(far);
    inlet.push(payload(Buffer.alloc(HIGH_WATER_BYTES)));
    assert.equal(who.paused, 0, 'at the mark: not paused');
    inlet.push(payload('over'));
    inlet.push(payload('more'));
    assert.equal(who.paused, 1, 'paused once, not per payload');
    far.drain();
    assert.equal(who.paused, 0, 'resumed');
  });

  it('numbers circuits odd on the dialing side and even on the accepting side, skipping numbers in use', () => {
    const inUse = new Set([3]);
    const dialing = circuitNumbers(true, (n) => inUse.has(n));
    assert.deepEqual([dialing(), dialing(), dialing()], [1, 5, 7]);
    const accepting = circuitNumbers(false, () => false);
    assert.deepEqual([accepting(), accepting()], [2, 4]);
  });
});
