/**
 * `POST /posture-response` and `POST /posture-response-bulk` (spec: Posture Checks group; reference
 * `createPostureResponse`, `createPostureResponseBulk`): a client reports facts about its device for its API
 * session, legacy or OIDC. Both answer 201 with the services whose MFA timers changed, as the reference controller
 * does (its document says 200 for the bulk).
 */
import { ApiErrorBody } from '../schemas/common.js';
import { PostureResponseBulk, PostureResponseCreate, PostureResponseEnvelope } from '../schemas/posture-response.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const tags = ['Posture Checks'];
const response = { 201: PostureResponseEnvelope, 400: ApiErrorBody, 401: ApiErrorBody, 409: ApiErrorBody };

export const postureResponseRoutes = [
  defineRoute({
    method: 'POST',
    url: '/posture-response',
    operationId: 'createPostureResponse',
    summary: 'Submits a posture response for the API session',
    tags,
    access: 'session',
    uses: ['posture'],
    status: 201,
    schema: { body: PostureResponseCreate, response },
    handler: async ({ domains, auth, body }) => envelope(await domains.posture.submit(auth!, [body], { bulk: false })),
  }),
  defineRoute({
    method: 'POST',
    url: '/posture-response-bulk',
    operationId: 'createPostureResponseBulk',
    summary: 'Submits several posture responses for the API session, all or none',
    tags,
    access: 'session',
    uses: ['posture'],
    status: 201,
    schema: { body: PostureResponseBulk, response },
    handler: async ({ domains, auth, body }) => envelope(await domains.posture.submit(auth!, body, { bulk: true })),
  }),
];
