/**
 * Edge routers as administrators manage them (`/edge/management/v1/edge-routers`): the resource kit's operations,
 * each router created with a one-time enrollment, and re-enrollment. What a router reports once it connects is not
 * set here (a later issue). A tunneler-enabled router has an identity of its own and a system edge router policy,
 * kept in step with it in its unit of work (router-identities.ts; decision 0070).
 */
import type { Actor } from '../../domain/audit.js';
import { MAX_ROUTER_COST, type EdgeRouter } from '../../domain/edge-router.js';
import { ApiError } from '../../errors/api-error.js';
import { EDGE_ROUTER_TABLE, type EdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges, AuditedScope } from '../audit/audited-changes.js';
import { resourceService, type ResourceService } from '../resource-service.js';
import { checkRoleAttributes } from '../role-attribute-input.js';
import type { RouterEnrollmentIssuer } from './router-enrollment.js';
import { checkRouterIdentityName } from './router-identities.js';

/** What an administrator sets on a router, as stored. */
type EdgeRouterFields = Pick<EdgeRouter, 'name' | 'roleAttributes' | 'isTunnelerEnabled' | 'cost' | 'noTraversal' | 'disabled' | 'appData' | 'tags'>;

/** A whole router (create, PUT); absent or null optional fields take their defaults. */
export interface EdgeRouterInput {
  name: string;
  roleAttributes?: string[];
  isTunnelerEnabled?: boolean;
  cost?: number | null;
  noTraversal?: boolean | null;
  disabled?: boolean | null;
  appData?: EdgeRouter['appData'];
  tags?: EdgeRouter['tags'];
}

/** Any subset of a router (PATCH); null keeps the stored value. */
export type EdgeRouterPatch = Partial<EdgeRouterInput>;

export interface EdgeRouterService extends ResourceService<EdgeRouter, EdgeRouterInput, EdgeRouterPatch> {
  /** A new one-time enrollment; the enrolled certificate is forgotten and the router must enroll again. */
  reEnroll(actor: Actor, id: string): Promise<void>;
}

/** 400 COULD_NOT_VALIDATE naming `cost` unless it is an integer in 0..65535. */
function checkedCost(cost: number): number {
  if (Number.isInteger(cost) && cost >= 0 && cost <= MAX_ROUTER_COST) return cost;
  const reason = `must be an integer from 0 to ${MAX_ROUTER_COST}`;
  throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: cost ${reason}`, cause: { field: 'cost', reason, value: cost } });
}

function fields(input: EdgeRouterInput): EdgeRouterFields {
  return {
    name: input.name,
    roleAttributes: input.roleAttributes ?? [],
    isTunnelerEnabled: input.isTunnelerEnabled ?? false,
    cost: checkedCost(input.cost ?? 0),
    noTraversal: input.noTraversal ?? false,
    disabled: input.disabled ?? false,
    appData: input.appData ?? {},
    tags: input.tags ?? {},
  };
}

function patched(current: EdgeRouter, patch: EdgeRouterPatch): EdgeRouterFields {
  return fields({
    name: patch.name ?? current.name,
    roleAttributes: patch.roleAttributes ?? current.roleAttributes,
    isTunnelerEnabled: patch.isTunnelerEnabled ?? current.isTunnelerEnabled,
    cost: patch.cost ?? current.cost,
    noTraversal: patch.noTraversal ?? current.noTraversal,
    disabled: patch.disabled ?? current.disabled,
    appData: patch.appData ?? current.appData,
    tags: patch.tags ?? current.tags,
  });
}

/**
 * Router management. Beyond the kit's checks: role attributes and cost (400 naming the field), and no create or
 * re-enrollment without an enrollment signer (400 INVALID_ENROLL_METHOD).
 */
export function createEdgeRouterService(deps: {
  routers: EdgeRouterRepository;
  changes: AuditedChanges<EdgeRouterRepository>;
  enrollment: RouterEnrollmentIssuer & { require(): void };
  /** Identity names: a tunneler-enabled router's identity takes the router's name. */
  identities: { findByName(name: string): Promise<{ id: string } | undefined> };
  clock: Clock;
}): EdgeRouterService {
  const { routers, enrollment, clock } = deps;

  const kit = resourceService<EdgeRouter, EdgeRouterFields, EdgeRouterInput, EdgeRouterPatch, AuditedScope<EdgeRouterRepository>>(
    { repository: routers, fields: EDGE_ROUTER_TABLE.fields, roleFilter: 'edge-router', work: deps.changes, clock },
    {
      entityType: 'edge-router',
      label: 'edge router',
      fields,
      patched,
      created: (router, id, now) => ({
        ...router,
        id,
        fingerprint: null,
        certPem: null,
        isVerified: false,
        enrollment: null,
        connection: {},
        createdAt: now,
        updatedAt: now,
      }),
      check: async (router, current) => {
        checkRoleAttributes(router.roleAttributes, { kept: current?.roleAttributes });
        if (!current) enrollment.require();
        await checkRouterIdentityName(deps.identities, router, current?.id);
      },
      async alsoOnCreate(scope, router) {
        const issued = await enrollment.issue(router.id, router.createdAt);
        await scope.records.issueEnrollment(router.id, issued, router.createdAt);
        return { enrollmentExpiresAt: issued.expiresAt.toISOString() };
      },
      // The settings only; never the enrollment token or JWT.
      auditDetails: (router) => ({
        name: router.name,
        roleAttributes: router.roleAttributes,
        isTunnelerEnabled: router.isTunnelerEnabled,
        cost: router.cost,
        noTraversal: router.noTraversal,
        disabled: router.disabled,
      }),
    },
  );

  return {
    ...kit,
    async reEnroll(actor, id) {
      const router = await kit.found(id);
      const now = clock.now();
      const issued = await enrollment.issue(router.id, now);
      await deps.changes(async (scope) => {
        await scope.records.issueEnrollment(router.id, issued, now);
        await scope.audit.record(actor, 're-enroll', 'edge-router', router.id, { name: router.name, enrollmentExpiresAt: issued.expiresAt.toISOString() });
      });
    },
  };
}
