/**
 * The policy engine against brute force: random networks (seeded, several seeds, on the dialect under test) are
 * written to the store, and every answer the engine gives (services of each identity by type, identities of each
 * service, edge routers of identities, services and back, dial/bind decisions, the policies that apply, what a
 * policy selects) must equal evaluating every policy on every pair with `matchesRoles`. Some related lists are
 * also read over HTTP. Deleting an entity drops it from every answer at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServicePolicyType } from '../../src/domain/policy.js';
import type { Database } from '../../src/persistence/database.js';
import { createPolicyEngineStore } from '../../src/persistence/repositories/policy-engine.js';
import { createServiceReachSource } from '../../src/persistence/repositories/service-reach-source.js';
import { createServiceRepository } from '../../src/persistence/repositories/services.js';
import { createPolicyEngine, type PolicyEngine } from '../../src/services/authorization/engine.js';
import { createServiceReach } from '../../src/services/authorization/service-reach.js';
import { bruteForce, insertNetwork, randomNetwork, seededRandom, type AuthzNetwork, type NetworkSizes } from '../helpers/authz-network.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { openTestDatabase, testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

const SIZES: NetworkSizes = {
  identities: 30,
  services: 30,
  routers: 12,
  postureChecks: 5,
  servicePolicies: 25,
  edgeRouterPolicies: 8,
  serviceEdgeRouterPolicies: 8,
  attributes: 5,
  maxAttributesPerEntity: 3,
  allChance: 0.06,
};
const SEEDS = [11, 23, 37, 41];
const ALL = { limit: '-1' };
const TYPES: (ServicePolicyType | undefined)[] = ['Dial', 'Bind', undefined];

const sortedIds = (page: { items: { id: string }[] }) => page.items.map((item) => item.id).sort();

/** A network on its own store, with the engine over it. */
async function networkStore(seed: number): Promise<{ database: Database; engine: PolicyEngine; network: AuthzNetwork }> {
  const database = await openTestDatabase();
  const network = randomNetwork(seededRandom(seed), { ...SIZES, prefix: `s${seed}` });
  await insertNetwork(database, network);
  const reach = createServiceReach({ source: createServiceReachSource(database) });
  return { database, engine: createPolicyEngine({ store: createPolicyEngineStore(database), reach }), network };
}

