/**
 * The in-memory router index (policy/router-reach-state.ts) against a brute-force evaluation of the same policies
 * with `matchesRoles`, the one definition of a match: random networks (seeded), every order and paging, and again
 * after routers and policies come, change and go.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeRouter } from '../../src/domain/edge-router.js';
import { RouterReachState, type RouterPolicy } from '../../src/policy/router-reach-state.js';
import { matchesRoles, parseRoles, type RoleHolder, type Semantic } from '../../src/policy/roles.js';
import { compareStoredText, ServiceReachState } from '../../src/policy/service-reach-state.js';
import { seededRandom } from '../helpers/authz-network.js';

const ATTRIBUTES = ['a', 'b', 'c', 'd', 'e', 'f'];

function pick<T>(random: () => number, from: readonly T[], count: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < Math.min(count, from.length)) chosen.add(from[Math.floor(random() * from.length)] as T);
  return [...chosen];
}

function router(random: () => number, n: number, start: number): EdgeRouter {
  return {
    id: `r${n}`,
    // Names in another order than ids and creation, with a character above U+FFFF now and then.
    name: `${random() < 0.1 ? '\u{1F600}' : ''}router-${Math.floor(random() * 1000)}-${n}`,
    roleAttributes: pick(random, ATTRIBUTES, Math.floor(random() * 3)),
    isTunnelerEnabled: false,
    cost: 0,
    noTraversal: false,
    disabled: false,
    appData: {},
    tags: {},
    fingerprint: null,
    certPem: null,
    isVerified: false,
    enrollment: null,
    connection: {},
    // Some share a creation time, which the id then orders.
    createdAt: new Date(start + Math.floor(random() * 50) * 1000),
    updatedAt: new Date(start),
  };
}

function roles(random: () => number, ids: readonly string[]): string[] {
  const roll = random();
  if (roll < 0.08) return ['#all'];
  if (roll < 0.2) return pick(random, ids, 2).map((id) => `@${id}`);
  if (roll < 0.3) return [...pick(random, ids, 1).map((id) => `@${id}`), ...pick(random, ATTRIBUTES, 1).map((a) => `#${a}`)];
  return pick(random, ATTRIBUTES, 1 + Math.floor(random() * 2)).map((a) => `#${a}`);
}

function policy(random: () => number, n: number, holders: readonly string[], routers: readonly string[]): RouterPolicy {
  const semantic: Semantic = random() < 0.5 ? 'AllOf' : 'AnyOf';
  return { id: `p${n}`, semantic, holderRoles: roles(random, holders), edgeRouterRoles: roles(random, routers) };
}

/** The routers both kinds of policy give `identity` and `service`, decided pair by pair. */
function bruteForce(routers: Map<string, EdgeRouter>, erps: Map<string, RouterPolicy>, serps: Map<string, RouterPolicy>, identity: RoleHolder, service: RoleHolder): EdgeRouter[] {
  const reaches = (policies: Map<string, RouterPolicy>, holder: RoleHolder, target: EdgeRouter) =>
    [...policies.values()].some((p) => matchesRoles(parseRoles(p.holderRoles), p.semantic, holder) && matchesRoles(parseRoles(p.edgeRouterRoles), p.semantic, target));
  return [...routers.values()].filter((r) => reaches(erps, identity, r) && reaches(serps, service, r));
}

