/**
 * The change preview (issue 45, `POST /change-previews`): before a service policy is created, changed or deleted,
 * or an identity's role attributes are changed, who would gain and who would lose which service, and how (dial or
 * bind). Nothing is saved: the current state is read from the policy engine and the change is applied in memory.
 *
 * A pair (identity, service, type) is a gain when the change grants it and nothing grants it now, a loss when only
 * what the change removes grants it now. Pairs are examined in the store's order up to a budget; counts are exact
 * when every candidate pair was examined, and marked `countIsLowerBound` otherwise (an `#all` policy on a million
 * identities is answered in the budget's time, never by examining the network).
 */
import type { PolicySide, PolicyType, ServicePolicyType } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import { matchesRoles, parseRoles, roleListProblem, SEMANTICS, type Semantic } from '../../policy/roles.js';
import type { ListPage } from '../list-page.js';
import type { IdentityService } from '../identities/identities.js';
import type { PolicyEngine } from './engine.js';
import type { EdgeRouterService } from './edge-routers.js';
import type { ServiceService } from './services.js';

/** Pairs examined at most per preview. */
export const PREVIEW_BUDGET = 2_000;
/** Items shown per side. */
export const PREVIEW_ITEMS = 50;

type Permission = 'dial' | 'bind';
interface Named {
  id: string;
  name: string;
}
/** An entity as the preview examines it: with its role attributes, to judge a hypothetical policy in memory. */
interface Holder extends Named {
  roleAttributes: readonly string[];
}
/** One pair that gains or loses: an identity and a service (with how), an identity and a router, or a service and a router. */
export interface AccessChange {
  identity?: Named;
  service?: Named;
  edgeRouter?: Named;
  permission?: Permission;
}
export interface AccessChanges {
  count: number;
  countIsLowerBound: boolean;
  items: AccessChange[];
}
export interface ChangePreview {
  gains: AccessChanges;
  losses: AccessChanges;
}

export interface ChangePreviewRequest {
  entity: string;
  id?: string;
  delete?: boolean;
  change?: unknown;
}

interface Side {
  roles: string[];
  semantic: Semantic;
}

const invalid = (field: string, reason: string, value?: unknown) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, ...(value === undefined ? {} : { value: String(value) }) } });

const PREVIEWABLE = ['service-policies', 'edge-router-policies', 'service-edge-router-policies', 'identities'];

/** A role list of the change, checked as the real endpoint checks it. */
function rolesOf(change: Record<string, unknown>, key: string, current: string[]): string[] {
  const value = change[key];
  if (value === undefined || value === null) return current;
  if (!Array.isArray(value) || value.some((role) => typeof role !== 'string')) throw invalid(`change.${key}`, 'must be a list of role strings', JSON.stringify(value));
  const problem = roleListProblem(value as string[]);
  if (problem) throw invalid(`change.${key}[${problem.index}]`, problem.reason);
  return value as string[];
}

function semanticOf(change: Record<string, unknown>, current: Semantic): Semantic {
  const value = change.semantic;
  if (value === undefined || value === null) return current;
  if (!(SEMANTICS as readonly unknown[]).includes(value)) throw invalid('change.semantic', `must be one of ${SEMANTICS.join(', ')}`, value);
  return value as Semantic;
}

export interface ChangePreviewService {
  preview(request: ChangePreviewRequest): Promise<ChangePreview>;
}

type Collection = 'identities' | 'services' | 'edge-routers';
type SideKey = 'identity' | 'service' | 'edgeRouter';

/** How a kind of policy is previewed: its two sides, where their members are listed, and what grants a pair now. */
interface PolicyKind {
  policyType: PolicyType;
  sides: [{ key: SideKey; roles: string; side: PolicySide; collection: Collection }, { key: SideKey; roles: string; side: PolicySide; collection: Collection }];
  typed: boolean;
}

const KINDS: Record<string, PolicyKind> = {
  'service-policies': {
    policyType: 'service-policy',
    sides: [
      { key: 'identity', roles: 'identityRoles', side: 'identity', collection: 'identities' },
      { key: 'service', roles: 'serviceRoles', side: 'service', collection: 'services' },
    ],
    typed: true,
  },
  'edge-router-policies': {
    policyType: 'edge-router-policy',
    sides: [
      { key: 'identity', roles: 'identityRoles', side: 'identity', collection: 'identities' },
      { key: 'edgeRouter', roles: 'edgeRouterRoles', side: 'edge-router', collection: 'edge-routers' },
    ],
    typed: false,
  },
  'service-edge-router-policies': {
    policyType: 'service-edge-router-policy',
    sides: [
      { key: 'service', roles: 'serviceRoles', side: 'service', collection: 'services' },
      { key: 'edgeRouter', roles: 'edgeRouterRoles', side: 'edge-router', collection: 'edge-routers' },
    ],
    typed: false,
  },
};