describe(`policy engine against brute force (${testDialect})`, () => {
  for (const seed of SEEDS) {
    describe(`seed ${seed}`, () => {
      let database: Database;
      let engine: PolicyEngine;
      let network: AuthzNetwork;
      let expected: ReturnType<typeof bruteForce>;
      before(async () => {
        ({ database, engine, network } = await networkStore(seed));
        expected = bruteForce(network);
      });
      after(async () => database.close());

      it('lists the services of every identity, by type and both, as brute force does', async () => {
        for (const identity of network.identities) {
          for (const type of TYPES) {
            const page = await engine.related('identity', identity.id, 'service', ALL, type);
            assert.deepEqual(sortedIds(page), expected.servicesOf(identity, type), `${identity.id} ${type ?? 'any'}`);
            assert.equal(page.pagination.totalCount, page.items.length);
          }
        }
      });

      it('lists the identities of every service, by type and both', async () => {
        for (const service of network.services) {
          for (const type of TYPES) {
            assert.deepEqual(sortedIds(await engine.related('service', service.id, 'identity', ALL, type)), expected.identitiesOf(service, type), `${service.id} ${type ?? 'any'}`);
          }
        }
      });

      it('lists the edge routers of every identity and service, and the identities and services of every router', async () => {
        for (const identity of network.identities) {
          assert.deepEqual(sortedIds(await engine.related('identity', identity.id, 'edge-router', ALL)), expected.routersOfIdentity(identity), identity.id);
        }
        for (const service of network.services) {
          assert.deepEqual(sortedIds(await engine.related('service', service.id, 'edge-router', ALL)), expected.routersOfService(service), service.id);
        }
        for (const router of network.routers) {
          assert.deepEqual(sortedIds(await engine.related('edge-router', router.id, 'identity', ALL)), expected.identitiesOfRouter(router), router.id);
          assert.deepEqual(sortedIds(await engine.related('edge-router', router.id, 'service', ALL)), expected.servicesOfRouter(router), router.id);
        }
      });

      it('decides dial and bind for every identity and service pair', async () => {
        for (const identity of network.identities.slice(0, 12)) {
          for (const service of network.services) {
            for (const type of ['Dial', 'Bind'] as const) {
              const decision = await engine.access(identity.id, service.id, type);
              assert.equal(decision.allowed, expected.mayAccess(identity, service, type), `${identity.id} ${type} ${service.id}`);
            }
          }
        }
      });

      it('names the policies that apply to an identity and what each policy selects', async () => {
        for (const identity of network.identities) {
          assert.deepEqual(sortedIds(await engine.policiesOf('identity', identity.id, 'service-policy', ALL)), expected.servicePoliciesOfIdentity(identity));
        }
        for (const policy of network.servicePolicies) {
          const members = expected.servicePolicyMembers(policy);
          assert.deepEqual(sortedIds(await engine.members('service-policy', policy.id, 'identity', ALL)), members.identities, policy.id);
          assert.deepEqual(sortedIds(await engine.members('service-policy', policy.id, 'service', ALL)), members.services, policy.id);
          assert.deepEqual(sortedIds(await engine.members('service-policy', policy.id, 'posture-check', ALL)), members.postureChecks, policy.id);
        }
      });

      it("combines the membership with the client's filter, sort and paging", async () => {
        const identity = network.identities.find((i) => expected.servicesOf(i).length >= 4) ?? network.identities[0]!;
        const all = network.services.filter((s) => expected.servicesOf(identity).includes(s.id));
        const filtered = await engine.related('identity', identity.id, 'service', { filter: 'name contains "1" or name contains "2"', sort: 'name desc', limit: '500' });
        assert.deepEqual(
          filtered.items.map((s) => s.name),
          all.filter((s) => s.name.includes('1') || s.name.includes('2')).map((s) => s.name).sort().reverse(),
        );
        const page = await engine.related('identity', identity.id, 'service', { sort: 'name', limit: '2', offset: '1' });
        assert.deepEqual(page.items.map((s) => s.name), all.map((s) => s.name).sort().slice(1, 3));
        assert.equal(page.pagination.totalCount, all.length);
      });

      it('drops a deleted entity from every answer at once', async () => {
        const identity = network.identities.find((i) => expected.servicesOf(i).length > 0);
        if (!identity) return;
        const [gone] = expected.servicesOf(identity);
        assert.equal(await createServiceRepository(database).delete(gone!), true);
        assert.ok(!sortedIds(await engine.related('identity', identity.id, 'service', ALL)).includes(gone!));
        assert.deepEqual(sortedIds(await engine.related('identity', identity.id, 'service', ALL)), expected.servicesOf(identity).filter((id) => id !== gone));
        await assert.rejects(engine.related('service', gone!, 'identity', ALL), { code: 'NOT_FOUND' });
      });
    });
  }

  it('answers 404 for an unknown parent', async () => {
    const { database, engine } = await networkStore(5);
    try {
      await assert.rejects(engine.related('identity', 'nobody', 'service', ALL), { code: 'NOT_FOUND' });
      await assert.rejects(engine.members('edge-router-policy', 'nothing', 'identity', ALL), { code: 'NOT_FOUND' });
      await assert.rejects(engine.policiesOf('edge-router', 'none', 'service-edge-router-policy', ALL), { code: 'NOT_FOUND' });
    } finally {
      await database.close();
    }
  });
});

