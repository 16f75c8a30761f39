/**
 * Which services an identity reaches through service policies, answered from memory (issue 14; decision 0028).
 * A pure structure, knowing nothing of the store: services and service policies go in and out one by one, and a
 * question takes an identity (id and attributes) and returns one page of the services it may dial and/or bind, in
 * list order, with the total.
 *
 * The cost of an answer grows with what the identity sees, never with the network:
 * - the policies that select the identity are found through an index from identity role (`#all`, `@id`, `#attr`)
 *   to policy, then decided exactly by `matchesRoles` (the one definition of a match, policy/roles.ts);
 * - each matched policy marks its services through an index from service attribute to service (an `AllOf` group
 *   walks its smallest attribute and checks the others), so the work is the members of the matched roles;
 * - the marked services are sorted by their rank in the list order (kept as services come and go), and the whole
 *   answer is kept for the identity's next page or poll until anything changes.
 * Marks are stamps in arrays reused between questions. Keeping the orders costs a service change one shift of an
 * array of the services (a memory move, ~0.1 ms at 100,000 services).
 */
import type { ServicePolicyType, Tags } from '../domain/policy.js';
import type { Service } from '../domain/service.js';
import { matchesRoles, parseRoles, type ParsedRoles, type RoleHolder, type Semantic } from './roles.js';
import { RouterReachState } from './router-reach-state.js';
import { hashText, mix, ServiceContents } from './service-contents.js';

/**
 * A service as the index needs it, and whole (domain/service.ts), so that a page of services needs no read of the
 * store: kept as given and handed out as is, never changed. `createdAtText` is the stored ISO text, which sorts as
 * the store sorts it.
 */
export interface ReachService extends Readonly<Omit<Service, 'roleAttributes' | 'configs' | 'tags'>> {
  readonly roleAttributes: readonly string[];
  /** Its config ids, whose contents the service list's fingerprint covers too. */
  readonly configs: readonly string[];
  readonly tags: Readonly<Tags>;
  readonly createdAtText: string;
}

/** A service policy as the index needs it. */
export interface ReachPolicy {
  id: string;
  type: ServicePolicyType;
  semantic: Semantic;
  identityRoles: readonly string[];
  serviceRoles: readonly string[];
  postureCheckRoles: readonly string[];
}

// Each attribute list's key, made once: a kept identity (the same object from request to request) is asked about on
// every poll. Attribute lists are never changed in place; a changed identity is a new object with a new list.
const holderKeys = new WeakMap<readonly string[], { id: string; key: string }>();

/**
 * What an answer about `identity` depends on, as text: its id and its attributes in any order. Answers kept under it
 * stay right for the identity until the state changes, and an attribute change gives another key.
 */
export function holderKey(identity: RoleHolder): string {
  const known = holderKeys.get(identity.roleAttributes);
  if (known !== undefined && known.id === identity.id) return known.key;
  const key = `${identity.id}|${[...identity.roleAttributes].sort().join('\u0000')}`;
  holderKeys.set(identity.roleAttributes, { id: identity.id, key });
  return key;
}

/** A service policy granting an identity a service, with the ids of the posture checks the policy names. */
export interface ReachGrant {
  id: string;
  type: ServicePolicyType;
  postureCheckIds: string[];
}

/** The list orders a page can be read in: the lists' default (`createdAt`, then `id`) and by `name`. */
export type ReachOrder = 'createdAt' | 'name';

export interface ReachPage {
  /** The page's services, in order, each with the permissions the identity has on it. */
  items: { service: ReachService; dial: boolean; bind: boolean }[];
  totalCount: number;
}

/** A whole answer: the slots in list order and each one's permission bits. */
interface Answer {
  slots: Int32Array;
  bits: Uint8Array;
}

/** How many services the kept answers may hold together (5 bytes each): about 20 MiB. */
const MAX_ANSWER_SLOTS = 4_000_000;
/** How many identities' grant indexes are kept (each holds the few hundred policies selecting one identity). */
const MAX_GRANT_INDEXES = 10_000;