type AnyPolicyRecord = { id: string; semantic: Semantic; type?: ServicePolicyType } & Record<string, unknown>;

export function createChangePreviewService(deps: {
  engine: PolicyEngine;
  policies: Record<'service-policies' | 'edge-router-policies' | 'service-edge-router-policies', { get(id: string): Promise<object> }>;
  identities: Pick<IdentityService, 'get' | 'list'>;
  services: Pick<ServiceService, 'list'>;
  edgeRouters: Pick<EdgeRouterService, 'list'>;
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
    keep: (granting: string[], a: Holder, b: Holder) => boolean,
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
        if (!keep(await grantingNow(kind, a, b, type), a, b)) continue;
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

  async function identityPreview(request: ChangePreviewRequest): Promise<ChangePreview> {
    if (request.id === undefined) throw invalid('id', 'is required: a new identity has no access to preview');
    if (request.delete) throw invalid('delete', 'is not previewed for identities: a deleted identity loses everything it has');
    const detail = await deps.identities.get(request.id);
    const change = (request.change ?? {}) as Record<string, unknown>;
    const value = change.roleAttributes;
    if (!Array.isArray(value) || value.some((a) => typeof a !== 'string')) throw invalid('change.roleAttributes', 'must be a list of attribute strings', JSON.stringify(value));
    const identity = { id: detail.identity.id, name: detail.identity.name };
    const now = { id: identity.id, roleAttributes: detail.identity.roleAttributes };
    const next = { id: identity.id, roleAttributes: (value as string[]).map((a) => a.replace(/^#/, '')) };
    const gains: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const losses: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const budget = { left: PREVIEW_BUDGET };
    for (const type of ['Dial', 'Bind'] as const) {
      const [policiesNow, policiesNext] = await Promise.all([engine.policiesSelecting('service-policy', 'identity', now, type), engine.policiesSelecting('service-policy', 'identity', next, type)]);
      const nextIds = new Set(policiesNext.map((p) => p.id));
      const nowIds = new Set(policiesNow.map((p) => p.id));
      const one = { items: [{ ...identity, roleAttributes: next.roleAttributes }], pagination: { limit: 1, offset: 0, totalCount: 1 }, filterableFields: [] };
      for (const policy of policiesNext.filter((p) => !nowIds.has(p.id))) {
        const services = await members('services', { roles: policy.serviceRoles, semantic: policy.semantic }, 100);
        await examine(KINDS['service-policies']!, one, services, type, (granting) => granting.length === 0, gains, budget);
      }
      for (const policy of policiesNow.filter((p) => !nextIds.has(p.id))) {
        const services = await members('services', { roles: policy.serviceRoles, semantic: policy.semantic }, 100);
        await examine(KINDS['service-policies']!, one, services, type, (granting) => granting.every((id) => !nextIds.has(id)), losses, budget);
      }
    }
    dedupe(gains);
    dedupe(losses);
    return { gains, losses };
  }

  return {
    async preview(request) {
      if (!PREVIEWABLE.includes(request.entity)) throw invalid('entity', `must be one of ${PREVIEWABLE.join(', ')}`, request.entity);
      if (request.change !== undefined && (typeof request.change !== 'object' || request.change === null || Array.isArray(request.change))) {
        throw invalid('change', 'must be an object: the body the create or update would send');
      }
      return request.entity === 'identities' ? identityPreview(request) : policyPreview(KINDS[request.entity]!, request);
    },
  };
}

const named = (holder: Holder): Named => ({ id: holder.id, name: holder.name });

/** Whether a role side (roles and semantic) selects the holder: the rule every policy side follows. */
const sideSelects = (side: Side, holder: Holder) => matchesRoles(parseRoles(side.roles), side.semantic, holder);

/** A service reached through two new policies counts once. */
function dedupe(changes: AccessChanges): void {
  const seen = new Set<string>();
  const items = changes.items.filter((item) => {
    const key = `${item.identity?.id} ${item.service?.id} ${item.edgeRouter?.id} ${item.permission}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  changes.count -= changes.items.length - items.length;
  changes.items = items;
}

