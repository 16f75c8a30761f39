/**
 * Identity management (`/edge/management/v1/identities`): list, read with authenticators and pending
 * enrollments, create (optionally with enrollments), replace, patch, delete, disable and enable. Every mutation
 * is recorded in the audit trail with its actor.
 *
 * Default admin protections (docs/decisions/0004-default-admin-protections.md): it cannot be deleted
 * (400 ENTITY_CAN_NOT_BE_DELETED), lose `isAdmin`, or be disabled, by anyone including itself
 * (400 ENTITY_CAN_NOT_BE_UPDATED), so a store always keeps one administrator who can log in.
 */
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createFeedCache } from '../change-feed/feed-cache.js';
import { ApiError } from '../../errors/api-error.js';
import type { Actor } from '../../domain/audit.js';
import { DEFAULT_AUTH_POLICY_ID } from '../../domain/auth-policy.js';
import type { Authenticator } from '../../domain/authenticator.js';
import type { Enrollment } from '../../domain/enrollment.js';
import { newIdentity, type Identity } from '../../domain/identity.js';
import type { RawListParams } from '../../persistence/query/list-query.js';
import type { AuthPolicyRepository } from '../../persistence/repositories/auth-policies.js';
import type { AuthenticatorRepository } from '../../persistence/repositories/authenticators.js';
import { IDENTITY_TABLE, type IdentityRepository } from '../../persistence/repositories/identities.js';
import { usernameProblem } from '../../policy/names.js';
import { checkRoleAttributes } from '../role-attribute-input.js';
import type { MfaRepository } from '../../persistence/repositories/mfa.js';
import type { SessionPresenceRepository } from '../../persistence/repositories/session-presence.js';
import type { Clock } from '../../shared/clock.js';
import type { PasswordGuard } from '../authentication/password-guard.js';
import type { EnrollmentService } from '../enrollment/enrollment-service.js';
import { changedFields, editableFields, identityFields, patchedFields, requestedEnrollments, type IdentityCreateInput, type IdentityFields, type IdentityFieldsInput, type IdentityPatchInput } from './identity-input.js';
import type { ListPage } from '../list-page.js';
import type { RoleFilterParams } from '../role-filter.js';
import { resourceService, type ResourceScope } from '../resource-service.js';
import type { UnitOfWork } from '../../persistence/unit-of-work.js';

export type { IdentityCreateInput, IdentityFieldsInput, IdentityPatchInput, IdentityTypeName } from './identity-input.js';

/** An identity with the name of its auth policy (list items). */
export interface IdentitySummary {
  identity: Identity;
  authPolicy: { id: string; name: string };
}

/** An identity with everything its detail view shows (lists show the same: the reference's identityList). */
export interface IdentityDetail extends IdentitySummary {
  authenticators: Authenticator[];
  /** Pending enrollments, from the enrollment service. */
  enrollments: Enrollment[];
  /** A legacy session or an unrevoked OIDC session of the identity is live now. */
  hasApiSession: boolean;
  /** It has a verified TOTP enrollment. */
  isMfaEnabled: boolean;
  /** A router connected to this controller reports an SDK channel of the identity (decision 0083). */
  hasEdgeRouterConnection: boolean;
}

export interface IdentityService {
  /** One page; `roleFilter` and `roleSemantic` select by role attributes and ids (services/role-filter.ts). */
  list(params: RawListParams & RoleFilterParams): Promise<ListPage<IdentityDetail>>;
  /** 404 NOT_FOUND when `id` is unknown (as for every operation on one identity). */
  get(id: string): Promise<IdentityDetail>;
  /**
   * The detail of the identity a request is authenticated as (`GET /current-identity`): kept in memory while the
   * change feed is fresh (decision 0035), and it has an API session, the one it calls with.
   */
  current(identity: Identity): Promise<IdentityDetail>;
  /** The same detail at once when it is kept in memory; else undefined (ask `current`). */
  currentFromMemory(identity: Identity): IdentityDetail | undefined;
  /**
   * Creates the identity and the enrollments it asks for in one unit of work: if an enrollment fails nothing is
   * written and the enrollment's error is thrown. 400 COULD_NOT_VALIDATE (field name or externalId) when in use,
   * 400 REFERENCED_ENTITY_NOT_FOUND (field authPolicyId) for an unknown policy.
   */
  create(actor: Actor, input: IdentityCreateInput): Promise<Identity>;
  /** PUT: every field; absent optional fields return to their defaults. */
  replace(actor: Actor, id: string, input: IdentityFieldsInput): Promise<Identity>;
  patch(actor: Actor, id: string, input: IdentityPatchInput): Promise<Identity>;
  /** Deletes with authenticators, API sessions and enrollments. */
  delete(actor: Actor, id: string): Promise<void>;
  /** Disables now, for `durationMinutes` (0 = until enabled). */
  disable(actor: Actor, id: string, durationMinutes: number): Promise<Identity>;
  enable(actor: Actor, id: string): Promise<Identity>;
}