describe('the in-memory router index', () => {
  it('answers what a brute-force evaluation answers, in every order and page, before and after changes', () => {
    const random = seededRandom(424242);
    const start = Date.now();
    let cases = 0;
    for (let network = 0; network < 12; network++) {
      const routers = new Map<string, EdgeRouter>();
      for (let n = 0; n < 60; n++) routers.set(`r${n}`, router(random, n, start));
      const holders = Array.from({ length: 8 }, (_, n) => `h${n}`);
      const erps = new Map<string, RouterPolicy>();
      const serps = new Map<string, RouterPolicy>();
      for (let n = 0; n < 10; n++) erps.set(`p${n}`, policy(random, n, holders, [...routers.keys()]));
      for (let n = 10; n < 20; n++) serps.set(`p${n}`, policy(random, n, holders, [...routers.keys()]));
      const state = RouterReachState.build(routers.values(), erps.values(), serps.values());

      const check = () => {
        for (let asked = 0; asked < 6; asked++) {
          const identity = { id: holders[Math.floor(random() * holders.length)] as string, roleAttributes: pick(random, ATTRIBUTES, Math.floor(random() * 3)) };
          const service = { id: holders[Math.floor(random() * holders.length)] as string, roleAttributes: pick(random, ATTRIBUTES, Math.floor(random() * 3)) };
          const expected = bruteForce(routers, erps, serps, identity, service);
          const byName = [...expected].sort((x, y) => compareStoredText(x.name, y.name) || compareStoredText(x.id, y.id));
          const byCreation = [...expected].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || compareStoredText(x.id, y.id));
          const offset = Math.floor(random() * 5);
          const limit = random() < 0.2 ? -1 : 1 + Math.floor(random() * 10);
          const window = (list: EdgeRouter[]) => list.slice(offset, limit < 0 ? undefined : offset + limit).map((r) => r.id);
          const ids = (answer: { items: EdgeRouter[] }) => answer.items.map((r) => r.id);
          const named = state.common(identity, service, 'name', false, offset, limit);
          assert.equal(named.totalCount, expected.length);
          assert.deepEqual(ids(named), window(byName));
          assert.deepEqual(ids(state.common(identity, service, 'name', true, offset, limit)), window([...byName].reverse()));
          assert.deepEqual(ids(state.common(identity, service, 'createdAt', false, offset, limit)), window(byCreation));
          cases++;
        }
      };
      check();
      // Routers come, change attributes and go; policies change and go; the answers follow each step.
      for (let step = 0; step < 8; step++) {
        const roll = random();
        const some = [...routers.keys()][Math.floor(random() * routers.size)] as string;
        if (roll < 0.25) {
          routers.delete(some);
          state.removeRouter(some);
        } else if (roll < 0.5) {
          const changed = { ...(routers.get(some) as EdgeRouter), roleAttributes: pick(random, ATTRIBUTES, 2) };
          routers.set(some, changed);
          state.putRouter(changed);
        } else if (roll < 0.65) {
          const added = router(random, 100 + step * 100 + network, start);
          routers.set(added.id, added);
          state.putRouter(added);
        } else if (roll < 0.85) {
          const changed = policy(random, Math.floor(random() * 10), holders, [...routers.keys()]);
          erps.set(changed.id, changed);
          state.putEdgeRouterPolicy(changed);
        } else {
          const gone = `p${10 + Math.floor(random() * 10)}`;
          serps.delete(gone);
          state.removeServiceEdgeRouterPolicy(gone);
        }
        check();
      }
    }
    assert.ok(cases >= 500, `${cases} cases`);
  });

  it('grows past its first room without losing a router', () => {
    const random = seededRandom(7);
    const state = new RouterReachState();
    const everything: RouterPolicy = { id: 'all', semantic: 'AnyOf', holderRoles: ['#all'], edgeRouterRoles: ['#all'] };
    state.putEdgeRouterPolicy(everything);
    state.putServiceEdgeRouterPolicy(everything);
    const holder = { id: 'x', roleAttributes: [] };
    // Asked between additions, so the kept sets of a smaller room must not be used after it grows.
    for (let n = 0; n < 2_500; n++) {
      state.putRouter(router(random, n, Date.now()));
      if (n % 500 === 0) assert.equal(state.common(holder, holder, 'name', false, 0, 1).totalCount, n + 1);
    }
    assert.equal(state.common(holder, holder, 'name', false, 0, -1).items.length, 2_500);
    assert.equal(state.routerCount, 2_500);
  });

  it('is part of the service reach index, which starts with none', () => {
    assert.equal(new ServiceReachState(0).routers.routerCount, 0);
  });
});
