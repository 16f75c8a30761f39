/**
 * The change preview (issue 45, `POST /change-previews`, decision 0082): before a policy of any kind is created,
 * changed or deleted, or the role attributes of an identity, a service or an edge router change, who would gain and
 * who would lose what (a posture check's change: change-preview-posture.ts). Nothing is saved: the current state is read from the policy engine and the change is applied in memory.
 *
 * A pair (identity, service, type) is a gain when the change grants it and nothing grants it now, a loss when only
 * what the change removes grants it now. Pairs are examined in the store's order up to a budget; counts are exact
 * when every candidate pair was examined, and marked `countIsLowerBound` otherwise (an `#all` policy on a million
 * identities is answered in the budget's time, never by examining the network).
 */
import type { ServicePolicyType } from '../../domain/policy.js';
import type { ListPage } from '../list-page.js';
import type { IdentityService } from '../identities/identities.js';
import type { PolicyEngine } from './engine.js';
import type { EdgeRouterService } from './edge-routers.js';
import type { ServiceService } from './services.js';
import {
  dedupe,
  invalid,
  KINDS,
  named,
  PREVIEW_BUDGET,
  PREVIEW_ITEMS,
  PREVIEWABLE,
  rolesOf,
  semanticOf,
  sideSelects,
  type AccessChanges,
  type AnyPolicyRecord,
  type ChangePreview,
  type ChangePreviewRequest,
  type ChangePreviewService,
  type Collection,
  type Holder,
  type PolicyKind,
  type Side,
} from './change-preview-kinds.js';

export { PREVIEW_BUDGET, PREVIEW_ITEMS, type AccessChange, type AccessChanges, type ChangePreview, type ChangePreviewRequest, type ChangePreviewService } from './change-preview-kinds.js';


