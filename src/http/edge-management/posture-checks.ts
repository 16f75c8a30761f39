/**
 * Posture check management operations (`/posture-checks`, administrators only): the resource kit's six, and the
 * built-in check types (`/posture-check-types`, read-only).
 */
import { POSTURE_CHECK_TYPE_FIELDS, type PostureCheck, type PostureCheckType } from '../../domain/posture-check.js';
import { ApiErrorBody, Envelope, IdParams, ListEnvelope } from '../schemas/common.js';
import { PostureCheckBody, PostureCheckPatchBody, PostureCheckTypeView, PostureCheckView } from '../schemas/posture-check.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { RoleFilterListParams } from '../schemas/role-filter.js';

/** A check as sent: the common fields and those of its type. */
export function postureCheckView(check: PostureCheck) {
  const own = check as unknown as Record<string, unknown>;
  return {
    id: check.id,
    name: check.name,
    typeId: check.typeId,
    roleAttributes: check.roleAttributes,
    version: check.version,
    tags: check.tags,
    createdAt: check.createdAt.toISOString(),
    updatedAt: check.updatedAt.toISOString(),
    _links: selfLink('posture-checks', check.id),
    ...Object.fromEntries(POSTURE_CHECK_TYPE_FIELDS[check.typeId].map((key) => [key, own[key]])),
  };
}

/** The built-in types are as old as the controller's code: the epoch stands for "always". */
const BUILT_IN = new Date(0).toISOString();

function postureCheckTypeView(type: PostureCheckType) {
  return {
    id: type.id,
    name: type.name,
    operatingSystems: type.operatingSystems.map((os) => ({ type: os, versions: [] })),
    version: '1',
    tags: {},
    createdAt: BUILT_IN,
    updatedAt: BUILT_IN,
    _links: selfLink('posture-check-types', type.id),
  };
}

const tags = ['Posture Checks'];
const checks = resourceRoutes({
  collection: 'posture-checks',
  tags,
  uses: 'authorization',
  service: (domains) => domains.authorization.postureChecks,
  view: postureCheckView,
  itemSchema: PostureCheckView,
});
const denied = { 401: ApiErrorBody, 403: ApiErrorBody };

export const postureCheckRoutes = [
  checks.list({ operationId: 'listPostureChecks', summary: 'Lists posture checks, optionally those matching roleFilter under roleSemantic', querystring: RoleFilterListParams }),
  checks.create({ operationId: 'createPostureCheck', summary: 'Creates a posture check of one type', body: PostureCheckBody }),
  checks.detail({ operationId: 'detailPostureCheck', summary: 'Reads one posture check' }),
  checks.replace({ operationId: 'updatePostureCheck', summary: 'Replaces a posture check (its type may change)', body: PostureCheckBody }),
  checks.patch({ operationId: 'patchPostureCheck', summary: 'Changes the given fields of a posture check', body: PostureCheckPatchBody }),
  checks.delete({ operationId: 'deletePostureCheck', summary: 'Deletes a posture check' }),
  defineRoute({
    method: 'GET',
    url: '/posture-check-types',
    operationId: 'listPostureCheckTypes',
    summary: 'Lists the posture check types',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { response: { 200: ListEnvelope(PostureCheckTypeView), 400: ApiErrorBody, ...denied } },
    handler: ({ domains }) => {
      const page = domains.authorization.postureChecks.listTypes();
      return listEnvelope(page.items.map(postureCheckTypeView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/posture-check-types/:id',
    operationId: 'detailPostureCheckType',
    summary: 'Reads one posture check type',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, response: { 200: Envelope(PostureCheckTypeView), ...denied, 404: ApiErrorBody } },
    handler: ({ domains, params }) => envelope(postureCheckTypeView(domains.authorization.postureChecks.getType(params.id))),
  }),
];
