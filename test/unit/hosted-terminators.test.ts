/**
 * The re-check of SDK-bound terminators after access changes (issue 42): which terminators it reads (all, or one
 * host's), one access question per host and service, deletes only those whose host may no longer bind, and folds
 * calls made during a pass into one more pass. The terminator service and the engine are small in-memory stand-ins
 * here: the store-backed path runs end to end in test/e2e/router-sdk-terminators.test.ts.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Terminator } from '../../src/domain/terminator.js';
import { ApiError } from '../../src/errors/api-error.js';
import { createHostedTerminatorCheck, LOST_ACCESS_ACTOR } from '../../src/services/routers/hosted-terminators.js';

const terminator = (id: string, hostId: string, serviceId: string): Terminator => ({
  id,
  serviceId,
  routerId: 'r1',
  binding: 'edge',
  address: `sdk:${id}`,
  identity: '',
  identitySecret: null,
  cost: 0,
  precedence: 'default',
  hostId,
  tags: {},
  createdAt: new Date(),
  updatedAt: new Date(),
});

/** Terminators in a list, Bind access as a set of `host/service`, and a record of what was asked and deleted. */
function network(rows: Terminator[], allowed: Set<string>) {
  const asked: string[] = [];
  const listed: Array<string | undefined> = [];
  const deleted: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  const check = createHostedTerminatorCheck({
    terminators: {
      async listHosted(of = {}) {
        listed.push(of.hostId);
        await gate;
        return rows.filter((row) => of.hostId === undefined || row.hostId === of.hostId);
      },
      async delete(actor, id) {
        assert.deepEqual(actor, LOST_ACCESS_ACTOR);
        const at = rows.findIndex((row) => row.id === id);
        if (at < 0) throw new ApiError('NOT_FOUND', { message: `No terminator has the id '${id}'` });
        rows.splice(at, 1);
        deleted.push(id);
      },
    },
    engine: {
      async access(identityId, serviceId) {
        asked.push(`${identityId}/${serviceId}`);
        return { allowed: allowed.has(`${identityId}/${serviceId}`), policies: [] };
      },
    },
  });
  return { check, asked, listed, deleted, hold: (until: Promise<void>) => (gate = until) };
}

describe('the re-check of SDK-bound terminators', () => {
  it('deletes the terminators whose host may no longer bind, asking once per host and service', async () => {
    const rows = [terminator('t1', 'h1', 's1'), terminator('t2', 'h1', 's1'), terminator('t3', 'h2', 's1'), terminator('t4', 'h1', 's2')];
    const net = network(rows, new Set(['h2/s1', 'h1/s2']));
    assert.equal(await net.check.recheck(), 2);
    assert.deepEqual(net.deleted, ['t1', 't2']);
    assert.deepEqual(net.asked.sort(), ['h1/s1', 'h1/s2', 'h2/s1']);
    assert.deepEqual(rows.map((row) => row.id), ['t3', 't4']);
  });

  it("reads only one host's terminators when one identity changed", async () => {
    const net = network([terminator('t1', 'h1', 's1'), terminator('t2', 'h2', 's1')], new Set());
    assert.equal(await net.check.recheck('h2'), 1);
    assert.deepEqual(net.listed, ['h2']);
    assert.deepEqual(net.deleted, ['t2']);
  });

  it('folds calls made during a pass into one more pass covering all of them', async () => {
    const net = network([terminator('t1', 'h1', 's1'), terminator('t2', 'h2', 's1'), terminator('t3', 'h3', 's1')], new Set(['h1/s1', 'h2/s1', 'h3/s1']));
    let release!: () => void;
    net.hold(new Promise<void>((resolve) => (release = resolve)));
    const first = net.check.recheck('h1');
    const queued = [net.check.recheck('h2'), net.check.recheck('h3'), net.check.recheck('h2')];
    release();
    await first;
    await Promise.all(queued);
    assert.deepEqual(net.listed, ['h1', 'h2', 'h3'], 'the first pass, then one pass for h2 and h3');
    const everything = network([terminator('t1', 'h1', 's1')], new Set(['h1/s1']));
    let open!: () => void;
    everything.hold(new Promise<void>((resolve) => (open = resolve)));
    const running = everything.check.recheck('h1');
    const next = [everything.check.recheck('h1'), everything.check.recheck()];
    open();
    await Promise.all([running, ...next]);
    assert.deepEqual(everything.listed, ['h1', undefined], 'a call for every host makes the next pass read them all');
  });

  it('counts a terminator deleted meanwhile as not deleted, and keeps going', async () => {
    const rows = [terminator('t1', 'h1', 's1'), terminator('t2', 'h1', 's1')];
    const read = [...rows];
    rows.splice(0, 1); // t1 goes between the read and the delete (its router, an administrator, another controller)
    const check = createHostedTerminatorCheck({
      terminators: {
        listHosted: async () => read,
        async delete(_actor, id) {
          const at = rows.findIndex((row) => row.id === id);
          if (at < 0) throw new ApiError('NOT_FOUND', { message: `No terminator has the id '${id}'` });
          rows.splice(at, 1);
        },
      },
      engine: { access: async () => ({ allowed: false, policies: [] }) },
    });
    assert.equal(await check.recheck(), 1);
    assert.deepEqual(rows, []);
  });
});