/** What a change of an identity writes, all bound to one transaction. */
export interface IdentityChangeScope extends ResourceScope<Identity> {
  enrollments: Pick<EnrollmentService, 'create'>;
  /** Password lockouts, which `enable` clears. */
  passwords: Pick<PasswordGuard, 'clear'>;
}

export interface IdentityServiceDeps {
  identities: IdentityRepository;
  authPolicies: Pick<AuthPolicyRepository, 'findById' | 'namesByIds'>;
  authenticators: Pick<AuthenticatorRepository, 'listForIdentities'>;
  enrollments: Pick<EnrollmentService, 'pendingForIdentities'>;
  mfa: Pick<MfaRepository, 'verifiedAmong'>;
  /** Runs a change with its audit entry (and its enrollments, its cleared lockouts) in one transaction. */
  work: UnitOfWork<IdentityChangeScope>;
  /** Whether identities have live sessions, and how long each kind lives without a new request or token. */
  sessions: { presence: SessionPresenceRepository; legacyTimeoutMs: number; accessTokenLifetimeMs: number };
  clock: Clock;
  /** Keeps the callers' own details in memory (`current`); without it they are read from the store. */
  feed?: ChangeFeed;
  /** The tunneler-enabled router whose own identity this is (decision 0070): its lifecycle is the router's. */
  routerOwning?: (identityId: string) => Promise<{ id: string; name: string } | undefined>;
  /** Identities with SDK channels at the routers connected here (services/routers/edge-connections.ts); none without. */
  edgeConnections?: { has(identityId: string): boolean };
}

/** Callers' own details kept at most (about 2 KiB each). */
const KEPT_CURRENT_DETAILS = 50_000;