/** A policy selecting one identity, with its grant as handed out and its place in the identity's policy order. */
interface IndexedGrant {
  order: number;
  policy: IndexedPolicy;
  grant: ReachGrant;
}

/**
 * The policies selecting one identity, indexed by what their service roles name, so that the policies granting a
 * page of services are found by looking up each service's id and attributes instead of deciding every policy
 * against every service (an identity with three attributes is selected by hundreds of policies at full size).
 */
interface GrantIndex {
  /** Policies whose service roles are `#all`. */
  everyService: IndexedGrant[];
  /** Service id -> the policies naming it with `@id`. */
  byServiceId: Map<string, IndexedGrant[]>;
  /** Service attribute -> the policies whose service roles name it (an `AllOf` one under each of its attributes). */
  byAttribute: Map<string, IndexedGrant[]>;
}

interface IndexedPolicy {
  id: string;
  type: ServicePolicyType;
  bit: number;
  semantic: Semantic;
  identity: ParsedRoles;
  service: ParsedRoles;
  posture: ParsedRoles;
  /** The keys under which the policy sits in the identity-role index. */
  keys: string[];
}

const DIAL = 1;
const BIND = 2;
const bitOf = (type: ServicePolicyType) => (type === 'Dial' ? DIAL : BIND);

/**
 * The order of the store's `text` sort (SQLite's binary collation, PostgreSQL's "C"): UTF-8 bytes, which is code
 * point order. JavaScript compares UTF-16 code units, which differs only between a surrogate (a character above
 * U+FFFF) and a unit from U+E000 up; those two ranges swap.
 */
export function compareStoredText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

export class ServiceReachState {
  private readonly slotOf = new Map<string, number>();
  private readonly services: (ReachService | undefined)[] = [];
  /** Each slot's service id, hashed once for fingerprints. */
  private readonly idHashes: number[] = [];
  /** Configs, config types and posture checks, as stamps for fingerprints. */
  readonly contents = new ServiceContents();
  /** Edge routers and the two kinds of router policy: the routers a client reaches a service through. */
  routers = new RouterReachState();
  /** When the newest change the state includes was made (ms since the epoch; 0: none known). */
  newestChangeAt = 0;
  private readonly freeSlots: number[] = [];
  /** Service attribute -> the slots of the services holding it, in no order. */
  private readonly byAttribute = new Map<string, number[]>();
  /** Slots in list order: `createdAt, id` and `name, id`. */
  private readonly orders: Record<ReachOrder, number[]> = { createdAt: [], name: [] };
  /** Slot -> its index in each order, so a few marked services sort without walking the whole order. */
  private ranks: Record<ReachOrder, Int32Array> = { createdAt: new Int32Array(0), name: new Int32Array(0) };
  /** One bit per rank in an order, all clear between questions. */
  private rankBits = new Uint32Array(0);
  /** The slots the current question has marked, in marking order. */
  private touched: number[] = [];
  private readonly policies = new Map<string, IndexedPolicy>();
  private readonly byIdentityRole = new Map<string, Set<IndexedPolicy>>();
  private stamps = new Uint32Array(0);
  private marks = new Uint8Array(0);
  private epoch = 0;
  /** Whole answers by question, oldest first. */
  private readonly answers = new Map<string, Answer>();
  private answerSlots = 0;
  /** Grant indexes by identity (holderKey), oldest first; dropped with the answers on any change. */
  private readonly grantIndexes = new Map<string, GrantIndex>();

  /** The number of the newest change the state includes (the change log's). */
  constructor(public seq: number) {}

  get serviceCount(): number {
    return this.slotOf.size;
  }

