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

/** Lets `auth` through `access`, or throws; sets the session expiry headers on success. */
function admit(access: Access, api: ApiContext, auth: AuthContext, request: FastifyRequest, reply: FastifyReply): void {
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

/**
 * Authenticates the request and checks `access`, then calls `done` (with the error, if any). A caller whose session,
 * identity and policy are kept in memory is answered without a promise (decision 0041): the SDKs' polling routes
 * are mostly this.
 */
function checkAccess(access: Access, api: ApiContext, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  if (access === 'none') return done();
  const credentials = presentedCredentials(request);
  const known = api.services.auth.authenticateFromMemory(credentials);
  if (known) {
    try {
      admit(access, api, known, request, reply);
    } catch (error) {
      return done(error as Error);
    }
    return done();
  }
  api.services.auth.authenticate(credentials).then((auth) => {
    admit(access, api, auth, request, reply);
    done();
  }).catch(done);
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | undefined)?.then === 'function';

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
        preValidation: (request, reply, done) => {
          // No body at all reads as `{}`: clients of bodiless methods (cert, ext-jwt) often send nothing, and a
          // route with required fields still reports each one missing by name.
          if (route.schema.body && request.body === undefined) request.body = {};
          checkAccess(route.access, api, request, reply, done);
        },
        handler: (request, reply) => {
          const send = (result: unknown) => {
            if (!reply.sent) reply.code(route.status ?? 200).send(result);
          };
          const result = route.handler({
            query: request.query as never,
            params: request.params as never,
            body: request.body as never,
            auth: request.svcAuth,
            domains,
            api: where,
            request,
            reply,
          });
          // A handler that answers from memory returns its body itself, and the request costs no promise.
          if (isPromise(result)) return result.then(send);
          send(result);
          return undefined;
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
