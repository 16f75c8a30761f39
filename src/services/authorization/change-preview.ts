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
import type { ServicePolicyType } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import { matchesRoles, parseRoles, roleListProblem, SEMANTICS, type Semantic } from '../../policy/roles.js';
import type { ListPage } from '../list-page.js';
import type { IdentityService } from '../identities/identities.js';
import type { PolicyEngine } from './engine.js';
import type { ServicePolicyService } from './service-policies.js';
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
export interface AccessChange {
  identity: Named;
  service: Named;
  permission: Permission;
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

const PREVIEWABLE = ['service-policies', 'identities'];

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

export function createChangePreviewService(deps: {
  engine: PolicyEngine;
  servicePolicies: Pick<ServicePolicyService, 'get'>;
  identities: Pick<IdentityService, 'get' | 'list'>;
  services: Pick<ServiceService, 'list'>;
}): ChangePreviewService {
  const { engine } = deps;

  /** Up to `limit` members of a role side, in name order, and how many there are. */
  async function members(kind: 'identities' | 'services', side: Side, limit: number): Promise<ListPage<Holder>> {
    if (side.roles.length === 0) return { items: [], pagination: { limit, offset: 0, totalCount: 0 }, filterableFields: [] };
    const params = { roleFilter: side.roles, roleSemantic: side.semantic, limit: String(Math.max(1, limit)), sort: 'name asc' };
    if (kind === 'identities') {
      const page = await deps.identities.list(params);
      return { ...page, items: page.items.map((detail) => ({ id: detail.identity.id, name: detail.identity.name, roleAttributes: detail.identity.roleAttributes })) };
    }
    const page = await deps.services.list(params);
    return { ...page, items: page.items.map((service) => ({ id: service.id, name: service.name, roleAttributes: service.roleAttributes })) };
  }

  /** Examines the pairs of `identities × services`, keeping those `keep` says are a change. */
  async function examine(
    identities: ListPage<Holder>,
    services: ListPage<Holder>,
    type: ServicePolicyType,
    keep: (policies: string[], identity: Holder, service: Holder) => boolean,
    out: AccessChanges,
    budget: { left: number },
  ) {
    const total = identities.pagination.totalCount * services.pagination.totalCount;
    let examined = 0;
    for (const identity of identities.items) {
      for (const service of services.items) {
        if (budget.left <= 0) break;
        budget.left--;
        examined++;
        const decision = await engine.access(identity.id, service.id, type);
        if (!keep(decision.allowed ? decision.policies.map((entry) => entry.policy.id) : [], identity, service)) continue;
        out.count++;
        if (out.items.length < PREVIEW_ITEMS) out.items.push({ identity: named(identity), service: named(service), permission: type === 'Dial' ? 'dial' : 'bind' });
      }
    }
    if (examined < total) out.countIsLowerBound = true;
  }

  async function servicePolicyPreview(request: ChangePreviewRequest): Promise<ChangePreview> {
    const current = request.id === undefined ? undefined : await deps.servicePolicies.get(request.id);
    if (request.id === undefined && request.delete) throw invalid('id', 'is required to preview a delete');
    const change = (request.change ?? {}) as Record<string, unknown>;
    if (request.id === undefined && change.type !== 'Dial' && change.type !== 'Bind') throw invalid('change.type', "must be 'Dial' or 'Bind' for a new service policy", change.type);
    const type = ((change.type as ServicePolicyType | undefined) ?? current?.type) as ServicePolicyType;
    const before = current
      ? { identity: { roles: current.identityRoles, semantic: current.semantic }, service: { roles: current.serviceRoles, semantic: current.semantic }, type: current.type }
      : undefined;
    const semantic = semanticOf(change, current?.semantic ?? 'AllOf');
    const after = request.delete
      ? undefined
      : { identity: { roles: rolesOf(change, 'identityRoles', current?.identityRoles ?? []), semantic }, service: { roles: rolesOf(change, 'serviceRoles', current?.serviceRoles ?? []), semantic }, type };
    const budget = { left: PREVIEW_BUDGET };
    const gains: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const losses: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
    const width = (n: number) => Math.min(200, Math.max(1, Math.ceil(PREVIEW_BUDGET / Math.max(1, n))));
    if (after) {
      const services = await members('services', after.service, 100);
      const identities = await members('identities', after.identity, width(services.items.length));
      // A gain: the change grants it, and nothing grants it now (the policy being changed included).
      await examine(identities, services, after.type, (granting) => granting.length === 0, gains, budget);
    }
    if (before && current) {
      const services = await members('services', before.service, 100);
      const identities = await members('identities', before.identity, width(services.items.length));
      // A loss: only this policy grants it now, and after the change it no longer does.
      const stillSelected = (identity: Holder, service: Holder) =>
        after !== undefined && after.type === before.type && sideSelects(after.identity, identity) && sideSelects(after.service, service);
      await examine(identities, services, before.type, (granting, identity, service) => granting.length === 1 && granting[0] === current.id && !stillSelected(identity, service), losses, budget);
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
        await examine(one, services, type, (granting) => granting.length === 0, gains, budget);
      }
      for (const policy of policiesNow.filter((p) => !nextIds.has(p.id))) {
        const services = await members('services', { roles: policy.serviceRoles, semantic: policy.semantic }, 100);
        await examine(one, services, type, (granting) => granting.every((id) => !nextIds.has(id)), losses, budget);
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
      return request.entity === 'identities' ? identityPreview(request) : servicePolicyPreview(request);
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
    const key = `${item.identity.id} ${item.service.id} ${item.permission}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  changes.count -= changes.items.length - items.length;
  changes.items = items;
}

