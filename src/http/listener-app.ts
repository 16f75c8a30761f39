/**
 * Builds the Fastify application for one bind point of one web listener: TLS (client certificates requested,
 * not required), the 1 MiB body limit, request ids, the error envelope, and the API bindings the listener hosts.
 * The app is a plain Fastify instance, so tests can `inject()` into it or listen on a loopback port.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Server as TlsServer } from 'node:tls';
import type { Logger } from 'pino';
import type { BindPoint, WebListener } from '../config/types.js';
import type { Services } from '../services/services.js';
import { newUuid } from '../shared/random.js';
import { errorHandler, notFoundHandler } from './kit/errors.js';
import { registerJsonBodyParser } from './kit/json-body.js';
import { rememberClientChain } from './kit/client-chain.js';
import { checkRequestHead, clientErrorHandler, expectationHandler, SOCKET_MAX_HEADER_BYTES } from './kit/server-errors.js';
import { closeEndedConnections, deadlineServerOptions, limitConnections } from './connection-limits.js';
import { registerApi } from './kit/register-api.js';
import type { SpecRegistry } from './kit/specs.js';
import { edgeClientAliases, edgeClientRoutes, EDGE_CLIENT_PREFIX } from './edge-client/routes.js';
import { edgeClientUrl } from './edge-client/root-paths.js';
import { edgeManagementRoutes, EDGE_MANAGEMENT_PREFIX } from './edge-management/routes.js';
import { isOidcPath, oidcErrorHandler } from '../oidc/errors.js';
import { registerOidc } from '../oidc/plugin.js';
import { registerMetrics } from './metrics/routes.js';
import { registerConsole } from './console/routes.js';
import { consoleRedirectUris } from './console/redirect-uris.js';
import { answerRecorder, recordRequest } from './metrics/request-metrics.js';
import { createMemoryLane, installMemoryLane, type LaneRoute, type MemoryLane } from './kit/memory-lane.js';
import { requestLogLine } from './kit/request-log.js';
import { lazyRequestLogger } from './kit/request-logger.js';
import { lazySchemaController } from './kit/schema-compilers.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ListenerTls {
  key: string;
  cert: string;
  /** CAs whose client certificates the listener asks for (verification happens in the auth methods). */
  ca: string[];
}

export interface ListenerAppOptions {
  services: Services;
  specs: SpecRegistry;
  listener: WebListener;
  bindPoint: BindPoint;
  /** Omit only for in-process `inject()` tests; a listening controller always serves TLS. */
  tls?: ListenerTls;
  logger: Logger;
}

/**
 * Replaces the CAs a TLS listener names to clients in its certificate request, and verifies against, for the
 * handshakes that follow (decision 0037): the controller's own CAs and the verified third-party CAs, so that clients
 * which pick their certificate by the names asked for (Go's tls.Config.Certificates) send a third-party one.
 */
export function setClientCas(app: FastifyInstance, tls: ListenerTls, listener: WebListener, caPems: string[]): void {
  (app.server as unknown as TlsServer).setSecureContext({ key: tls.key, cert: tls.cert, ca: caPems, minVersion: listener.options.minTLSVersion, maxVersion: listener.options.maxTLSVersion });
}

const lanes = new WeakMap<FastifyInstance, MemoryLane>();

/** The memory lane of a listener's app (decision 0042): how many requests it answered, for tests and the curious. */
export const memoryLaneOf = (app: FastifyInstance): MemoryLane | undefined => lanes.get(app);

