/**
 * Which edge routers a client may reach a service through, answered from memory (issue 15, POST /sessions and the
 * service's routers): the routers that an edge router policy selecting the identity and a service edge router policy
 * selecting the service both name. A pure structure beside the service reach index (service-reach-state.ts), filled
 * and kept current by the same reader of the change log.
 *
 * Routers are slots; every attribute has a bit set of the slots holding it, so a policy's routers are a few word-wise
 * ORs (`AnyOf`) or ANDs (`AllOf`) over sets of (routers / 32) words, and an identity's or a service's routers are
 * kept as one set until anything here changes. A page walks the routers in list order and keeps those in both sets.
 * The cost grows with the policies selecting the two and the routers there are / 32, never with identities or
 * services.
 */
import type { EdgeRouter } from '../domain/edge-router.js';
import { matchesRoles, parseRoles, type ParsedRoles, type RoleHolder, type Semantic } from './roles.js';
import { compareStoredText, holderKey } from './service-reach-state.js';

/** An edge router policy (holders: identities) or a service edge router policy (holders: services). */
export interface RouterPolicy {
  id: string;
  semantic: Semantic;
  holderRoles: readonly string[];
  edgeRouterRoles: readonly string[];
}

/** The list orders a page of routers can be read in: the lists' default (`createdAt`, then `id`) and by `name`. */
export type RouterOrder = 'createdAt' | 'name';

interface IndexedRouterPolicy {
  id: string;
  semantic: Semantic;
  holder: ParsedRoles;
  routers: ParsedRoles;
  keys: string[];
}

/** How many identities' and services' router sets are kept. */
const MAX_KEPT_SETS = 20_000;

/** Policies by the holder roles they name (`#all`, `@id`, `#attr`), to find those selecting one holder. */
class HolderIndex {
  private readonly policies = new Map<string, IndexedRouterPolicy>();
  private readonly byRole = new Map<string, Set<IndexedRouterPolicy>>();

  put(policy: RouterPolicy): void {
    this.remove(policy.id);
    const holder = parseRoles(policy.holderRoles);
    const keys = [...(holder.all ? ['#all'] : []), ...holder.ids.map((id) => `@${id}`), ...holder.attributes.map((attribute) => `#${attribute}`)];
    const indexed: IndexedRouterPolicy = { id: policy.id, semantic: policy.semantic, holder, routers: parseRoles(policy.edgeRouterRoles), keys };
    this.policies.set(policy.id, indexed);
    for (const key of new Set(keys)) {
      let holders = this.byRole.get(key);
      if (!holders) this.byRole.set(key, (holders = new Set()));
      holders.add(indexed);
    }
  }

  remove(id: string): void {
    const policy = this.policies.get(id);
    if (!policy) return;
    for (const key of policy.keys) {
      const holders = this.byRole.get(key);
      holders?.delete(policy);
      if (holders?.size === 0) this.byRole.delete(key);
    }
    this.policies.delete(id);
  }

  /** The policies selecting `holder`: candidates through the role index, decided exactly by `matchesRoles`. */
  selecting(holder: RoleHolder): IndexedRouterPolicy[] {
    const candidates = new Set<IndexedRouterPolicy>();
    for (const key of ['#all', `@${holder.id}`, ...holder.roleAttributes.map((attribute) => `#${attribute}`)]) {
      for (const policy of this.byRole.get(key) ?? []) candidates.add(policy);
    }
    return [...candidates].filter((policy) => matchesRoles(policy.holder, policy.semantic, holder));
  }
}

