/**
 * The in-memory service reach index (decision 0028) as two controllers sharing one store see it: one changes
 * services and service policies through the repositories, the other answers "which services may this identity
 * reach" from its index. After every change (random, seeded), the second's answer must equal brute force over the
 * network as it now is, in the store's own order. It must also catch up when it has fallen behind the log (pruned
 * rows), after a bulk load, under concurrent questions, and sort names exactly as the store does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServicePolicyType } from '../../src/domain/policy.js';
import { databaseTargetFromString, openDatabase, type Database } from '../../src/persistence/database.js';
import { createPolicyEngineStore } from '../../src/persistence/repositories/policy-engine.js';
import { createServicePolicyRepository } from '../../src/persistence/repositories/service-policies.js';
import { createServiceReachSource } from '../../src/persistence/repositories/service-reach-source.js';
import { createServiceRepository, SERVICE_FIELDS } from '../../src/persistence/repositories/services.js';
import { matchesRoles, parseRoles } from '../../src/policy/roles.js';
import { createPolicyEngine, type PolicyEngine } from '../../src/services/authorization/engine.js';
import { createServiceReach } from '../../src/services/authorization/service-reach.js';
import { bruteForce, insertNetwork, randomNetwork, seededRandom, type AuthzNetwork, type NetEntity, type NetServicePolicy } from '../helpers/authz-network.js';
import { newSharedDatabase, testDialect } from '../helpers/database.js';

const SIZES = {
  identities: 20,
  services: 40,
  routers: 0,
  postureChecks: 0,
  servicePolicies: 25,
  edgeRouterPolicies: 0,
  serviceEdgeRouterPolicies: 0,
  attributes: 5,
  maxAttributesPerEntity: 3,
  allChance: 0.04,
};
const ALL = { limit: '-1' };
const TYPES: (ServicePolicyType | undefined)[] = ['Dial', 'Bind', undefined];

/** A controller's view of the store: its own connection, engine and index. */
function engineOver(database: Database): PolicyEngine {
  return createPolicyEngine({ store: createPolicyEngineStore(database), reach: createServiceReach({ source: createServiceReachSource(database) }) });
}

function serviceOf(entity: NetEntity, at: Date) {
  return { ...entity, roleAttributes: [...entity.roleAttributes], configs: [], encryptionRequired: true, maxIdleTimeMillis: 0, terminatorStrategy: 'smartrouting', tags: {}, createdAt: at, updatedAt: at };
}

function policyOf(policy: NetServicePolicy, at: Date) {
  return { ...policy, tags: {}, createdAt: at, updatedAt: at };
}

