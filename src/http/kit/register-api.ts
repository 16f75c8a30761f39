/**
 * Mounts one API binding's route table on a Fastify instance under its prefix: schemas for validation and
 * output filtering, the access check before validation, the handler call, and 405 answers (with `Allow`)
 * for methods a path does not support.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import type { AuthContext } from '../../services/authentication/request-auth.js';
import type { Services } from '../../services/services.js';
import type { ApiContext, RouteApi } from './api-context.js';
import { accessRefusal, sessionExpiryHeaders } from './access.js';
import { presentedCredentials } from './credentials.js';
import { sendApiError } from './errors.js';
import type { Access, HttpMethod, RouteDef } from './route.js';
import { laneAuthOf, type LaneRoute } from './memory-lane.js';

declare module 'fastify' {
  interface FastifyRequest {
    svcAuth?: AuthContext;
  }
}

const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Lets `auth` through `access`, or throws; sets the session expiry headers on success. */
function admit(access: Access, api: ApiContext, auth: AuthContext, request: FastifyRequest, reply: FastifyReply): void {
  const refusal = accessRefusal(access, auth);
  if (refusal) throw refusal;
  request.svcAuth = auth;
  reply.headers(sessionExpiryHeaders(auth, api.services.clock.now()));
}

/**
 * Authenticates the request and checks `access`, then calls `done` (with the error, if any). A caller whose session,
 * identity and policy are kept in memory is answered without a promise (decision 0041): the SDKs' polling routes
 * are mostly this.
 */
function checkAccess(access: Access, api: ApiContext, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
  if (access === 'none') return done();
  const credentials = presentedCredentials(request);
  // The memory lane may have authenticated the request already, and stood aside only for its answer.
  const known = laneAuthOf(request.raw) ?? api.services.auth.authenticateFromMemory(credentials);
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

/**
 * Registers `routes` under `api.prefix` (and under each alias path given for a route). Returns the routes the memory
 * lane may answer (those with `fromMemory`), one per path.
 */
export function registerApi(app: FastifyInstance, api: ApiContext, routes: readonly RouteDef[], aliases: Record<string, string[]> = {}): LaneRoute[] {
  const methodsByUrl = new Map<string, Set<HttpMethod>>();
  const laneRoutes: LaneRoute[] = [];
  const { services, ...where } = api;
  for (const route of routes) {
    // Picked once per route: a handler holds only what its route says it uses.
    const domains = Object.fromEntries(route.uses.map((name) => [name, services[name]])) as Partial<Services> as Services;
    const urls = [`${api.prefix}${route.url}`, ...(aliases[route.operationId] ?? [])];
    for (const url of urls) {
      (methodsByUrl.get(url) ?? methodsByUrl.set(url, new Set()).get(url)!).add(route.method);
      const lane = route.fromMemory ? laneRoute(route, url, domains, where) : undefined;
      if (lane) laneRoutes.push(lane);
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
          if (lane) {
            // The lane writes its answers with this route's own serializer, once Fastify has one for it.
            lane.serialize ??= reply.getSerializationFunction('200') as LaneRoute['serialize'];
            const known = request.svcAuth && lane.fromMemory(request.svcAuth);
            if (known !== undefined) return send(known);
          }
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
          return send(result);
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
  return laneRoutes;
}

/** `route` at `url` as the memory lane answers it; a route the lane cannot answer must not have `fromMemory`. */
function laneRoute(route: RouteDef, url: string, domains: Services, api: RouteApi): LaneRoute {
  if (route.method !== 'GET' || route.schema.querystring || route.schema.params || route.access === 'none' || (route.status ?? 200) !== 200) {
    throw new Error(`${route.operationId}: only a GET of a fixed path, for a session, with a 200 answer may have fromMemory`);
  }
  return { url, access: route.access, fromMemory: (auth) => route.fromMemory!({ auth, domains, api }) };
}