describe(`related lists over HTTP (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  let network: AuthzNetwork;
  let expected: ReturnType<typeof bruteForce>;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    // `#all` would reach the default admin too; the brute force knows only the network.
    network = randomNetwork(seededRandom(99), { ...SIZES, allChance: 0, prefix: 'h' });
    await insertNetwork(ctl.running.database, network);
    expected = bruteForce(network);
  });
  after(async () => ctl.close());

  const ids = async (path: string) => {
    const res = await admin.get(path);
    assert.equal(res.status, 200, res.text);
    return (res.json().data as { id: string }[]).map((item) => item.id).sort();
  };

  it('lists through every related route what the engine and brute force agree on', async () => {
    for (const identity of network.identities.slice(0, 6)) {
      assert.deepEqual(await ids(`/identities/${identity.id}/services?limit=-1`), expected.servicesOf(identity));
      assert.deepEqual(await ids(`/identities/${identity.id}/services?limit=-1&policyType=dial`), expected.servicesOf(identity, 'Dial'));
      assert.deepEqual(await ids(`/identities/${identity.id}/services?limit=-1&policyType=bind`), expected.servicesOf(identity, 'Bind'));
      assert.deepEqual(await ids(`/identities/${identity.id}/edge-routers?limit=-1`), expected.routersOfIdentity(identity));
      assert.deepEqual(await ids(`/identities/${identity.id}/service-policies?limit=-1`), expected.servicePoliciesOfIdentity(identity));
    }
    for (const service of network.services.slice(0, 6)) {
      assert.deepEqual(await ids(`/services/${service.id}/identities?limit=-1&policyType=dial`), expected.identitiesOf(service, 'Dial'));
      assert.deepEqual(await ids(`/services/${service.id}/edge-routers?limit=-1`), expected.routersOfService(service));
    }
    for (const router of network.routers.slice(0, 4)) {
      assert.deepEqual(await ids(`/edge-routers/${router.id}/identities?limit=-1`), expected.identitiesOfRouter(router));
      assert.deepEqual(await ids(`/edge-routers/${router.id}/services?limit=-1`), expected.servicesOfRouter(router));
    }
    const policy = network.servicePolicies[0]!;
    assert.deepEqual(await ids(`/service-policies/${policy.id}/services?limit=-1`), expected.servicePolicyMembers(policy).services);
  });

  it('shows each item with the neutral view and the list meta', async () => {
    const identity = network.identities.find((i) => expected.servicesOf(i).length > 0)!;
    const body = (await admin.get(`/identities/${identity.id}/services?limit=1`)).json();
    assert.deepEqual(Object.keys(body.data[0]).sort(), ['_links', 'createdAt', 'id', 'name', 'roleAttributes', 'tags', 'updatedAt']);
    assert.equal(body.meta.pagination.totalCount, expected.servicesOf(identity).length);
    assert.deepEqual(body.data[0]._links, { self: { href: `./services/${body.data[0].id}` } });
  });

  it('answers 404 for an unknown parent and 400 for a bad policyType or filter', async () => {
    for (const path of ['/identities/nope/services', '/services/nope/edge-routers', '/service-policies/nope/identities', '/edge-routers/nope/edge-router-policies']) {
      const res = await admin.get(path);
      assert.deepEqual([res.status, res.json().error.code], [404, 'NOT_FOUND'], path);
    }
    assert.equal((await admin.get(`/identities/${network.identities[0]!.id}/services?policyType=both`)).status, 400);
    assert.equal((await admin.get(`/identities/${network.identities[0]!.id}/services?filter=${encodeURIComponent('nope = 1')}`)).status, 400);
  });

  it('advises why an identity can or cannot reach a service, naming the policies', async () => {
    const identity = network.identities[0]!;
    const service = network.services.find((s) => !expected.mayAccess(identity, s, 'Dial'))!;
    const res = await admin.get(`/identities/${identity.id}/policy-advice/${service.id}`);
    assert.equal(res.status, 200, res.text);
    const advice = res.json().data;
    assert.equal(advice.identityId, identity.id);
    assert.equal(advice.isDialAllowed, false);
    assert.equal(advice.isBindAllowed, expected.mayAccess(identity, service, 'Bind'));
    assert.equal(advice.identityRouterCount, expected.routersOfIdentity(identity).length);
    assert.equal(advice.serviceRouterCount, expected.routersOfService(service).length);
    const common = expected.routersOfIdentity(identity).filter((id) => expected.routersOfService(service).includes(id));
    assert.deepEqual(advice.commonRouters.map((r: { id: string }) => r.id).sort(), common);
    assert.ok(advice.commonRouters.every((r: { isOnline: boolean }) => r.isOnline === false));
    assert.match(advice.reasons[0], /Dial/);
    assert.equal((await admin.get(`/identities/${identity.id}/policy-advice/nope`)).status, 404);
  });
});
