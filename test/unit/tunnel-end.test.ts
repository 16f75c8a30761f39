/**
 * The tunnel circuit end's own rules (issue 43 contract, decision 0071), with a recording transport standing for
 * its socket: the backpressure rule (a congested peer pauses this end's input once per episode, its drain resumes
 * it), payloads that arrive before the end is started are held and delivered in order, and the end ends once.
 * @store-independent: no store, no sockets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HIGH_WATER_BYTES, PayloadFlag } from '../../src/router/fabric/circuit-end.js';
import { createTunnelEnd, MAX_PAYLOAD_BYTES, type Transport } from '../../src/router/tunnel/tunnel-end.js';
import { recordingEnd } from '../helpers/tunnel.js';

function transport() {
  const calls: string[] = [];
  const written: string[] = [];
  const t: Transport = {
    write: (plain) => void written.push(plain.toString()),
    writeFin: () => void calls.push('fin'),
    queued: () => 0,
    pauseInput: () => void calls.push('pause'),
    resumeInput: () => void calls.push('resume'),
    close: (graceful) => void calls.push(graceful ? 'close' : 'destroy'),
  };
  return { t, calls, written };
}

describe('router tunnel: circuit end', () => {
  it('pauses its input once while the peer is congested and resumes when the peer drains', () => {
    const { t, calls } = transport();
    const end = createTunnelEnd('tcp test', t, () => undefined);
    const peer = recordingEnd();
    end.start(peer.end);
    assert.deepEqual(calls, ['resume'], 'started: reading');

    peer.state.queued = HIGH_WATER_BYTES + 1;
    end.read(Buffer.from('a'));
    end.read(Buffer.from('b'));
    assert.deepEqual(calls, ['resume', 'pause'], 'paused once for the episode');
    assert.equal(peer.drainListeners.length, 1);

    peer.state.queued = 0;
    peer.drainListeners[0]!();
    assert.deepEqual(calls, ['resume', 'pause', 'resume']);
    assert.deepEqual(peer.payloads.map((p) => p.body.toString()), ['a', 'b']);
  });

  it('counts pauses from the peer: input resumes only when every pause has its resume', () => {
    const { t, calls } = transport();
    const end = createTunnelEnd('tcp test', t, () => undefined);
    end.start(recordingEnd().end);

    end.pause();
    end.pause();
    end.resume();
    assert.deepEqual(calls, ['resume', 'pause']);
    end.resume();
    assert.deepEqual(calls, ['resume', 'pause', 'resume']);
  });

  it('reads nothing before it is started and delivers what the peer sent early, in order', () => {
    const { t, calls, written } = transport();
    const end = createTunnelEnd('tcp test', t, () => undefined);
    end.send({ body: Buffer.from('early 1'), flags: 0, extra: [] });
    end.send({ body: Buffer.from('early 2'), flags: PayloadFlag.FIN, extra: [] });
    assert.deepEqual(written, []);

    end.start(recordingEnd().end);

    assert.deepEqual(written, ['early 1', 'early 2']);
    assert.deepEqual(calls, ['fin', 'resume']);
  });

  it('splits a large read into payloads of at most 64 KiB', () => {
    const { t } = transport();
    const end = createTunnelEnd('tcp test', t, () => undefined);
    const peer = recordingEnd();
    end.start(peer.end);

    end.read(Buffer.alloc(MAX_PAYLOAD_BYTES * 2 + 1));

    assert.deepEqual(peer.payloads.map((p) => p.body.length), [MAX_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES, 1]);
  });

  it('ends once: the socket is released, the peer told the reason, and a later end changes nothing', () => {
    const { t, calls } = transport();
    const reasons: string[] = [];
    const end = createTunnelEnd('tcp test', t, (reason) => reasons.push(reason));
    const peer = recordingEnd();
    end.start(peer.end);

    end.lost('tcp test: ECONNRESET');
    end.end('the dialer closed');
    end.send({ body: Buffer.from('late'), flags: 0, extra: [] });

    assert.deepEqual(reasons, ['tcp test: ECONNRESET']);
    assert.equal(peer.state.ended, 'tcp test: ECONNRESET');
    assert.deepEqual(calls, ['resume', 'destroy']);
  });

  it('tells a peer that arrives after the socket was lost why the circuit ended', () => {
    const { t } = transport();
    const end = createTunnelEnd('tcp test', t, () => undefined);
    const peer = recordingEnd();

    end.lost('tcp test closed');
    end.start(peer.end);

    assert.equal(peer.state.ended, 'tcp test closed');
    assert.deepEqual(peer.payloads, []);
  });
});
