/**
 * Posture checks as administrators manage them (`/edge/management/v1/posture-checks`), on the resource kit, and the
 * built-in check types (`/posture-check-types`, read-only). A check's type fields are checked when written
 * (posture-check-input.ts). PUT may change a check's type (the body is whole); PATCH keeps it.
 */
import {
  POSTURE_CHECK_TYPE_FIELDS,
  POSTURE_CHECK_TYPES,
  type PostureCheck,
  type PostureCheckBody,
  type PostureCheckType,
  type PostureCheckTypeId,
} from '../../domain/posture-check.js';
import { ApiError } from '../../errors/api-error.js';
import type { ResourceRepository } from '../../persistence/resource-table.js';
import { POSTURE_CHECK_TABLE } from '../../persistence/repositories/posture-checks.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { ListPage } from '../list-page.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';
import { patchedTypeFields, postureCheckBody, type PostureTypeFieldsInput } from './posture-check-input.js';
import { checkRoleAttributes } from '../role-attribute-input.js';

type Tags = PostureCheck['tags'];

/** A whole check (create, PUT): the common fields and the fields of its type. */
export type PostureCheckInput = { name: string; typeId: PostureCheckTypeId; roleAttributes?: string[]; tags?: Tags } & PostureTypeFieldsInput;

/** Any subset (PATCH); `typeId`, when given, must be the check's own. */
export type PostureCheckPatch = { name?: string; typeId?: PostureCheckTypeId; roleAttributes?: string[]; tags?: Tags } & PostureTypeFieldsInput;

/** What an administrator sets on a check, as stored. */
type PostureCheckFields = PostureCheckBody & { name: string; roleAttributes: string[]; tags: Tags };

export interface PostureCheckService extends ResourceService<PostureCheck, PostureCheckInput, PostureCheckPatch> {
  /** The built-in check types, as one page. */
  listTypes(): ListPage<PostureCheckType>;
  /** 404 NOT_FOUND for an unknown type id. */
  getType(id: string): PostureCheckType;
}

/** A whole check's stored fields from a create or PUT body; 400 naming the field for a malformed one. */
export function postureCheckFields(input: PostureCheckInput): PostureCheckFields {
  const { name, typeId, roleAttributes, tags, ...typeFields } = input;
  return { ...postureCheckBody(typeId, typeFields), name, roleAttributes: roleAttributes ?? [], tags: tags ?? {} };
}

/** The stored type fields of a check. */
function typeFieldsOf(check: PostureCheck): PostureTypeFieldsInput {
  const own = check as unknown as Record<string, unknown>;
  return Object.fromEntries(POSTURE_CHECK_TYPE_FIELDS[check.typeId].map((key) => [key, own[key]]));
}

/** A check's stored fields after a PATCH; 400 naming the field for a malformed one. */
export function patchedPostureCheck(current: PostureCheck, patch: PostureCheckPatch): PostureCheckFields {
  const { name, typeId, roleAttributes, tags, ...typeFields } = patch;
  if (typeId !== undefined && typeId !== current.typeId) {
    const reason = `must be the check's type, ${current.typeId} (a type changes only with PUT)`;
    throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: typeId ${reason}`, cause: { field: 'typeId', reason, value: typeId } });
  }
  return postureCheckFields({
    ...patchedTypeFields(typeFieldsOf(current), typeFields),
    name: name ?? current.name,
    typeId: current.typeId,
    roleAttributes: roleAttributes ?? current.roleAttributes,
    tags: tags ?? current.tags,
  });
}

export function createPostureCheckService(deps: {
  checks: ResourceRepository<PostureCheck>;
  changes: AuditedChanges<Pick<ResourceRepository<PostureCheck>, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): PostureCheckService {
  const kit = resourceService<PostureCheck, PostureCheckFields, PostureCheckInput, PostureCheckPatch, ResourceScope<PostureCheck>>(
    { repository: deps.checks, fields: POSTURE_CHECK_TABLE.fields, roleFilter: 'posture-check', work: deps.changes, clock: deps.clock },
    {
      entityType: 'posture-check',
      label: 'posture check',
      fields: postureCheckFields,
      patched: patchedPostureCheck,
      created: (check, id, now) => ({ ...check, id, version: 1, createdAt: now, updatedAt: now }) as PostureCheck,
      check: (check, current) => checkRoleAttributes(check.roleAttributes, { kept: current?.roleAttributes }),
      auditDetails: (check) => ({ name: check.name, roleAttributes: check.roleAttributes, ...typeFieldsOf(check), typeId: check.typeId }),
    },
  );

  return {
    ...kit,
    listTypes: () => ({
      items: [...POSTURE_CHECK_TYPES],
      pagination: { limit: POSTURE_CHECK_TYPES.length, offset: 0, totalCount: POSTURE_CHECK_TYPES.length },
      filterableFields: [],
    }),
    getType(id) {
      const type = POSTURE_CHECK_TYPES.find((candidate) => candidate.id === id);
      if (!type) throw new ApiError('NOT_FOUND', { message: `No posture check type has the id '${id}'`, cause: { field: 'id', value: id } });
      return type;
    },
  };
}