export async function buildListenerApp(options: ListenerAppOptions): Promise<FastifyInstance> {
  const { services, specs, listener, bindPoint, tls, logger } = options;
  const hostsOidc = listener.apis.some((api) => api.binding === 'edge-oidc');
  const hostsEdgeClient = listener.apis.some((api) => api.binding === 'edge-client');
  // The same two headers on every answer; one object, made once per listener.
  const standard = Object.freeze({ server: `svc-controller/${services.version.version}`, 'svc-instance-id': services.instanceId });
  const standardHeaders = () => standard;
  const app = Fastify({
    loggerInstance: logger.child({ listener: listener.name, bindPoint: bindPoint.interface.text }),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => newUuid(),
    // The client API's root paths (`/authenticate`, `/edge/v1/…`), where this listener hosts it.
    ...(hostsEdgeClient ? { rewriteUrl: (request: { url?: string }) => edgeClientUrl(request.url ?? '/') } : {}),
    // Fastify's own request lines would log every URL as it came; kit/request-log.ts writes them with secrets blanked.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    // A request's child logger is made only when the request writes a line (kit/request-logger.ts).
    childLoggerFactory: lazyRequestLogger,
    connectionTimeout: listener.options.readTimeoutMs + listener.options.writeTimeoutMs,
    keepAliveTimeout: listener.options.idleTimeoutMs,
    // Fastify sets the server's request deadline from its own option (0, none, by default): see connection-limits.ts.
    requestTimeout: listener.options.requestTimeoutMs,
    // Unknown fields are refused rather than silently dropped, and bodies are not type-coerced:
    // `"isAdmin": "true"` is an error, not a yes.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Validators and serializers compiled when a route is first asked, once per schema (kit/schema-compilers.ts).
    schemaController: lazySchemaController,
    // What Node's parser refuses before any route is known, and what the router refuses (a bad percent-encoding, an
    // overlong path parameter), answer in the envelope too (http/kit/server-errors.ts).
    clientErrorHandler: clientErrorHandler(standardHeaders, newUuid),
    frameworkErrors: (error, request, reply) => {
      reply.headers({ ...standardHeaders(), 'svc-request-id': String(request.id) });
      return hostsOidc && isOidcPath(request.url) ? oidcErrorHandler(error, request, reply) : errorHandler(error, request, reply);
    },
    ...(tls
      ? {
          https: {
            key: tls.key,
            cert: tls.cert,
            ca: tls.ca,
            requestCert: true,
            rejectUnauthorized: false,
            minVersion: listener.options.minTLSVersion,
            maxVersion: listener.options.maxTLSVersion,
            // The route checks the 16 KiB head limit (checkRequestHead) so its answer has the route's shape; the socket
            // reads further before refusing unrouted. Host is checked there too, so its 400 has a body.
            maxHeaderSize: SOCKET_MAX_HEADER_BYTES,
            requireHostHeader: false,
            ...deadlineServerOptions(listener.options),
          },
        }
      : {}),
  }) as unknown as FastifyInstance;

  if (tls) limitConnections(app.server, listener.options);
  if (tls) closeEndedConnections(app.server);
  // The client's chain is read as the handshake completes, before anything else reads the peer (client-chain.ts).
  if (tls) app.server.on('secureConnection', rememberClientChain);
  // One hook each way, not one per concern, each in callback form: a hook that returns a promise costs the request a
  // promise and a turn of the microtask queue, and neither of these waits for anything.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('svc-request-id', String(request.id));
    reply.headers(standardHeaders());
    try {
      checkRequestHead(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  // Request counts and latency by route template and status (decision 0033), on every listener whether or not it
  // serves /metrics itself; the request log line.
  const recordAnswer = answerRecorder(services.metrics);
  const record = recordRequest(recordAnswer);
  const log = requestLogLine();
  app.addHook('onResponse', (request, reply, done) => {
    // Every 5xx answer is a security event (issue 12, point 6): the request id ties it to the error logged with it.
    if (reply.statusCode >= 500) {
      services.events.serverError({ requestId: String(request.id), method: request.method, path: request.routeOptions.url ?? 'unrouted', status: reply.statusCode });
    }
    record(request, reply);
    log(request, reply);
    done();
  });
  app.server.on('checkExpectation', expectationHandler(standardHeaders, newUuid));
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  registerJsonBodyParser(app);
  // Enrollment CSRs arrive as the raw PEM body (application/x-pem-file as SDKs send it, application/pkcs10 per
  // RFC 5967); text/plain already has a string parser. The body limit applies as to JSON.
  app.addContentTypeParser(['application/x-pem-file', 'application/pkcs10'], { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const laneRoutes: LaneRoute[] = [];
  for (const api of listener.apis) {
    if (api.binding === 'edge-client') {
      laneRoutes.push(...registerApi(app, { binding: api.binding, prefix: EDGE_CLIENT_PREFIX, bindPoint, services, specs }, edgeClientRoutes, edgeClientAliases));
    } else if (api.binding === 'edge-management') {
      laneRoutes.push(...registerApi(app, { binding: api.binding, prefix: EDGE_MANAGEMENT_PREFIX, bindPoint, services, specs }, edgeManagementRoutes));
    } else if (api.binding === 'edge-oidc') {
      // The console signs in through this provider when the same listener serves it (same origin).
      const console = listener.apis.some((other) => other.binding === 'edge-management') ? consoleRedirectUris(bindPoint) : [];
      await registerOidc(app, { services, bindPoint, redirectUris: [...api.options.redirectURIs, ...console] });
    }
  }
  if (listener.apis.some((api) => api.binding === 'edge-management')) registerConsole(app);
  if (listener.metrics) registerMetrics(app, services);
  // The SDKs' polling routes, answered from memory before Fastify when they can be (decision 0042). Installed on the
  // app's server whether or not it listens, so that requests dispatched to a server that does not (the in-process
  // test tier) take the path production's take.
  const lane = createMemoryLane({
    routes: laneRoutes,
    auth: services.auth,
    clock: services.clock,
    ...(hostsEdgeClient ? { rewriteUrl: edgeClientUrl } : {}),
    standardHeaders: standard,
    newRequestId: newUuid,
    record: recordAnswer,
    log: app.log,
  });
  app.addHook('preClose', (done) => {
    lane.close();
    done();
  });
  await app.ready();
  installMemoryLane(app.server, lane);
  lanes.set(app, lane);
  return app;
}
