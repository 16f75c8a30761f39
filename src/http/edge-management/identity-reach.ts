/**
 * `GET /identities/{id}/reach/{serviceId}?permission=dial|bind` (issue 45, administrators only): every layer between
 * an identity and a service, each ok or blocking, with a sentence and the objects to fix (the console's "why can't
 * X reach S" page). services/authorization/reach.ts decides.
 */
import { Type } from 'typebox';
import { reachOf } from '../../services/authorization/reach.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { PolicyAdviceParams } from '../schemas/policy.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const LayerName = Type.Union(
  ['identity', 'enrollment', 'certificate', 'service-policy', 'posture', 'edge-router-policy', 'service-edge-router-policy', 'online-router', 'terminator'].map((name) => Type.Literal(name)),
);
const Named = Type.Object({ id: Type.String(), name: Type.String() });
const ReachView = Type.Object({
  identity: Named,
  service: Named,
  permission: Type.Union([Type.Literal('dial'), Type.Literal('bind')]),
  reachable: Type.Boolean({ description: 'true when every layer is ok' }),
  layers: Type.Array(
    Type.Object({
      layer: LayerName,
      ok: Type.Boolean(),
      message: Type.String(),
      fix: Type.Array(Type.Object({ entity: Type.String({ description: 'a Management API collection' }), id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })),
    }),
    { description: 'in the order a connection meets them; every layer is judged, not only the first that blocks' },
  ),
});
const ReachQuery = Type.Object({
  permission: Type.Optional(Type.Union([Type.Literal('dial'), Type.Literal('bind')], { description: "'dial' (default) or 'bind'" })),
});

export const identityReachRoute = defineRoute({
  method: 'GET',
  url: '/identities/:id/reach/:serviceId',
  operationId: 'getIdentityServiceReach',
  summary: 'Says, layer by layer, whether an identity can reach a service and what blocks it',
  tags: ['Identity'],
  access: 'admin',
  uses: ['identities', 'authorization', 'posture', 'clock'],
  schema: { params: PolicyAdviceParams, querystring: ReachQuery, response: { 200: Envelope(ReachView), 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
  handler: async ({ domains, params, query }) =>
    envelope(
      await reachOf(
        {
          identities: domains.identities,
          advice: domains.authorization.policyAdvice,
          terminators: domains.authorization.terminators,
          postureChecks: (ids) => domains.authorization.engine.postureChecks(ids),
          posture: domains.posture,
          now: domains.clock.now(),
        },
        params.id,
        params.serviceId,
        query.permission ?? 'dial',
      ),
    ),
});
