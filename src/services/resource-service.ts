/**
 * The resource kit's service half (issue 13, point 2; docs/decisions/0022-resource-kit.md): list, get, create,
 * replace (PUT), patch and delete of a named resource, each change committed with its audit entry in one unit of
 * work. What is common is here once: 404 for an unknown id, the name rules and uniqueness, timestamps, the audit
 * entry. A resource gives only the rules that are its own (`ResourceRules`) and adds the operations it alone has.
 */
import type { Actor } from '../domain/audit.js';
import { ApiError } from '../errors/api-error.js';
import type { FieldMap } from '../persistence/query/list-query.js';
import { parseListParams, type RawListParams } from '../persistence/query/list-query.js';
import type { ResourceRepository } from '../persistence/resource-table.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';
import { nameProblem } from '../policy/names.js';
import type { Clock } from '../shared/clock.js';
import { newEntityId } from '../shared/random.js';
import type { AuditedScope } from './audit/audited-changes.js';
import { FIELD_CHANGES, fieldChanges } from './audit/field-changes.js';
import type { ListPage } from './list-page.js';
import { roleFilterRestriction, type RoleFilterParams } from './role-filter.js';
import type { RoleTarget } from '../domain/policy.js';

/** What every resource has. */
export interface Resource {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The writes a change makes: the resource's own, its audit entry, and whatever else a resource's scope holds. */
export type ResourceScope<Entity> = AuditedScope<Pick<ResourceRepository<Entity>, 'insert' | 'update' | 'delete'>>;

export type ChangeAction = 'create' | 'update' | 'patch' | 'delete';

/**
 * The rules of one resource. `Fields` is what an administrator sets, as stored (the entity less its id, timestamps
 * and system-owned state); `Input` is a whole body (create, PUT), `Patch` any part of one.
 */
export interface ResourceRules<Entity extends Resource, Fields extends { name: string }, Input, Patch, Scope extends ResourceScope<Entity>> {
  /** The entity type of audit entries, e.g. `auth-policy`. */
  entityType: string;
  /** How messages name the resource, e.g. `auth policy`. */
  label: string;
  /** A whole input as stored fields, defaults filled in (create and PUT: absent optional fields take their defaults). */
  fields(input: Input): Fields;
  /** The stored fields after `patch` is applied to `current`. */
  patched(current: Entity, patch: Patch): Fields;
  /** A new entity (default: the fields with the id and both timestamps). */
  created?(fields: Fields, id: string, now: Date): Entity;
  /**
   * The rules that are the resource's own (references, cross-field checks, protected entities), after the name
   * rules and uniqueness; `current` is absent on create. Throw an ApiError to refuse.
   */
  check?(fields: Fields, current: Entity | undefined): Promise<void> | void;
  /** Refuses a delete (system entities, entities still referenced). */
  checkDelete?(entity: Entity): Promise<void> | void;
  /** The audit entry's details of a create or change (never secrets); `previous` is set on update and patch. */
  auditDetails(entity: Entity, previous?: Entity): Record<string, unknown>;
  /** Dependents written with a new entity, in its unit of work; what it returns joins the audit details. */
  alsoOnCreate?(scope: Scope, entity: Entity, input: Input, actor: Actor): Promise<Record<string, unknown> | void>;
  /** After a change has committed: caches to drop, log lines to write. */
  committed?(actor: Actor, action: ChangeAction, entity: Entity): void;
}

export interface ResourceService<Entity, Input, Patch> {
  /** One page; `roleFilter`/`roleSemantic` count only for resources built with `roleFilter` (role-filter.ts). */
  list(params: RawListParams & RoleFilterParams): Promise<ListPage<Entity>>;
  /** 404 NOT_FOUND when `id` is unknown (as for every operation on one entity). */
  get(id: string): Promise<Entity>;
  /** 400 COULD_NOT_VALIDATE (field `name`) when the name breaks the name rules or is in use; then the resource's own rules. */
  create(actor: Actor, input: Input): Promise<Entity>;
  replace(actor: Actor, id: string, input: Input): Promise<Entity>;
  patch(actor: Actor, id: string, patch: Patch): Promise<Entity>;
  delete(actor: Actor, id: string): Promise<void>;
}

export interface ResourceServiceDeps<Entity extends Resource, Scope extends ResourceScope<Entity>> {
  repository: Pick<ResourceRepository<Entity>, 'findById' | 'findByName' | 'list'>;
  /** The fields the list may filter and sort on (the repository's table description's). */
  fields: FieldMap;
  /** The entity type, when the list takes `roleFilter` and `roleSemantic` (entities that hold role attributes). */
  roleFilter?: RoleTarget;
  /** Runs a change with its audit entry (and the resource's dependents) in one transaction. */
  work: UnitOfWork<Scope>;
  clock: Clock;
}

const invalidName = (reason: string, value: string) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: name ${reason}`, cause: { field: 'name', reason, value } });

/**
 * The operations of a resource under `rules`.
 *
 * @example const policies = resourceService({ repository, fields: AUTH_POLICY_TABLE.fields, work, clock }, authPolicyRules(deps));
 */
export function resourceService<Entity extends Resource, Fields extends { name: string }, Input, Patch, Scope extends ResourceScope<Entity>>(
  deps: ResourceServiceDeps<Entity, Scope>,
  rules: ResourceRules<Entity, Fields, Input, Patch, Scope>,
): ResourceService<Entity, Input, Patch> & { found(id: string): Promise<Entity> } {
  const { repository, clock } = deps;
  const filterableFields = Object.keys(deps.fields);
  const created = rules.created ?? ((fields: Fields, id: string, now: Date) => ({ ...fields, id, createdAt: now, updatedAt: now }) as unknown as Entity);

  async function found(id: string): Promise<Entity> {
    const entity = await repository.findById(id);
    if (!entity) throw new ApiError('NOT_FOUND', { message: `No ${rules.label} has the id '${id}'`, cause: { field: 'id', value: id } });
    return entity;
  }

  /** The name rules (policy/names.ts), uniqueness, then the resource's own; a stored name that does not change is not judged again. */
  async function check(fields: Fields, current?: Entity): Promise<void> {
    const problem = fields.name === current?.name ? undefined : nameProblem(fields.name);
    if (problem) throw invalidName(problem, fields.name);
    const named = await repository.findByName(fields.name);
    if (named && named.id !== current?.id) {
      throw new ApiError('COULD_NOT_VALIDATE', { message: `The name '${fields.name}' is already in use`, cause: { field: 'name', reason: 'is already in use', value: fields.name } });
    }
    await rules.check?.(fields, current);
  }

  async function change(actor: Actor, current: Entity, fields: Fields, action: 'update' | 'patch'): Promise<Entity> {
    await check(fields, current);
    const next: Entity = { ...current, ...fields, updatedAt: clock.now() };
    await deps.work(async (scope) => {
      await scope.records.update(next);
      // The entry keeps the resource's own details and, field by field, what changed (never secrets: see auditDetails).
      const changes = fieldChanges(rules.auditDetails(current), rules.auditDetails(next));
      await scope.audit.record(actor, action, rules.entityType, next.id, { ...rules.auditDetails(next, current), [FIELD_CHANGES]: changes });
    });
    rules.committed?.(actor, action, next);
    return next;
  }

  return {
    found,
    async list(params) {
      const restriction = deps.roleFilter === undefined ? undefined : roleFilterRestriction(deps.roleFilter, params);
      const query = parseListParams(params, deps.fields);
      const { items, totalCount } = await repository.list(query, restriction);
      return { items, pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields };
    },
    get: found,
    async create(actor, input) {
      const fields = rules.fields(input);
      await check(fields);
      const entity = created(fields, newEntityId(), clock.now());
      await deps.work(async (scope) => {
        await scope.records.insert(entity);
        const more = await rules.alsoOnCreate?.(scope, entity, input, actor);
        await scope.audit.record(actor, 'create', rules.entityType, entity.id, { ...rules.auditDetails(entity), ...more });
      });
      rules.committed?.(actor, 'create', entity);
      return entity;
    },
    async replace(actor, id, input) {
      return change(actor, await found(id), rules.fields(input), 'update');
    },
    async patch(actor, id, patch) {
      const current = await found(id);
      return change(actor, current, rules.patched(current, patch), 'patch');
    },
    async delete(actor, id) {
      const entity = await found(id);
      await rules.checkDelete?.(entity);
      await deps.work(async (scope) => {
        await scope.records.delete(id);
        // What was deleted, as its audit details show it (never secrets), so the trail still says what it was.
        await scope.audit.record(actor, 'delete', rules.entityType, id, { ...rules.auditDetails(entity), name: entity.name });
      });
      rules.committed?.(actor, 'delete', entity);
    },
  };
}
