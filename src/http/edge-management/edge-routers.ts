/**
 * Edge router management operations (`/edge-routers`, administrators only): the resource kit's six and
 * re-enrollment. The detail shows the pending enrollment as the reference does (JWT, token, created and expiry
 * times); the token and creation time are read from the JWT, since only the token's hash is stored.
 */
import { decodeJwt } from 'jose';
import type { EdgeRouter } from '../../domain/edge-router.js';
import { ApiErrorBody, EmptyEnvelope, IdParams } from '../schemas/common.js';
import { EdgeRouterBody, EdgeRouterPatchBody, EdgeRouterView } from '../schemas/edge-router.js';
import { actorOf } from '../kit/actor.js';
import { envelope, selfLink } from '../kit/envelope.js';
import { resourceRoutes } from '../kit/resource-routes.js';
import { defineRoute } from '../kit/route.js';
import { RoleFilterListParams } from '../schemas/role-filter.js';

/** The pending enrollment's fields of the detail; all null once the router has enrolled. */
function enrollmentView(enrollment: EdgeRouter['enrollment']) {
  if (!enrollment) return { enrollmentJwt: null, enrollmentToken: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null };
  const claims = decodeJwt(enrollment.jwt);
  return {
    enrollmentJwt: enrollment.jwt,
    enrollmentToken: typeof claims.jti === 'string' ? claims.jti : null,
    enrollmentCreatedAt: typeof claims.iat === 'number' ? new Date(claims.iat * 1000).toISOString() : null,
    enrollmentExpiresAt: enrollment.expiresAt.toISOString(),
  };
}

/** A router as sent, with its online status and what it reported when it last connected (empty if it never did). */
export function edgeRouterView(router: EdgeRouter) {
  const reported = router.connection;
  const versionInfo = reported.versionInfo ?? { version: '', revision: '', buildDate: '', os: '', arch: '' };
  return {
    id: router.id,
    name: router.name,
    roleAttributes: router.roleAttributes,
    isTunnelerEnabled: router.isTunnelerEnabled,
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    appData: router.appData,
    tags: router.tags,
    isOnline: reported.isOnline ?? false,
    hostname: reported.hostname ?? '',
    supportedProtocols: reported.supportedProtocols ?? {},
    syncStatus: reported.syncStatus ?? 'SYNC_NEW',
    fingerprint: router.fingerprint,
    certPem: router.certPem,
    unverifiedFingerprint: null,
    unverifiedCertPem: null,
    isVerified: router.isVerified,
    ...enrollmentView(router.enrollment),
    configs: [],
    ctrlChanListeners: {},
    interfaces: [],
    versionInfo,
    ...versionInfo,
    createdAt: router.createdAt.toISOString(),
    updatedAt: router.updatedAt.toISOString(),
    _links: selfLink('edge-routers', router.id),
  };
}

const tags = ['Edge Router'];
const routers = resourceRoutes({
  collection: 'edge-routers',
  tags,
  uses: 'authorization',
  service: (domains) => domains.authorization.edgeRouters,
  view: edgeRouterView,
  itemSchema: EdgeRouterView,
});

export const edgeRouterRoutes = [
  routers.list({ operationId: 'listEdgeRouters', summary: 'Lists edge routers, optionally those matching roleFilter under roleSemantic', querystring: RoleFilterListParams }),
  routers.create({ operationId: 'createEdgeRouter', summary: 'Creates an edge router with a one-time enrollment', body: EdgeRouterBody }),
  routers.detail({ operationId: 'detailEdgeRouter', summary: 'Reads one edge router, its pending enrollment included' }),
  routers.replace({ operationId: 'updateEdgeRouter', summary: 'Replaces the settings of an edge router', body: EdgeRouterBody }),
  routers.patch({ operationId: 'patchEdgeRouter', summary: 'Changes the given settings of an edge router', body: EdgeRouterPatchBody }),
  routers.delete({ operationId: 'deleteEdgeRouter', summary: 'Deletes an edge router with its terminators' }),
  defineRoute({
    method: 'POST',
    url: '/edge-routers/:id/re-enroll',
    operationId: 'reEnrollEdgeRouter',
    summary: 'Gives an edge router a new one-time enrollment; its certificate is forgotten until it enrolls again',
    tags,
    access: 'admin',
    uses: ['authorization'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => {
      await domains.authorization.edgeRouters.reEnroll(actorOf(auth), params.id);
      return envelope({});
    },
  }),
];