export function createChangePreviewService(deps: {
  engine: PolicyEngine;
  policies: Record<'service-policies' | 'edge-router-policies' | 'service-edge-router-policies', { get(id: string): Promise<object> }>;
  identities: Pick<IdentityService, 'get' | 'list'>;
  services: Pick<ServiceService, 'list'>;
  edgeRouters: Pick<EdgeRouterService, 'list'>;
  /** Previews a posture check's create, update or delete (change-preview-posture.ts). */
  posture: ChangePreviewService;
}): ChangePreviewService {
  const { engine } = deps;

  /** Up to `limit` members of a role side, in name order, and how many there are. */
  async function members(kind: Collection, side: Side, limit: number): Promise<ListPage<Holder>> {
    if (side.roles.length === 0) return { items: [], pagination: { limit, offset: 0, totalCount: 0 }, filterableFields: [] };
    const params = { roleFilter: side.roles, roleSemantic: side.semantic, limit: String(Math.max(1, limit)), sort: 'name asc' };
    if (kind === 'identities') {
      const page = await deps.identities.list(params);
      return { ...page, items: page.items.map((detail) => ({ id: detail.identity.id, name: detail.identity.name, roleAttributes: detail.identity.roleAttributes })) };
    }
    const page = kind === 'services' ? await deps.services.list(params) : await deps.edgeRouters.list(params);
    return { ...page, items: page.items.map((entity) => ({ id: entity.id, name: entity.name, roleAttributes: entity.roleAttributes })) };
  }

  /** The ids of the policies of `kind` granting the pair now (of `type`, for service policies). */
  async function grantingNow(kind: PolicyKind, a: Holder, b: Holder, type: ServicePolicyType | undefined): Promise<string[]> {
    if (kind.policyType === 'service-policy') {
      const decision = await engine.access(a.id, b.id, type!);
      return decision.allowed ? decision.policies.map((entry) => entry.policy.id) : [];
    }
    const [first, second] = await Promise.all([engine.policiesSelecting(kind.policyType, kind.sides[0].side, a), engine.policiesSelecting(kind.policyType, kind.sides[1].side, b)]);
    const other = new Set(second.map((policy) => policy.id));
    return first.filter((policy) => other.has(policy.id)).map((policy) => policy.id);
  }

  /** Examines the pairs of the two sides' members, keeping those `keep` says are a change. */
  async function examine(
    kind: PolicyKind,
    firsts: ListPage<Holder>,
    seconds: ListPage<Holder>,
    type: ServicePolicyType | undefined,
    keep: (granting: string[], a: Holder, b: Holder) => boolean | Promise<boolean>,
    out: AccessChanges,
    budget: { left: number },
  ) {
    const total = firsts.pagination.totalCount * seconds.pagination.totalCount;
    let examined = 0;
    for (const a of firsts.items) {
      for (const b of seconds.items) {
        if (budget.left <= 0) break;
        budget.left--;
        examined++;
        if (!(await keep(await grantingNow(kind, a, b, type), a, b))) continue;
        out.count++;
        if (out.items.length < PREVIEW_ITEMS) {
          out.items.push({ [kind.sides[0].key]: named(a), [kind.sides[1].key]: named(b), ...(type ? { permission: type === 'Dial' ? 'dial' : 'bind' } : {}) });
        }
      }
    }
    if (examined < total) out.countIsLowerBound = true;
  }

  async function policyPreview(kind: PolicyKind, request: ChangePreviewRequest): Promise<ChangePreview> {
    if (request.id === undefined && request.delete) throw invalid('id', 'is required to preview a delete');
    const current = request.id === undefined ? undefined : ((await deps.policies[request.entity as keyof typeof deps.policies].get(request.id)) as AnyPolicyRecord);
    const change = (request.change ?? {}) as Record<string, unknown>;
    if (kind.typed && request.id === undefined && change.type !== 'Dial' && change.type !== 'Bind') {
      throw invalid('change.type', "must be 'Dial' or 'Bind' for a new service policy", change.type);
    }
    const type = kind.typed ? (((change.type as ServicePolicyType | undefined) ?? current?.type) as ServicePolicyType) : undefined;
    const rolesNow = (key: string) => (current?.[key] as string[] | undefined) ?? [];
    const semantic = semanticOf(change, current?.semantic ?? 'AllOf');
    const before = current ? kind.sides.map((side) => ({ roles: rolesNow(side.roles), semantic: current.semantic })) : undefined;
    const after = request.delete ? undefined : kind.sides.map((side) => ({ roles: rolesOf(change, side.roles, rolesNow(side.roles)), semantic }));
    const budget = { left: PREVIEW_BUDGET };
    const gains: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const losses: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const width = (n: number) => Math.min(200, Math.max(1, Math.ceil(PREVIEW_BUDGET / Math.max(1, n))));
    const sidesOf = async (roles: Side[]) => {
      const seconds = await members(kind.sides[1].collection, roles[1]!, 100);
      const firsts = await members(kind.sides[0].collection, roles[0]!, width(seconds.items.length));
      return [firsts, seconds] as const;
    };
    if (after) {
      const [firsts, seconds] = await sidesOf(after);
      // A gain: the change grants it, and nothing grants it now (the policy being changed included).
      await examine(kind, firsts, seconds, type, (granting) => granting.length === 0, gains, budget);
    }
    if (before && current) {
      const [firsts, seconds] = await sidesOf(before);
      const stillSelected = (a: Holder, b: Holder) =>
        after !== undefined && (!kind.typed || type === current.type) && sideSelects(after[0]!, a) && sideSelects(after[1]!, b);
      // A loss: only this policy grants it now, and after the change it no longer does.
      await examine(kind, firsts, seconds, current.type, (granting, a, b) => granting.length === 1 && granting[0] === current.id && !stillSelected(a, b), losses, budget);
    }
    return { gains, losses };
  }

  /**
   * When one holder's role attributes change: the policies of `kind` that select it only after the change grant it
   * their other side's members (a gain when nothing grants the pair now), those that select it only before take
   * them away (a loss when no policy still selecting it grants the pair). `at` is the holder's side in `kind`.
   */
  async function attributeChanges(
    kind: PolicyKind,
    at: 0 | 1,
    holder: Holder,
    attributes: string[],
    into: ChangePreview,
    budget: { left: number },
    keepPair: (changed: boolean, a: Holder, b: Holder) => boolean | Promise<boolean> = (changed) => changed,
  ): Promise<void> {
    const next = { ...holder, roleAttributes: attributes };
    const own = kind.sides[at];
    const other = kind.sides[at === 0 ? 1 : 0];
    // The holder as it is now: what grants a pair now is judged on its current attributes.
    const one = { items: [holder], pagination: { limit: 1, offset: 0, totalCount: 1 }, filterableFields: [] };
    for (const type of kind.typed ? (['Dial', 'Bind'] as const) : [undefined]) {
      const [policiesNow, policiesNext] = await Promise.all([
        engine.policiesSelecting(kind.policyType, own.side, holder, type),
        engine.policiesSelecting(kind.policyType, own.side, next, type),
      ]);
      const nowIds = new Set(policiesNow.map((p) => p.id));
      const nextIds = new Set(policiesNext.map((p) => p.id));
      const pass = async (policies: typeof policiesNow, out: AccessChanges, changed: (granting: string[]) => boolean) => {
        for (const policy of policies) {
          // Out of budget: the rest is counted as unexamined, without listing its members.
          if (budget.left <= 0) {
            out.countIsLowerBound = true;
            break;
          }
          // The policy exists: its members come from the engine as role entities (no per-member detail reads).
          const others = await engine.members(kind.policyType, policy.id, other.side, { limit: '200', sort: 'name asc' });
          const [firsts, seconds] = at === 0 ? [one, others] : [others, one];
          await examine(kind, firsts, seconds, type, (granting, a, b) => keepPair(changed(granting), a, b), out, budget);
        }
      };
      await pass(policiesNext.filter((p) => !nowIds.has(p.id)), into.gains, (granting) => granting.length === 0);
      await pass(policiesNow.filter((p) => !nextIds.has(p.id)), into.losses, (granting) => granting.every((id) => !nextIds.has(id)));
    }
  }

  /** The change's new role attributes, checked as the entity's own endpoint checks them. */
  function attributesOf(request: ChangePreviewRequest, label: string): string[] {
    if (request.id === undefined) throw invalid('id', `is required: a new ${label} has no access to preview`);
    if (request.delete) throw invalid('delete', `is not previewed for ${label}s: a deleted ${label} loses everything it has`);
    const value = ((request.change ?? {}) as Record<string, unknown>).roleAttributes;
    if (!Array.isArray(value) || value.some((a) => typeof a !== 'string')) throw invalid('change.roleAttributes', 'must be a list of attribute strings', JSON.stringify(value));
    return (value as string[]).map((a) => a.replace(/^#/, ''));
  }

  const empty = (): ChangePreview => ({ gains: { count: 0, countIsLowerBound: false, items: [] }, losses: { count: 0, countIsLowerBound: false, items: [] } });

  /**
   * The role attributes of an identity (which services it gains or loses, and how), a service (which identities
   * gain or lose it), or an edge router: which identities gain or lose the router (edge router policies), and which
   * services gain their first or lose their last edge router (service edge router policies); a service that keeps
   * another router is still reachable, so only its last one is a change of access.
   */
  async function attributesPreview(request: ChangePreviewRequest, target: 'identity' | 'service' | 'edge-router'): Promise<ChangePreview> {
    const attributes = attributesOf(request, target.replace('-', ' '));
    const holder = await engine.entity(target, request.id!);
    const out = empty();
    const budget = { left: PREVIEW_BUDGET };
    if (target !== 'edge-router') await attributeChanges(KINDS['service-policies']!, target === 'identity' ? 0 : 1, holder, attributes, out, budget);
    else {
      await attributeChanges(KINDS['edge-router-policies']!, 1, holder, attributes, out, budget);
      const onlyRouterChange = async (changed: boolean, service: Holder) => {
        if (!changed) return false;
        // The service's routers now: a lost router is among them, a gained one is not; either way, no other one.
        const routers = await engine.related('service', service.id, 'edge-router', { limit: '2' });
        return routers.pagination.totalCount - (routers.items.some((item) => item.id === holder.id) ? 1 : 0) === 0;
      };
      await attributeChanges(KINDS['service-edge-router-policies']!, 1, holder, attributes, out, budget, onlyRouterChange);
    }
    dedupe(out.gains);
    dedupe(out.losses);
    return out;
  }

  return {
    async preview(request) {
      if (!PREVIEWABLE.includes(request.entity)) throw invalid('entity', `must be one of ${PREVIEWABLE.join(', ')}`, request.entity);
      if (request.change !== undefined && (typeof request.change !== 'object' || request.change === null || Array.isArray(request.change))) {
        throw invalid('change', 'must be an object: the body the create or update would send');
      }
      switch (request.entity) {
        case 'identities':
          return attributesPreview(request, 'identity');
        case 'services':
          return attributesPreview(request, 'service');
        case 'edge-routers':
          return attributesPreview(request, 'edge-router');
        case 'posture-checks':
          return deps.posture.preview(request);
        default:
          return policyPreview(KINDS[request.entity]!, request);
      }
    },
  };
}

