/**
 * Mounts one API binding's route table on a Fastify instance under its prefix: schemas for validation and
 * output filtering, the access check before validation, the handler call, and 405 answers (with `Allow`)
 * for methods a path does not support.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import type { AuthContext } from '../../services/authentication/request-auth.js';
import type { Services } from '../../services/services.js';
import { secondsUntil } from '../../shared/clock.js';
import type { ApiContext } from './api-context.js';
import { presentedCredentials } from './credentials.js';
import { sendApiError } from './errors.js';
import type { Access, HttpMethod, RouteDef } from './route.js';

declare module 'fastify' {
  interface FastifyRequest {
    svcAuth?: AuthContext;
  }
}

const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Authenticates the request and checks `access`; sets the session expiry headers on success. */
async function checkAccess(access: Access, api: ApiContext, request: FastifyRequest, reply: FastifyReply) {
  if (access === 'none') return;
  const auth = await api.services.auth.authenticate(presentedCredentials(request));
  if (auth.partial && access !== 'partial') {
    throw new ApiError('UNAUTHORIZED', { message: 'The session must answer its authentication queries before this operation' });
  }
  if (access === 'admin' && !auth.identity.isAdmin) {
    throw new ApiError('FORBIDDEN', { message: 'This operation needs an administrator' });
  }
  request.svcAuth = auth;
  reply.header('expiration-seconds', String(secondsUntil(auth.expiresAt, api.services.clock.now())));
  reply.header('expires-at', auth.expiresAt.toISOString());
}

/** Registers `routes` under `api.prefix` (and under each alias path given for a route). */
export function registerApi(app: FastifyInstance, api: ApiContext, routes: readonly RouteDef[], aliases: Record<string, string[]> = {}) {
  const methodsByUrl = new Map<string, Set<HttpMethod>>();
  const { services, ...where } = api;
  for (const route of routes) {
    // Picked once per route: a handler holds only what its route says it uses.
    const domains = Object.fromEntries(route.uses.map((name) => [name, services[name]])) as Partial<Services> as Services;
    const urls = [`${api.prefix}${route.url}`, ...(aliases[route.operationId] ?? [])];
    for (const url of urls) {
      (methodsByUrl.get(url) ?? methodsByUrl.set(url, new Set()).get(url)!).add(route.method);
      app.route({
        method: route.method,
        url,
        schema: route.schema,
        config: { emptyJsonBody: route.emptyJsonBody === true },
        preValidation: async (request, reply) => {
          await checkAccess(route.access, api, request, reply);
          // No body at all reads as `{}`: clients of bodiless methods (cert, ext-jwt) often send nothing, and a
          // route with required fields still reports each one missing by name.
          if (route.schema.body && request.body === undefined) request.body = {};
        },
        handler: async (request, reply) => {
          const result = await route.handler({
            query: request.query as never,
            params: request.params as never,
            body: request.body as never,
            auth: request.svcAuth,
            domains,
            api: where,
            request,
            reply,
          });
          if (reply.sent) return reply;
          return reply.code(route.status ?? 200).send(result);
        },
      });
    }
  }
  for (const [url, methods] of methodsByUrl) {
    const others = ALL_METHODS.filter((m) => !methods.has(m));
    if (others.length === 0) continue;
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].join(', ');
    app.route({
      method: others,
      url,
      handler: (request, reply) => {
        reply.header('allow', allow);
        return sendApiError(request, reply, new ApiError('METHOD_NOT_ALLOWED', { message: `${request.method} is not supported here; use ${allow}` }));
      },
    });
  }
}