describe(`service reach index across controllers (${testDialect})`, () => {
  let shared: { db: string; drop(): Promise<void> };
  let writer: Database;
  let reader: Database;
  let engine: PolicyEngine;
  let network: AuthzNetwork;

  before(async () => {
    shared = await newSharedDatabase();
    writer = await openDatabase(databaseTargetFromString(shared.db));
    reader = await openDatabase(databaseTargetFromString(shared.db));
    network = randomNetwork(seededRandom(2026), { ...SIZES, prefix: 'r' });
    await insertNetwork(writer, network);
    engine = engineOver(reader);
  });
  after(async () => {
    await writer.close();
    await reader.close();
    await shared.drop();
  });

  /** The reader's answers for every identity and type equal brute force; named sorts follow the store's order. */
  async function assertAgrees(context: string): Promise<void> {
    const expected = bruteForce(network);
    for (const identity of network.identities) {
      for (const type of TYPES) {
        const page = await engine.related('identity', identity.id, 'service', ALL, type);
        assert.deepEqual(page.items.map((s) => s.id).sort(), expected.servicesOf(identity, type), `${context}: ${identity.id} ${type ?? 'any'}`);
        assert.equal(page.pagination.totalCount, page.items.length, context);
      }
    }
    // The policies granting each service on a page (what a client's posture queries and sessions rest on).
    for (const holder of network.identities.slice(0, 25)) {
      const page = await engine.visibleServices(holder, { limit: '-1' }, { fields: SERVICE_FIELDS, everyService: false, within: [] });
      for (const { service, grants } of page.items) {
        const granting = network.servicePolicies
          .filter((p) => matchesRoles(parseRoles(p.identityRoles), p.semantic, holder) && matchesRoles(parseRoles(p.serviceRoles), p.semantic, service))
          .map((p) => `${p.id}:${p.type}`)
          .sort();
        assert.deepEqual(grants.map((g) => `${g.id}:${g.type}`).sort(), granting, `${context}: grants of ${service.id} to ${holder.id}`);
      }
    }
    const identity = network.identities.find((i) => expected.servicesOf(i).length > 3) ?? network.identities[0]!;
    for (const sort of ['name desc', 'name', undefined]) {
      const fromIndex = await engine.related('identity', identity.id, 'service', { sort, limit: '3', offset: '1' });
      // The store's own sort (the default is createdAt, then id), through the path that filters in SQL.
      const fromStore = await engine.related('identity', identity.id, 'service', { sort, limit: '3', offset: '1', filter: 'name != "-"' });
      assert.deepEqual(fromIndex.items.map((s) => s.id), fromStore.items.map((s) => s.id), `${context}: sort ${sort ?? 'default'}`);
      assert.equal(fromIndex.pagination.totalCount, fromStore.pagination.totalCount, context);
    }
  }

  it('follows every change made on the other controller, in the next answer', async () => {
    await assertAgrees('as seeded');
    const random = seededRandom(7);
    const services = createServiceRepository(writer);
    const policies = createServicePolicyRepository(writer);
    const attribute = () => `service-a${Math.floor(random() * SIZES.attributes)}`;
    const identityAttribute = () => `identity-a${Math.floor(random() * SIZES.attributes)}`;
    for (let step = 0; step < 30; step++) {
      const at = new Date();
      const kind = Math.floor(random() * 6);
      const service = network.services[Math.floor(random() * network.services.length)]!;
      const policy = network.servicePolicies[Math.floor(random() * network.servicePolicies.length)]!;
      if (kind === 0) {
        service.roleAttributes = [attribute(), attribute()].filter((a, i, all) => all.indexOf(a) === i);
        service.name = `${service.name.split('~')[0]}~${step}`;
        await services.update(serviceOf(service, at));
      } else if (kind === 1) {
        await services.delete(service.id);
        network.services = network.services.filter((s) => s !== service);
      } else if (kind === 2) {
        const added = { id: `r-new-service-${step}`, name: `r-new-service-${step}`, roleAttributes: [attribute()] };
        await services.insert(serviceOf(added, at));
        network.services.push(added);
      } else if (kind === 3) {
        policy.identityRoles = random() < 0.2 ? ['#all'] : [`#${identityAttribute()}`];
        policy.serviceRoles = random() < 0.5 ? [`#${attribute()}`, `#${attribute()}`].filter((a, i, all) => all.indexOf(a) === i) : [`@${service.id}`];
        policy.semantic = random() < 0.5 ? 'AllOf' : 'AnyOf';
        policy.type = random() < 0.5 ? 'Dial' : 'Bind';
        await policies.update(policyOf(policy, at));
      } else if (kind === 4) {
        await policies.delete(policy.id);
        network.servicePolicies = network.servicePolicies.filter((p) => p !== policy);
      } else {
        const added: NetServicePolicy = { id: `r-new-sp-${step}`, name: `r-new-sp-${step}`, semantic: 'AnyOf', type: 'Dial', identityRoles: [`#${identityAttribute()}`], serviceRoles: [`#${attribute()}`], postureCheckRoles: [] };
        await policies.insert(policyOf(added, at));
        network.servicePolicies.push(added);
      }
      await assertAgrees(`after step ${step} (kind ${kind})`);
    }
  });

  it('rebuilds when the log no longer holds the changes it missed', async () => {
    await assertAgrees('before');
    const services = createServiceRepository(writer);
    for (const service of network.services.slice(0, 3)) {
      service.roleAttributes = ['service-a0'];
      await services.update(serviceOf(service, new Date()));
    }
    // What pruning leaves: the newest change only, so the numbers the reader expects next are gone.
    const newest = await writer.db.selectFrom('authorization_changes').select(({ fn }) => fn.max('seq').as('seq')).executeTakeFirstOrThrow();
    await writer.db.deleteFrom('authorization_changes').where('seq', '<', Number(newest.seq)).execute();
    await assertAgrees('after pruning');
  });

  it('rebuilds after a bulk load', async () => {
    const more = randomNetwork(seededRandom(99), { ...SIZES, identities: 5, servicePolicies: 10, prefix: 'bulk' });
    await insertNetwork(writer, more);
    network = {
      ...network,
      identities: [...network.identities, ...more.identities],
      services: [...network.services, ...more.services],
      servicePolicies: [...network.servicePolicies, ...more.servicePolicies],
    };
    await assertAgrees('after the bulk load');
  });

  it('answers every question asked after a commit with it, however many are in flight', async () => {
    const identity = network.identities[0]!;
    const policies = createServicePolicyRepository(writer);
    const grant: NetServicePolicy = { id: 'r-grant', name: 'r-grant', semantic: 'AnyOf', type: 'Bind', identityRoles: [`@${identity.id}`], serviceRoles: ['#all'], postureCheckRoles: [] };
    const ask = () => engine.related('identity', identity.id, 'service', { limit: '1' }, 'Bind');
    const before = Promise.all(Array.from({ length: 10 }, ask));
    await policies.insert(policyOf(grant, new Date()));
    const afterwards = await Promise.all(Array.from({ length: 10 }, ask));
    await before;
    for (const page of afterwards) assert.equal(page.pagination.totalCount, network.services.length);
    await policies.delete(grant.id);
    for (const page of await Promise.all(Array.from({ length: 10 }, ask))) assert.equal(page.pagination.totalCount, bruteForce(network).servicesOf(identity, 'Bind').length);
  });

  it('sorts names exactly as the store does, characters beyond U+FFFF included', async () => {
    const services = createServiceRepository(writer);
    const names = ['\u{1F600} smile', '\uE000 private', '\uFFFD replacement', 'Zeta', 'alpha', 'Ä umlaut', '~tilde', '0 zero'];
    const identity: NetEntity = { id: 'sort-identity', name: 'sort-identity', roleAttributes: [] };
    const policies = createServicePolicyRepository(writer);
    await policies.insert(policyOf({ id: 'sort-sp', name: 'sort-sp', semantic: 'AnyOf', type: 'Dial', identityRoles: ['@sort-identity'], serviceRoles: ['#sorting'], postureCheckRoles: [] }, new Date()));
    await insertNetwork(writer, { identities: [identity], services: [], routers: [], postureChecks: [], servicePolicies: [], edgeRouterPolicies: [], serviceEdgeRouterPolicies: [] });
    for (const [i, name] of names.entries()) await services.insert(serviceOf({ id: `sort-${i}`, name, roleAttributes: ['sorting'] }, new Date()));
    for (const sort of ['name', 'name desc']) {
      const fromIndex = await engine.related('identity', identity.id, 'service', { sort, limit: '-1' });
      const fromStore = await engine.related('identity', identity.id, 'service', { sort, limit: '-1', filter: 'name != "-"' });
      // Policies with `#all` identities from the earlier tests add theirs; these eight must be among them.
      for (const name of names) assert.ok(fromIndex.items.some((s) => s.name === name), name);
      assert.deepEqual(fromIndex.items.map((s) => s.name), fromStore.items.map((s) => s.name), sort);
    }
  });
});