  /**
   * A state holding `services` and `policies`, as of change `seq`: the list orders are sorted once at the end
   * rather than kept sorted one insertion at a time.
   */
  static build(seq: number, services: Iterable<ReachService>, policies: Iterable<ReachPolicy>): ServiceReachState {
    const state = new ServiceReachState(seq);
    for (const service of services) state.putService(service, false);
    for (const order of ['createdAt', 'name'] as const) {
      state.orders[order].sort((a, b) => state.compare(order, state.serviceAt(a), state.serviceAt(b)));
      state.renumber(order, 0);
    }
    for (const policy of policies) state.putPolicy(policy);
    return state;
  }

  /** Adds a service, or replaces the one with its id. */
  putService(service: ReachService, ordered = true): void {
    this.forget();
    this.removeService(service.id);
    const slot = this.freeSlots.pop() ?? this.services.length;
    const stored = service;
    this.services[slot] = stored;
    this.idHashes[slot] = hashText(stored.id);
    this.slotOf.set(service.id, slot);
    for (const attribute of stored.roleAttributes) {
      const members = this.byAttribute.get(attribute);
      if (members) members.push(slot);
      else this.byAttribute.set(attribute, [slot]);
    }
    for (const order of ['createdAt', 'name'] as const) {
      const list = this.orders[order];
      if (this.stamps.length < this.services.length) this.grow();
      if (!ordered) list.push(slot);
      else {
        const at = this.position(order, list, stored);
        list.splice(at, 0, slot);
        this.renumber(order, at);
      }
    }
  }

  removeService(id: string): void {
    this.forget();
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const service = this.serviceAt(slot);
    for (const attribute of service.roleAttributes) {
      const members = this.byAttribute.get(attribute) as number[];
      // Members are in no order: the last one takes the removed one's place.
      const last = members.pop() as number;
      if (last !== slot) members[members.indexOf(slot)] = last;
      if (members.length === 0) this.byAttribute.delete(attribute);
    }
    for (const order of ['createdAt', 'name'] as const) {
      const list = this.orders[order];
      const at = this.position(order, list, service);
      list.splice(at, 1);
      this.renumber(order, at);
    }
    this.services[slot] = undefined;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
  }

  /** Adds a service policy, or replaces the one with its id. */
  putPolicy(policy: ReachPolicy): void {
    this.forget();
    this.removePolicy(policy.id);
    const identity = parseRoles(policy.identityRoles);
    const keys = [...(identity.all ? ['#all'] : []), ...identity.ids.map((id) => `@${id}`), ...identity.attributes.map((attribute) => `#${attribute}`)];
    const indexed: IndexedPolicy = { id: policy.id, type: policy.type, bit: bitOf(policy.type), semantic: policy.semantic, identity, service: parseRoles(policy.serviceRoles), posture: parseRoles(policy.postureCheckRoles), keys };
    this.policies.set(policy.id, indexed);
    for (const key of new Set(keys)) {
      let holders = this.byIdentityRole.get(key);
      if (!holders) this.byIdentityRole.set(key, (holders = new Set()));
      holders.add(indexed);
    }
  }

  removePolicy(id: string): void {
    this.forget();
    const policy = this.policies.get(id);
    if (!policy) return;
    for (const key of policy.keys) {
      const holders = this.byIdentityRole.get(key);
      holders?.delete(policy);
      if (holders?.size === 0) this.byIdentityRole.delete(key);
    }
    this.policies.delete(id);
  }

  /**
   * One page of the services `identity` may `type` (either, when undefined), in `order` (`descending` reverses it;
   * only meaningful for `name`, whose values are unique), after `offset`, at most `limit` (-1: no limit).
   *
   * The whole answer is kept for the next page or the next poll of the same identity (a client paging through
   * thousands of services asks for the same set once a page), until anything in the state changes.
   */
  page(identity: RoleHolder, type: ServicePolicyType | undefined, order: ReachOrder, descending: boolean, offset: number, limit: number): ReachPage {
    const answer = this.answerFor(identity, type === undefined ? DIAL | BIND : bitOf(type), order);
    const { slots, bits } = answer;
    const items: ReachPage['items'] = [];
    const end = limit < 0 ? slots.length : Math.min(slots.length, offset + limit);
    for (let i = offset; i < end; i++) {
      const at = descending ? slots.length - 1 - i : i;
      const permissions = bits[at] as number;
      items.push({ service: this.serviceAt(slots[at] as number), dial: (permissions & DIAL) !== 0, bind: (permissions & BIND) !== 0 });
    }
    return { items, totalCount: slots.length };
  }

