/**
 * Identities' edge router connections, both halves without sockets (issue 45): the router's reporter
 * (router/edge/identity-report.ts) gathers channel changes into few IdentityConnections notices and sends its whole
 * set after a reconnect; the controller's registry (services/routers/edge-connections.ts) keeps them per router,
 * tells each flip of an identity once, and stays within its bound.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IdentityConnections } from '../../src/control-protocol/bodies.js';
import { ControlType } from '../../src/control-protocol/catalogue.js';
import { createIdentityReporter, IDS_PER_MESSAGE } from '../../src/router/edge/identity-report.js';
import { createEdgeConnections, queuedChanges } from '../../src/services/routers/edge-connections.js';
import { eventually } from '../helpers/routers.js';

/** A control client that keeps what is sent while `connected`. */
function recordingControl() {
  const sent: IdentityConnections[] = [];
  const control = {
    connected: true,
    notify(contentType: number, body: IdentityConnections) {
      if (contentType !== ControlType.IdentityConnections || !control.connected) return false;
      sent.push(body);
      return true;
    },
  };
  return { control, sent };
}

describe('the router reports identities holding SDK channels', () => {
  it('sends a burst of channel changes as one notice, leaving out an identity that came and went meanwhile', async () => {
    const { control, sent } = recordingControl();
    const reporter = createIdentityReporter({ control, delayMs: 1 });
    for (let i = 0; i < 500; i++) reporter.opened(`identity-${i}`);
    reporter.opened('brief');
    reporter.closed('brief');
    assert.ok(await eventually(() => sent.length > 0));
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.connected.length, 500);
    assert.deepEqual(sent[0]!.disconnected, []);
    assert.ok(!sent[0]!.connected.includes('brief'));
    reporter.closed('identity-7');
    assert.ok(await eventually(() => sent.length > 1));
    assert.deepEqual(sent[1], { connected: [], disconnected: ['identity-7'] });
    reporter.stop();
  });

  it('sends its whole set after a reconnect, the first message with reset and the rest in messages of at most the limit', () => {
    const { control, sent } = recordingControl();
    const reporter = createIdentityReporter({ control });
    const all = Array.from({ length: IDS_PER_MESSAGE + 5 }, (_, i) => `id-${i}`);
    reporter.controllerConnected(all);
    assert.deepEqual(sent.map((m) => [m.reset, m.connected.length]), [[true, IDS_PER_MESSAGE], [undefined, 5]]);
    sent.length = 0;
    reporter.controllerConnected([]);
    assert.deepEqual(sent, [{ reset: true, connected: [], disconnected: [] }], 'an empty set is said too: the controller forgets the old one');
    reporter.stop();
  });

  it('queues nothing while no controller is connected: the whole set after the reconnect says it', async () => {
    const { control, sent } = recordingControl();
    const reporter = createIdentityReporter({ control, delayMs: 1 });
    control.connected = false;
    reporter.opened('while-away');
    control.connected = true;
    reporter.controllerConnected(['while-away']);
    reporter.opened('after');
    assert.ok(await eventually(() => sent.length > 1));
    assert.deepEqual(sent, [{ reset: true, connected: ['while-away'], disconnected: [] }, { connected: ['after'], disconnected: [] }]);
    reporter.stop();
  });
});

describe("the controller's registry of identities' edge router connections", () => {
  const registry = (maxPerRouter?: number) => {
    const flips: string[] = [];
    const connections = createEdgeConnections({ onChange: (id, up) => flips.push(`${id}:${up}`), ...(maxPerRouter ? { maxPerRouter } : {}) });
    return { connections, flips };
  };

  it('keeps an identity connected while any router reports it, and tells each flip once', () => {
    const { connections, flips } = registry();
    connections.report('r1', { connected: ['a'], disconnected: [] });
    connections.report('r2', { connected: ['a'], disconnected: [] });
    connections.report('r1', { connected: [], disconnected: ['a'] });
    assert.equal(connections.has('a'), true, 'r2 still reports it');
    connections.routerGone('r2');
    assert.equal(connections.has('a'), false);
    assert.deepEqual(flips, ['a:true', 'a:false']);
  });

  it("replaces a router's set on reset: identities kept are not told again, those left out go", () => {
    const { connections, flips } = registry();
    connections.report('r1', { connected: ['kept', 'gone'], disconnected: [] });
    connections.report('r1', { reset: true, connected: ['kept', 'new'], disconnected: [] });
    assert.deepEqual(flips, ['kept:true', 'gone:true', 'new:true', 'gone:false']);
    assert.equal(connections.size, 2);
  });

  it('ignores a disconnect of an identity the router never reported', () => {
    const { connections, flips } = registry();
    connections.report('r1', { connected: ['a'], disconnected: [] });
    connections.report('r2', { connected: [], disconnected: ['a'] });
    assert.equal(connections.has('a'), true);
    assert.deepEqual(flips, ['a:true']);
  });

  it('keeps at most its bound per router and answers how many ids it dropped', () => {
    const { connections } = registry(2);
    assert.equal(connections.report('r1', { connected: ['a', 'b', 'c'], disconnected: [] }), 1);
    assert.equal(connections.size, 2);
    assert.equal(connections.has('c'), false);
  });

  it('writes one change per identity whose state flipped, once however often it flipped before its write ran', async () => {
    const written: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const note = queuedChanges(async (id) => {
      written.push(id);
      if (written.length === 1) await first;
    }, (error) => assert.fail(String(error)));
    note('a');
    note('b');
    note('b');
    note('b');
    release();
    assert.ok(await eventually(() => written.length === 2));
    assert.deepEqual(written, ['a', 'b']);
  });
});
