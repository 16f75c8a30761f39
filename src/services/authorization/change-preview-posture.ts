/**
 * The change preview of a posture check (issue 45, `POST /change-previews` with entity `posture-checks`): which
 * identity–service pairs a create, update or delete of the check would block or unblock, judged on each identity's
 * current posture data (what its live API sessions reported; posture/explain.ts). A pair is allowed when one of the
 * service policies granting it has every check passing on one session (reference facts §A6, "Posture gating"); the
 * change swaps the check in or out of the policies that select it before and after. Blocked pairs are the losses,
 * unblocked ones the gains. Nothing is saved; pairs are examined up to the same budget as every preview.
 */
import type { PostureCheck } from '../../domain/posture-check.js';
import type { ServicePolicy } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import type { Clock } from '../../shared/clock.js';
import type { IdentityService } from '../identities/identities.js';
import { passesAll, type PostureService, type SessionPosture } from '../posture/index.js';
import { invalid, PREVIEW_BUDGET, PREVIEW_ITEMS, type AccessChanges, type ChangePreview, type ChangePreviewService } from './change-preview-kinds.js';
import { policySelects, type PolicyEngine } from './engine.js';
import { patchedPostureCheck, postureCheckFields, type PostureCheckInput, type PostureCheckService } from './posture-checks.js';

/** The id a check being created is judged under: no policy names it by id yet. */
const NEW_CHECK_ID = '(new posture check)';
/** Members of each side of a policy read per page: the budget bounds the pairs examined. */
const SIDE_PAGE = 200;

/** The check the change would store, its fields' refusals named under `change.`. */
function checkAfter(current: PostureCheck | undefined, change: Record<string, unknown>): PostureCheck {
  try {
    const fields = current
      ? patchedPostureCheck(current, change)
      : postureCheckFields({ ...change, name: typeof change.name === 'string' ? change.name : '' } as PostureCheckInput);
    return { ...current, ...fields, id: current?.id ?? NEW_CHECK_ID } as PostureCheck;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'COULD_NOT_VALIDATE' && error.cause?.field) {
      throw invalid(`change.${error.cause.field}`, String(error.cause.reason ?? 'is invalid'), error.cause.value);
    }
    throw error;
  }
}

export function createPostureCheckPreview(deps: {
  engine: PolicyEngine;
  checks: Pick<PostureCheckService, 'get'>;
  identities: Pick<IdentityService, 'get'>;
  posture: Pick<PostureService, 'identityPosture'>;
  clock: Clock;
}): ChangePreviewService {
  const { engine } = deps;

  return {
    async preview(request) {
      if (request.id === undefined && request.delete) throw invalid('id', 'is required to preview a delete');
      const current = request.id === undefined ? undefined : await deps.checks.get(request.id);
      const change = (request.change ?? {}) as Record<string, unknown>;
      if (change.roleAttributes !== undefined && (!Array.isArray(change.roleAttributes) || change.roleAttributes.some((a) => typeof a !== 'string'))) {
        throw invalid('change.roleAttributes', 'must be a list of attribute strings', JSON.stringify(change.roleAttributes));
      }
      const next = request.delete ? undefined : checkAfter(current, change);
      const now = deps.clock.now();

      // The service policies the check's change touches: those selecting it before, after, or both.
      const touched = new Map<string, ServicePolicy>();
      for (const check of [current, next]) {
        if (!check) continue;
        for (const policy of await engine.policiesSelecting('service-policy', 'posture-check', check)) touched.set(policy.id, policy);
      }

      const sessionsOf = new Map<string, Promise<SessionPosture[]>>();
      const postureOf = (identityId: string) => {
        let found = sessionsOf.get(identityId);
        // The identity's client info is read only when it has a session to judge (most have none).
        const sdkInfo = () => deps.identities.get(identityId).then((detail) => detail.identity.sdkInfo);
        if (!found) sessionsOf.set(identityId, (found = deps.posture.identityPosture(identityId, sdkInfo)));
        return found;
      };
      const wholeChecks = new Map<string, PostureCheck>();
      /** Whether the pair is allowed before and after: some granting policy's checks pass on one session. */
      const allowed = async (identityId: string, serviceId: string, type: ServicePolicy['type']) => {
        const decision = await engine.access(identityId, serviceId, type);
        const wanted = decision.policies.flatMap((entry) => entry.postureChecks.map((check) => check.id)).filter((id) => !wholeChecks.has(id));
        for (const check of await engine.postureChecks([...new Set(wanted)])) wholeChecks.set(check.id, check);
        const sessions = await postureOf(identityId);
        const passes = (applied: boolean) =>
          decision.policies.some((entry) => {
            let checks = entry.postureChecks.flatMap((check) => wholeChecks.get(check.id) ?? []);
            if (applied) {
              checks = checks.filter((check) => check.id !== current?.id);
              if (next && policySelects(entry.policy, 'posture-check', next)) checks.push(next);
            }
            return passesAll(checks, sessions, now);
          });
        return { before: passes(false), after: passes(true) };
      };

      const gains: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
      const losses: AccessChanges = { count: 0, countIsLowerBound: false, items: [] };
      const seen = new Set<string>();
      let left = PREVIEW_BUDGET;
      for (const policy of [...touched.values()].sort((a, b) => a.name.localeCompare(b.name))) {
        const [identities, services] = await Promise.all([
          engine.members('service-policy', policy.id, 'identity', { limit: String(SIDE_PAGE), sort: 'name asc' }),
          engine.members('service-policy', policy.id, 'service', { limit: String(SIDE_PAGE), sort: 'name asc' }),
        ]);
        let examined = 0;
        for (const identity of identities.items) {
          for (const service of services.items) {
            if (left <= 0) break;
            const key = `${identity.id} ${service.id} ${policy.type}`;
            examined++;
            if (seen.has(key)) continue;
            seen.add(key);
            left--;
            const { before, after } = await allowed(identity.id, service.id, policy.type);
            if (before === after) continue;
            const out = after ? gains : losses;
            out.count++;
            if (out.items.length < PREVIEW_ITEMS) {
              out.items.push({ identity: { id: identity.id, name: identity.name }, service: { id: service.id, name: service.name }, permission: policy.type === 'Dial' ? 'dial' : 'bind' });
            }
          }
        }
        if (examined < identities.pagination.totalCount * services.pagination.totalCount) {
          gains.countIsLowerBound = true;
          losses.countIsLowerBound = true;
        }
      }
      return { gains, losses } satisfies ChangePreview;
    },
  };
}