  /**
   * Every service `identity` reaches with the `wanted` permissions, in `order`, with its permission bits: the marked
   * slots sorted by their rank in the order, so the work grows with the answer, not with the services there are.
   */
  private answer(identity: RoleHolder, wanted: number, order: ReachOrder): Answer {
    const everything = this.mark(identity, wanted);
    const list = this.orders[order];
    const { stamps, marks, epoch, touched } = this;
    // A matched policy with `#all` services puts every service in the answer.
    const size = everything !== 0 ? list.length : touched.length;
    const slots = new Int32Array(size);
    const bits = new Uint8Array(size);
    const permissions = (slot: number) => everything | (stamps[slot] === epoch ? (marks[slot] as number) : 0);
    if (everything !== 0) {
      for (let i = 0; i < size; i++) {
        slots[i] = list[i] as number;
        bits[i] = permissions(list[i] as number);
      }
      return { slots, bits };
    }
    // Sorting by rank without comparing: set one bit per rank, then read the bits out in order (a pass over one
    // word per 32 services, then one step per member).
    const rank = this.ranks[order];
    const words = (list.length + 31) >>> 5;
    if (this.rankBits.length < words) this.rankBits = new Uint32Array(words * 2);
    const rankBits = this.rankBits;
    for (let i = 0; i < size; i++) {
      const at = rank[touched[i] as number] as number;
      rankBits[at >>> 5] = (rankBits[at >>> 5] as number) | (1 << (at & 31));
    }
    let next = 0;
    for (let w = 0; w < words; w++) {
      let word = rankBits[w] as number;
      if (word === 0) continue;
      rankBits[w] = 0;
      while (word !== 0) {
        const lowest = word & -word;
        const slot = list[(w << 5) + 31 - Math.clz32(lowest)] as number;
        slots[next] = slot;
        bits[next++] = permissions(slot);
        word ^= lowest;
      }
    }
    return { slots, bits };
  }

  /** Keeps `answer` as the newest, dropping the oldest ones beyond the budget. */
  private remember(key: string, answer: Answer): void {
    this.answers.set(key, answer);
    this.answerSlots += answer.slots.length;
    for (const [oldest, dropped] of this.answers) {
      if (this.answerSlots <= MAX_ANSWER_SLOTS || oldest === key) break;
      this.answers.delete(oldest);
      this.answerSlots -= dropped.slots.length;
    }
  }

  /** Drops every kept answer: the state they were computed from has changed. */
  private forget(): void {
    this.answers.clear();
    this.answerSlots = 0;
    this.grantIndexes.clear();
  }