const inUse = (field: string, value: string) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The ${field} '${value}' is already in use`, cause: { field, reason: 'is already in use', value } });

const invalid = (field: string, reason: string, value: string) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });

const cannotUpdate = (message: string, field: string) => new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { message, cause: { field } });

export function createIdentityService(deps: IdentityServiceDeps): IdentityService {
  const { identities, authPolicies, authenticators, enrollments, clock } = deps;
  // Dropped by any change of the identity (its row, authenticators, enrollments, MFA) and of any auth policy's name.
  const current =
    deps.feed && createFeedCache<IdentityDetail>({ feed: deps.feed, entity: 'identity', clearOn: ['auth-policy'], capacity: KEPT_CURRENT_DETAILS });

  const asCurrentOnce = new WeakMap<IdentityDetail, IdentityDetail>();
  const connected = (identityId: string) => deps.edgeConnections?.has(identityId) ?? false;
  /** A kept detail as the caller's own: its request's identity, the API session it calls with, its channels now. */
  const asCurrent = (detail: IdentityDetail, identity: Identity): IdentityDetail => ({ ...detail, identity, hasApiSession: true, hasEdgeRouterConnection: connected(identity.id) });

  const managed = resourceService<Identity, IdentityFields, IdentityCreateInput, IdentityPatchInput, IdentityChangeScope>(
    { repository: identities, fields: IDENTITY_TABLE.fields, roleFilter: 'identity', work: deps.work, clock },
    {
      entityType: 'identity',
      label: 'identity',
      fields: identityFields,
      patched: patchedFields,
      created: (fields, id, now) => newIdentity({ id, ...fields }, now),
      /** The default admin stays an administrator; role attributes are not roles; externalId is unique; the auth policy exists. */
      async check(fields, current) {
        if (current?.isDefaultAdmin && !fields.isAdmin) throw cannotUpdate('The default admin must remain an administrator', 'isAdmin');
        if (current && fields.name !== current.name && (await deps.routerOwning?.(current.id))) {
          throw cannotUpdate(`Identity '${current.id}' is an edge router's identity: it takes its name from the router (rename the router)`, 'name');
        }
        // Attributes are matched by policies' roles: one that looks like a role could never be told apart from it.
        // Attributes stored before this rule are not judged again while they stay.
        checkRoleAttributes(fields.roleAttributes, { kept: current?.roleAttributes });
        if (fields.externalId !== null) {
          const other = await identities.findByExternalId(fields.externalId);
          if (other && other.id !== current?.id) throw inUse('externalId', fields.externalId);
        }
        if (fields.authPolicyId !== null && !(await authPolicies.findById(fields.authPolicyId))) {
          throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', {
            message: `No auth policy has the id '${fields.authPolicyId}'`,
            cause: { field: 'authPolicyId', reason: 'does not exist', value: fields.authPolicyId },
          });
        }
      },
      async checkDelete(identity) {
        if (identity.isDefaultAdmin) {
          throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { message: 'The default admin cannot be deleted', cause: { field: 'id', value: identity.id } });
        }
        const router = await deps.routerOwning?.(identity.id);
        if (router) {
          throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', {
            message: `Identity '${identity.id}' is the identity of edge router '${router.name}': set the router's isTunnelerEnabled to false, or delete the router`,
            cause: { field: 'id', value: identity.id },
          });
        }
      },
      auditDetails: (identity, previous) => (previous ? { changes: changedFields(previous, identity) } : editableFields(identity)),
      // No identity is left without the enrollment it was created for: a username lost to a concurrent create fails
      // its claim in the store, and the whole create rolls back.
      async alsoOnCreate(scope, identity, input, actor) {
        const wanted = requestedEnrollments(input.enrollment);
        for (const request of wanted) {
          await scope.enrollments.create(actor, { identityId: identity.id, ...request, ...(request.method === 'updb' ? { usernameField: 'enrollment.updb' } : {}) });
        }
        return { enrollments: wanted.map((w) => w.method) };
      },
    },
  );

  /** The details of a page of identities, each part read for the whole page at once. */
  async function details(items: Identity[]): Promise<IdentityDetail[]> {
    const ids = items.map((identity) => identity.id);
    const now = clock.now();
    const window = {
      legacyActiveAfter: new Date(now.getTime() - deps.sessions.legacyTimeoutMs),
      accessIssuedAfter: new Date(now.getTime() - deps.sessions.accessTokenLifetimeMs),
      now,
    };
    const [names, held, pending, live, mfaEnabled] = await Promise.all([
      authPolicies.namesByIds(items.map(policyIdOf)),
      authenticators.listForIdentities(ids),
      enrollments.pendingForIdentities(ids),
      deps.sessions.presence.withLiveSession(ids, window),
      deps.mfa.verifiedAmong(ids),
    ]);
    const heldBy = byIdentity(held);
    const pendingBy = byIdentity(pending);
    return items.map((identity) => ({
      identity,
      authPolicy: { id: policyIdOf(identity), name: names.get(policyIdOf(identity)) ?? '' },
      authenticators: heldBy.get(identity.id) ?? [],
      enrollments: pendingBy.get(identity.id) ?? [],
      hasApiSession: live.has(identity.id),
      isMfaEnabled: mfaEnabled.has(identity.id),
      hasEdgeRouterConnection: connected(identity.id),
    }));
  }

  async function setDisabled(actor: Actor, current: Identity, disabledUntil: Date | null, disabled: boolean): Promise<Identity> {
    const now = clock.now();
    const next: Identity = { ...current, disabled, disabledAt: disabled ? now : null, disabledUntil: disabled ? disabledUntil : null, updatedAt: now };
    await deps.work(async (scope) => {
      await scope.records.update(next);
      // Enabling also ends password lockouts: it is how an administrator lets a locked-out user back in at once.
      const details = disabled ? { disabledUntil: disabledUntil?.toISOString() ?? null } : { clearedLockouts: await scope.passwords.clear(next.id) };
      await scope.audit.record(actor, disabled ? 'disable' : 'enable', 'identity', next.id, details);
    });
    return next;
  }

  return {
    ...managed,
    async list(params) {
      const page = await managed.list(params);
      return { ...page, items: await details(page.items) };
    },
    async get(id) {
      const [detail] = await details([await managed.found(id)]);
      return detail as IdentityDetail;
    },
    async current(identity) {
      const load = async () => (await details([identity]))[0];
      return asCurrent((current ? await current.get(identity.id, load) : await load()) as IdentityDetail, identity);
    },
    currentFromMemory(identity) {
      const detail = current?.peek(identity.id);
      if (detail === undefined) return undefined;
      // The same object while the kept detail and the caller's identity are the same ones, so a view made of it can be
      // kept with it (current-identity.ts); either changes by being replaced, never in place.
      const made = asCurrentOnce.get(detail);
      // Channels come and go without a change of the identity: a kept answer whose flag moved on is made again.
      if (made?.identity === identity && made.hasEdgeRouterConnection === connected(identity.id)) return made;
      const fresh = asCurrent(detail, identity);
      asCurrentOnce.set(detail, fresh);
      return fresh;
    },
    async create(actor, input) {
      // The username's rules are checked before anything is written; whether it is free is the enrollment's to settle.
      const username = input.enrollment?.updb;
      const usernameIssue = username === undefined ? undefined : usernameProblem(username);
      if (username !== undefined && usernameIssue) throw invalid('enrollment.updb', usernameIssue, username);
      return managed.create(actor, input);
    },
    async disable(actor, id, durationMinutes) {
      const identity = await managed.found(id);
      if (identity.isDefaultAdmin) throw cannotUpdate('The default admin cannot be disabled', 'id');
      const until = durationMinutes > 0 ? new Date(clock.now().getTime() + durationMinutes * 60_000) : null;
      return setDisabled(actor, identity, until, true);
    },
    async enable(actor, id) {
      return setDisabled(actor, await managed.found(id), null, false);
    },
  };
}


/** Groups records by their identity, keeping their order. */
function byIdentity<T extends { identityId: string }>(records: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const record of records) {
    const group = groups.get(record.identityId);
    if (group) group.push(record);
    else groups.set(record.identityId, [record]);
  }
  return groups;
}

/** The policy governing an identity: its own, or the system default when it names none. */
function policyIdOf(identity: Identity): string {
  return identity.authPolicyId ?? DEFAULT_AUTH_POLICY_ID;
}
