/**
 * `POST /change-previews` (issue 45, administrators only; decision 0082): who would gain and who would lose what, if
 * a policy of any of the three kinds were created, changed or deleted, the role attributes of an identity, a service
 * or an edge router changed, or a posture check were created, changed or deleted; nothing is saved (the console
 * shows it before every such save). services/authorization/change-preview.ts and change-preview-posture.ts decide.
 * A posture check's change is checked here against the posture check PATCH body, so a malformed one is a 400
 * naming its field before the domain reads it.
 */
import { Type } from 'typebox';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { defineRoute } from '../kit/route.js';
import { Compile } from 'typebox/compile';
import { ApiError } from '../../errors/api-error.js';
import { PostureCheckPatchBody } from '../schemas/posture-check.js';

const postureCheckChange = Compile(PostureCheckPatchBody);

/** Refuses a posture check change that does not have the wire shape of a posture check body, naming the field. */
function checkPostureCheckChange(change: unknown): void {
  const [first] = postureCheckChange.Errors(change);
  if (!first) return;
  const path = first.instancePath.split('/').filter(Boolean).join('.');
  const field = path === '' ? 'change' : `change.${path}`;
  const reason = first.message === 'schema is false' ? 'is not a field of a posture check' : first.message;
  throw new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason } });
}

const Named = Type.Object({ id: Type.String(), name: Type.String() });
const Changes = Type.Object({
  count: Type.Integer({ description: 'pairs found; a lower bound when countIsLowerBound' }),
  countIsLowerBound: Type.Boolean({ description: 'true when not every candidate pair was examined (a policy on very many identities)' }),
  items: Type.Array(
    Type.Object({
      identity: Type.Optional(Named),
      service: Type.Optional(Named),
      edgeRouter: Type.Optional(Named),
      permission: Type.Optional(Type.Union([Type.Literal('dial'), Type.Literal('bind')], { description: 'for service policies' })),
    }),
    {
      description:
        'the first 50: an identity and a service (service policies, role attributes; for posture checks: pairs unblocked or blocked), an identity and an edge router, or a service and an edge router (for an edge router’s attributes: a service gaining its first or losing its last router)',
    },
  ),
});
const PreviewBody = Type.Object(
  {
    entity: Type.String({
      description: "'service-policies', 'edge-router-policies', 'service-edge-router-policies', 'identities', 'services', 'edge-routers' or 'posture-checks'",
      maxLength: 64,
    }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the entity to change or delete; absent for a new policy or posture check' })),
    delete: Type.Optional(Type.Boolean()),
    change: Type.Optional(Type.Unknown({ description: 'the body the create or PATCH would send (for identities, services and edge routers: {roleAttributes})' })),
  },
  { additionalProperties: false },
);

export const changePreviewRoute = defineRoute({
  method: 'POST',
  url: '/change-previews',
  operationId: 'previewChange',
  summary: 'Says who would gain and lose access if a policy, posture check or role attributes changed; saves nothing',
  tags: ['Service Policy'],
  access: 'admin',
  uses: ['changePreviews'],
  schema: { body: PreviewBody, response: { 200: Envelope(Type.Object({ gains: Changes, losses: Changes })), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
  handler: async ({ domains, body }) => {
    if (body.entity === 'posture-checks' && body.change !== undefined) checkPostureCheckChange(body.change);
    return { data: await domains.changePreviews.preview(body), meta: {} };
  },
});