  /**
   * A fingerprint of everything `identity`'s service list says: which services, with which permissions, each one's
   * own fields and its configs (with their types), and the posture checks of the policies that select the identity.
   * It changes when, and only when, one of those does (up to 64-bit hash collisions), so a change that touches
   * other identities only leaves it as it was.
   */
  fingerprint(identity: RoleHolder): string {
    const { slots, bits } = this.answerFor(identity, DIAL | BIND, 'createdAt');
    let first = 0;
    let second = 0;
    const add = (value: number) => {
      first = (first + value) >>> 0;
      second = (second + mix(value, 0x5bd1e995)) >>> 0;
    };
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as number;
      const service = this.serviceAt(slot);
      add(mix(mix(mix(this.idHashes[slot] as number, service.updatedAt.getTime()), bits[i] as number), this.contents.configStamp(service.configs)));
    }
    for (const policy of this.selecting(identity)) add(mix(mix(hashText(policy.id), policy.bit), this.contents.postureStamp(policy.posture, policy.semantic)));
    return `${slots.length}.${first.toString(16)}.${second.toString(16)}`;
  }

  /** The whole answer to a question, kept from an earlier one or computed now and kept. */
  private answerFor(identity: RoleHolder, wanted: number, order: ReachOrder): Answer {
    const key = `${wanted}|${order}|${holderKey(identity)}`;
    let answer = this.answers.get(key);
    if (answer) {
      this.answers.delete(key);
      this.answerSlots -= answer.slots.length;
    } else answer = this.answer(identity, wanted, order);
    this.remember(key, answer);
    return answer;
  }

  /** The service with id `id`, if the index holds it. */
  serviceById(id: string): ReachService | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.serviceAt(slot);
  }

  /** The ids of the posture checks service policy `policyId` names (none for an unknown policy). */
  postureCheckIds(policyId: string): string[] {
    const policy = this.policies.get(policyId);
    return policy ? this.contents.postureChecksOf(policy.posture, policy.semantic) : [];
  }

  /**
   * The service policies that grant `identity` each of `serviceIds` (those it has and the index knows), in no
   * particular order: the identity's matched policies, each decided against the service with `matchesRoles`.
   */
  grants(identity: RoleHolder, serviceIds: readonly string[]): Map<string, ReachGrant[]> {
    const index = this.grantIndexFor(identity);
    const granted = new Map<string, ReachGrant[]>();
    for (const id of serviceIds) {
      const slot = this.slotOf.get(id);
      if (slot === undefined) continue;
      const service = this.serviceAt(slot);
      // Candidates through the service's id and attributes, each decided exactly, once, in the identity's order.
      // (A page asks this for a hundred services: the usual one or two grants are found without sorting.)
      const found: IndexedGrant[] = index.everyService.slice();
      const consider = (candidates: readonly IndexedGrant[] | undefined) => {
        if (candidates === undefined) return;
        for (const candidate of candidates) {
          if (!found.includes(candidate) && matchesRoles(candidate.policy.service, candidate.policy.semantic, service)) found.push(candidate);
        }
      };
      consider(index.byServiceId.get(id));
      for (const attribute of service.roleAttributes) consider(index.byAttribute.get(attribute));
      if (found.length > 1) found.sort((a, b) => a.order - b.order);
      const grants: ReachGrant[] = new Array(found.length);
      for (let i = 0; i < found.length; i++) grants[i] = (found[i] as IndexedGrant).grant;
      granted.set(id, grants);
    }
    return granted;
  }

  /** The grant index of `identity`, kept from an earlier question or built now (one pass over its policies). */
  private grantIndexFor(identity: RoleHolder): GrantIndex {
    const key = holderKey(identity);
    const kept = this.grantIndexes.get(key);
    if (kept) return kept;
    const index: GrantIndex = { everyService: [], byServiceId: new Map(), byAttribute: new Map() };
    const add = (map: Map<string, IndexedGrant[]>, key: string, entry: IndexedGrant) => {
      const list = map.get(key);
      if (list) list.push(entry);
      else map.set(key, [entry]);
    };
    let order = 0;
    for (const policy of this.selecting(identity)) {
      // Each matched policy once, with the posture checks it names, read from the same state as the grants.
      const entry: IndexedGrant = { order: order++, policy, grant: { id: policy.id, type: policy.type, postureCheckIds: this.postureCheckIds(policy.id) } };
      const roles = policy.service;
      if (roles.all) {
        index.everyService.push(entry);
        continue;
      }
      for (const id of roles.ids) add(index.byServiceId, id, entry);
      for (const attribute of roles.attributes) add(index.byAttribute, attribute, entry);
    }
    this.grantIndexes.set(key, index);
    if (this.grantIndexes.size > MAX_GRANT_INDEXES) this.grantIndexes.delete(this.grantIndexes.keys().next().value as string);
    return index;
  }

  /**
   * Marks the services of the policies (of the `wanted` types) that select `identity`, listing them in `touched`.
   * Returns the permission bits every service has (from matched policies with `#all` services).
   */
  private mark(identity: RoleHolder, wanted: number): number {
    this.epoch = this.epoch === 0xffffffff ? this.resetStamps() : this.epoch + 1;
    this.touched = [];
    let everything = 0;
    for (const policy of this.selecting(identity)) {
      const bit = policy.bit;
      if ((bit & wanted) === 0) continue;
      const roles = policy.service;
      if (roles.all) {
        everything |= bit;
        continue;
      }
      for (const id of roles.ids) {
        const slot = this.slotOf.get(id);
        if (slot !== undefined) this.markAll([slot], bit);
      }
      const { attributes } = roles;
      if (policy.semantic === 'AnyOf' || attributes.length === 1) {
        for (const attribute of attributes) this.markAll(this.byAttribute.get(attribute) ?? [], bit);
      } else if (attributes.length > 1) {
        // All of a group: walk the holders of its rarest attribute and keep those holding the rest too.
        const groups = attributes.map((attribute) => this.byAttribute.get(attribute) ?? []).sort((a, b) => a.length - b.length);
        const holders = (groups[0] as number[]).filter((slot) => {
          const held = this.serviceAt(slot).roleAttributes;
          return attributes.every((attribute) => held.includes(attribute));
        });
        this.markAll(holders, bit);
      }
    }
    return everything;
  }

  /** Gives each of `slots` the permission `bit`, counting the slots this question had not marked yet. */
  private markAll(slots: readonly number[], bit: number): void {
    const { stamps, marks, epoch } = this;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as number;
      if (stamps[slot] === epoch) marks[slot] = (marks[slot] as number) | bit;
      else {
        stamps[slot] = epoch;
        marks[slot] = bit;
        this.touched.push(slot);
      }
    }
  }

  private serviceAt(slot: number): ReachService {
    return this.services[slot] as ReachService;
  }

  /** The service policies that select `identity`: candidates through the identity-role index, decided exactly. */
  private selecting(identity: RoleHolder): Set<IndexedPolicy> {
    const candidates = new Set<IndexedPolicy>();
    for (const key of ['#all', `@${identity.id}`, ...identity.roleAttributes.map((attribute) => `#${attribute}`)]) {
      for (const policy of this.byIdentityRole.get(key) ?? []) candidates.add(policy);
    }
    for (const policy of candidates) if (!matchesRoles(policy.identity, policy.semantic, identity)) candidates.delete(policy);
    return candidates;
  }

  /** Where `service` sits in `list` (sorted by `order`), by binary search. */
  private position(order: ReachOrder, list: readonly number[], service: ReachService): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(order, this.serviceAt(list[middle] as number), service) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private compare(order: ReachOrder, a: ReachService, b: ReachService): number {
    const first = order === 'name' ? compareStoredText(a.name, b.name) : compareStoredText(a.createdAtText, b.createdAtText);
    return first !== 0 ? first : compareStoredText(a.id, b.id);
  }

  /** Records the index of every slot in `order` from `from` on, after the order changed there. */
  private renumber(order: ReachOrder, from: number): void {
    const list = this.orders[order];
    const rank = this.ranks[order];
    for (let i = from; i < list.length; i++) rank[list[i] as number] = i;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.services.length * 2);
    for (const order of ['createdAt', 'name'] as const) {
      const rank = new Int32Array(capacity);
      rank.set(this.ranks[order]);
      this.ranks[order] = rank;
    }
    const stamps = new Uint32Array(capacity);
    stamps.set(this.stamps);
    const marks = new Uint8Array(capacity);
    marks.set(this.marks);
    this.stamps = stamps;
    this.marks = marks;
  }

  private resetStamps(): number {
    this.stamps.fill(0);
    return 1;
  }
}
