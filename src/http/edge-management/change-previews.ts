/**
 * `POST /change-previews` (issue 45, administrators only): who would gain and who would lose which service, and how,
 * if a policy of any of the three kinds were created, changed or deleted, or an identity's role attributes changed; nothing is saved
 * (the console shows it before every such save). services/authorization/change-preview.ts decides.
 */
import { Type } from 'typebox';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { defineRoute } from '../kit/route.js';

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
    { description: 'the first 50: an identity and a service (service policies), an identity and an edge router, or a service and an edge router' },
  ),
});
const PreviewBody = Type.Object(
  {
    entity: Type.String({ description: "'service-policies', 'edge-router-policies', 'service-edge-router-policies' or 'identities'", maxLength: 64 }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the entity to change or delete; absent for a new service policy' })),
    delete: Type.Optional(Type.Boolean()),
    change: Type.Optional(Type.Unknown({ description: 'the body the create or PATCH would send (for identities: {roleAttributes})' })),
  },
  { additionalProperties: false },
);

export const changePreviewRoute = defineRoute({
  method: 'POST',
  url: '/change-previews',
  operationId: 'previewChange',
  summary: 'Says who would gain and lose access if a policy or an identity’s role attributes changed; saves nothing',
  tags: ['Service Policy'],
  access: 'admin',
  uses: ['changePreviews'],
  schema: { body: PreviewBody, response: { 200: Envelope(Type.Object({ gains: Changes, losses: Changes })), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
  handler: async ({ domains, body }) => ({ data: await domains.changePreviews.preview(body), meta: {} }),
});