export class RouterReachState {
  private readonly slotOf = new Map<string, number>();
  private readonly routers: (EdgeRouter | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  /** Words per set: room for `words * 32` slots. */
  private words = 0;
  private live = new Uint32Array(0);
  private readonly byAttribute = new Map<string, Uint32Array>();
  private readonly orders: Record<RouterOrder, number[]> = { createdAt: [], name: [] };
  private readonly identityPolicies = new HolderIndex();
  private readonly servicePolicies = new HolderIndex();
  /** Router sets of identities and services by holder, oldest first; dropped on any change. */
  private readonly kept = new Map<string, Uint32Array>();

  /** A state holding `routers` and both kinds of policy, its orders sorted once at the end. */
  static build(routers: Iterable<EdgeRouter>, edgeRouterPolicies: Iterable<RouterPolicy>, serviceEdgeRouterPolicies: Iterable<RouterPolicy>): RouterReachState {
    const state = new RouterReachState();
    for (const router of routers) state.putRouter(router, false);
    for (const order of ['createdAt', 'name'] as const) state.orders[order].sort((a, b) => state.compare(order, state.routerAt(a), state.routerAt(b)));
    for (const policy of edgeRouterPolicies) state.putEdgeRouterPolicy(policy);
    for (const policy of serviceEdgeRouterPolicies) state.putServiceEdgeRouterPolicy(policy);
    return state;
  }

  get routerCount(): number {
    return this.slotOf.size;
  }

  /** Adds a router, or replaces the one with its id. */
  putRouter(router: EdgeRouter, ordered = true): void {
    this.kept.clear();
    this.removeRouter(router.id);
    const slot = this.freeSlots.pop() ?? this.routers.length;
    if (slot >= this.words * 32) this.grow();
    this.routers[slot] = router;
    this.slotOf.set(router.id, slot);
    setBit(this.live, slot);
    for (const attribute of new Set(router.roleAttributes)) {
      let members = this.byAttribute.get(attribute);
      if (!members) this.byAttribute.set(attribute, (members = new Uint32Array(this.words)));
      setBit(members, slot);
    }
    for (const order of ['createdAt', 'name'] as const) {
      const list = this.orders[order];
      list.splice(ordered ? this.position(order, list, router) : list.length, 0, slot);
    }
  }

  removeRouter(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.kept.clear();
    const router = this.routerAt(slot);
    clearBit(this.live, slot);
    for (const attribute of router.roleAttributes) {
      const members = this.byAttribute.get(attribute);
      if (!members) continue;
      clearBit(members, slot);
      if (members.every((word) => word === 0)) this.byAttribute.delete(attribute);
    }
    for (const order of ['createdAt', 'name'] as const) {
      const list = this.orders[order];
      list.splice(this.position(order, list, router), 1);
    }
    this.routers[slot] = undefined;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
  }

  putEdgeRouterPolicy(policy: RouterPolicy): void {
    this.kept.clear();
    this.identityPolicies.put(policy);
  }

  removeEdgeRouterPolicy(id: string): void {
    this.kept.clear();
    this.identityPolicies.remove(id);
  }

  putServiceEdgeRouterPolicy(policy: RouterPolicy): void {
    this.kept.clear();
    this.servicePolicies.put(policy);
  }

  removeServiceEdgeRouterPolicy(id: string): void {
    this.kept.clear();
    this.servicePolicies.remove(id);
  }

  /**
   * One page of the routers both `identity`'s edge router policies and `service`'s service edge router policies
   * name, in `order` (`descending` reverses it; meaningful for `name`, whose values are unique), after `offset`, at
   * most `limit` (-1: no limit), with how many there are in all.
   */
  common(identity: RoleHolder, service: RoleHolder, order: RouterOrder, descending: boolean, offset: number, limit: number): { items: EdgeRouter[]; totalCount: number } {
    const mine = this.routersOf('identity', identity);
    const its = this.routersOf('service', service);
    let totalCount = 0;
    for (let w = 0; w < this.words; w++) totalCount += popCount((mine[w] as number) & (its[w] as number));
    const items: EdgeRouter[] = [];
    const list = this.orders[order];
    const wanted = limit < 0 ? totalCount : Math.min(totalCount, offset + limit);
    let seen = 0;
    for (let i = 0; i < list.length && seen < wanted; i++) {
      const slot = list[descending ? list.length - 1 - i : i] as number;
      if (!hasBit(mine, slot) || !hasBit(its, slot)) continue;
      if (seen++ >= offset) items.push(this.routerAt(slot));
    }
    return { items, totalCount };
  }

  /** The routers the policies selecting `holder` name, as a set kept until anything changes. */
  private routersOf(kind: 'identity' | 'service', holder: RoleHolder): Uint32Array {
    const key = `${kind}|${holderKey(holder)}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const set = new Uint32Array(this.words);
    for (const policy of (kind === 'identity' ? this.identityPolicies : this.servicePolicies).selecting(holder)) this.addRouters(set, policy.routers, policy.semantic);
    this.kept.set(key, set);
    if (this.kept.size > MAX_KEPT_SETS) this.kept.delete(this.kept.keys().next().value as string);
    return set;
  }

  /** Adds to `set` the routers `roles` select under `semantic` (the same rule as `matchesRoles`). */
  private addRouters(set: Uint32Array, roles: ParsedRoles, semantic: Semantic): void {
    if (roles.all) return orInto(set, this.live);
    for (const id of roles.ids) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) setBit(set, slot);
    }
    const { attributes } = roles;
    if (attributes.length === 0) return;
    if (semantic === 'AnyOf' || attributes.length === 1) {
      for (const attribute of attributes) {
        const members = this.byAttribute.get(attribute);
        if (members) orInto(set, members);
      }
      return;
    }
    // All of a group: the routers holding every one of the attributes.
    const groups = attributes.map((attribute) => this.byAttribute.get(attribute));
    if (groups.some((members) => members === undefined)) return;
    const all = Uint32Array.from(groups[0] as Uint32Array);
    for (const members of groups.slice(1)) for (let w = 0; w < all.length; w++) all[w] = (all[w] as number) & ((members as Uint32Array)[w] as number);
    orInto(set, all);
  }

  private routerAt(slot: number): EdgeRouter {
    return this.routers[slot] as EdgeRouter;
  }

  /** Doubles the room of every set (kept sets are dropped by the change that grows it). */
  private grow(): void {
    this.words = Math.max(32, this.words * 2);
    const widen = (set: Uint32Array) => {
      const wider = new Uint32Array(this.words);
      wider.set(set);
      return wider;
    };
    this.live = widen(this.live);
    for (const [attribute, members] of this.byAttribute) this.byAttribute.set(attribute, widen(members));
  }

  private position(order: RouterOrder, list: readonly number[], router: EdgeRouter): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(order, this.routerAt(list[middle] as number), router) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private compare(order: RouterOrder, a: EdgeRouter, b: EdgeRouter): number {
    // The stored ISO text of createdAt sorts as the store sorts it; the Date's milliseconds give the same order.
    const first = order === 'name' ? compareStoredText(a.name, b.name) : a.createdAt.getTime() - b.createdAt.getTime();
    return first !== 0 ? first : compareStoredText(a.id, b.id);
  }
}

function setBit(set: Uint32Array, slot: number): void {
  set[slot >>> 5] = (set[slot >>> 5] as number) | (1 << (slot & 31));
}

function clearBit(set: Uint32Array, slot: number): void {
  set[slot >>> 5] = (set[slot >>> 5] as number) & ~(1 << (slot & 31));
}

function hasBit(set: Uint32Array, slot: number): boolean {
  return ((set[slot >>> 5] as number) & (1 << (slot & 31))) !== 0;
}

function orInto(set: Uint32Array, other: Uint32Array): void {
  for (let w = 0; w < set.length; w++) set[w] = (set[w] as number) | (other[w] as number);
}

/** The number of set bits in a 32-bit word. */
function popCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}
