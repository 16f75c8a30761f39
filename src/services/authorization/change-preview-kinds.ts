/**
 * What a change preview answers and how each kind of policy pairs its sides (issue 45, decision 0082): the answer's
 * shape, the bounds every preview keeps (the pair budget, the items shown), the checks of a change's role lists as
 * the real endpoints make them, and the pure helpers change-preview.ts and change-preview-posture.ts share.
 */
import type { PolicySide, PolicyType, ServicePolicyType } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import { matchesRoles, parseRoles, roleListProblem, SEMANTICS, type Semantic } from '../../policy/roles.js';

/** Pairs examined at most per preview. */
export const PREVIEW_BUDGET = 2_000;
/** Items shown per side. */
export const PREVIEW_ITEMS = 50;

export type Permission = 'dial' | 'bind';
export interface Named {
  id: string;
  name: string;
}
/** An entity as the preview examines it: with its role attributes, to judge a hypothetical policy in memory. */
export interface Holder extends Named {
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

export interface Side {
  roles: string[];
  semantic: Semantic;
}

/** A 400 naming the field of the preview request that is wrong. */
export const invalid = (field: string, reason: string, value?: unknown) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, ...(value === undefined ? {} : { value: String(value) }) } });

export const PREVIEWABLE = ['service-policies', 'edge-router-policies', 'service-edge-router-policies', 'identities', 'services', 'edge-routers', 'posture-checks'];

/** A role list of the change, checked as the real endpoint checks it. */
export function rolesOf(change: Record<string, unknown>, key: string, current: string[]): string[] {
  const value = change[key];
  if (value === undefined || value === null) return current;
  if (!Array.isArray(value) || value.some((role) => typeof role !== 'string')) throw invalid(`change.${key}`, 'must be a list of role strings', JSON.stringify(value));
  const problem = roleListProblem(value as string[]);
  if (problem) throw invalid(`change.${key}[${problem.index}]`, problem.reason);
  return value as string[];
}

export function semanticOf(change: Record<string, unknown>, current: Semantic): Semantic {
  const value = change.semantic;
  if (value === undefined || value === null) return current;
  if (!(SEMANTICS as readonly unknown[]).includes(value)) throw invalid('change.semantic', `must be one of ${SEMANTICS.join(', ')}`, value);
  return value as Semantic;
}

export interface ChangePreviewService {
  preview(request: ChangePreviewRequest): Promise<ChangePreview>;
}

export type Collection = 'identities' | 'services' | 'edge-routers';
export type SideKey = 'identity' | 'service' | 'edgeRouter';

/** One side of a policy: its key in an answer's item, its role list's field, and where its members are listed. */
interface PolicySideOf {
  key: SideKey;
  roles: string;
  side: PolicySide;
  collection: Collection;
}

/** How a kind of policy is previewed: its two sides, where their members are listed, and what grants a pair now. */
export interface PolicyKind {
  policyType: PolicyType;
  sides: [PolicySideOf, PolicySideOf];
  typed: boolean;
}

const IDENTITIES: PolicySideOf = { key: 'identity', roles: 'identityRoles', side: 'identity', collection: 'identities' };
const SERVICES: PolicySideOf = { key: 'service', roles: 'serviceRoles', side: 'service', collection: 'services' };
const ROUTERS: PolicySideOf = { key: 'edgeRouter', roles: 'edgeRouterRoles', side: 'edge-router', collection: 'edge-routers' };

export const KINDS: Record<string, PolicyKind> = {
  'service-policies': { policyType: 'service-policy', sides: [IDENTITIES, SERVICES], typed: true },
  'edge-router-policies': { policyType: 'edge-router-policy', sides: [IDENTITIES, ROUTERS], typed: false },
  'service-edge-router-policies': { policyType: 'service-edge-router-policy', sides: [SERVICES, ROUTERS], typed: false },
};

export type AnyPolicyRecord = { id: string; semantic: Semantic; type?: ServicePolicyType } & Record<string, unknown>;

export const named = (holder: Holder): Named => ({ id: holder.id, name: holder.name });

/** Whether a role side (roles and semantic) selects the holder: the rule every policy side follows. */
export const sideSelects = (side: Side, holder: Holder) => matchesRoles(parseRoles(side.roles), side.semantic, holder);

/** A service reached through two new policies counts once. */
export function dedupe(changes: AccessChanges): void {
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

