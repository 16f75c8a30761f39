/**
 * The memory lane (decision 0042): the routes SDKs poll (`GET /current-api-session`, `/current-identity`,
 * `/current-api-session/service-updates`) answered from the server's `request` event, before Fastify handles the
 * request, when the caller and the answer are both kept in memory. Fastify's per-request work (request and reply
 * objects, hooks, routing, the route's context) costs such a request more than everything it asks of the controller.
 *
 * The lane answers only what Fastify would answer the same way, with the same bytes: a plain GET of a route's exact
 * path, the head within its limits, no body, a caller `authenticateFromMemory` accepts for the route's access, and an
 * answer the route's own `fromMemory` gives, written with the serializer Fastify compiled from the route's schema.
 * Anything else (a query, a miss, a refusal, a partial session where the route wants a full one) goes to Fastify as if
 * the lane were not there; a caller the lane authenticated is handed over with the request, so its credentials are
 * not looked up twice. The answer is counted in the request metrics and logged as Fastify's would be.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthContext, RequestAuthenticator } from '../../services/authentication/request-auth.js';
import type { Clock } from '../../shared/clock.js';
import type { AnswerRecorder } from '../metrics/request-metrics.js';
import { accessRefusal, sessionExpiryHeaders } from './access.js';
import { presentedCredentials } from './credentials.js';
import { logLaneAnswer } from './request-log.js';
import type { Access } from './route.js';
import { checkRequestHead } from './server-errors.js';
import { oncePerObject } from '../../shared/once-per-object.js';

/** A route the lane may answer, at one path (registerApi gives one per path it registers). */
export interface LaneRoute {
  url: string;
  access: Access;
  /** The route's `fromMemory` for this caller. */
  fromMemory(auth: AuthContext): unknown;
  /** The route's 200 serializer as Fastify compiled it; set at the route's first answer through Fastify. */
  serialize?: (body: unknown) => string;
}

export interface MemoryLane {
  /** Answers the request and returns true, or returns false having written nothing. */
  answer(request: IncomingMessage, response: ServerResponse): boolean;
  /** How many requests the lane has answered. */
  readonly answered: number;
  /** From now on every request goes to Fastify (which answers 503 while the listener closes). */
  close(): void;
}

// The caller of a request the lane authenticated and then left to Fastify (its answer was not kept).
const handedOver = new WeakMap<IncomingMessage, AuthContext>();

/** The caller the memory lane authenticated before it stood aside for this request, if it did. */
export const laneAuthOf = (request: IncomingMessage): AuthContext | undefined => handedOver.get(request);

/** Whether the head announces a body (a length other than 0, or a transfer coding). */
function announcesBody(request: IncomingMessage): boolean {
  const fields = request.rawHeaders;
  for (let at = 0; at < fields.length; at += 2) {
    const name = (fields[at] as string).toLowerCase();
    if (name === 'transfer-encoding' || (name === 'content-length' && (fields[at + 1] as string).trim() !== '0')) return true;
  }
  return false;
}

/** Whether Fastify would pass the request's head on to the route: the checks of the listener's onRequest hook. */
function plainHead(request: IncomingMessage, url: string): boolean {
  try {
    checkRequestHead({ raw: request, originalUrl: url });
  } catch {
    return false;
  }
  return !announcesBody(request);
}

// The text of each kept answer, written once: `fromMemory` gives a kept answer as the same frozen object from request
// to request until it changes (the caller's identity detail, its service-updates time, a session's view until its
// activity time moves). Other answers are made anew for each request and are written each time.
const keptTexts = new WeakMap<LaneRoute, (body: object) => string>();

function payloadOf(route: LaneRoute, serialize: (body: unknown) => string, body: object): string {
  if (!Object.isFrozen(body)) return serialize(body);
  let textOf = keptTexts.get(route);
  if (textOf === undefined) keptTexts.set(route, (textOf = oncePerObject(serialize)));
  return textOf(body);
}

export function createMemoryLane(options: {
  routes: readonly LaneRoute[];
  auth: Pick<RequestAuthenticator, 'authenticateFromMemory'>;
  clock: Clock;
  /** The listener's URL rewriting (the client API's root paths), when it has one. */
  rewriteUrl?: (url: string) => string;
  /** The headers every answer of the listener carries. */
  standardHeaders: Readonly<Record<string, string>>;
  newRequestId(): string;
  record: AnswerRecorder;
  log: FastifyBaseLogger;
}): MemoryLane {
  const { auth, clock, rewriteUrl, standardHeaders, newRequestId, record, log } = options;
  const byUrl = new Map(options.routes.map((route) => [route.url, route]));
  let answered = 0;
  let closed = false;

  /** The route, caller and body of a request the lane answers; undefined to stand aside. */
  function decide(request: IncomingMessage) {
    if (closed || request.method !== 'GET') return undefined;
    const sent = request.url ?? '/';
    const route = byUrl.get(rewriteUrl ? rewriteUrl(sent) : sent);
    if (route?.serialize === undefined || !plainHead(request, sent)) return undefined;
    const caller = auth.authenticateFromMemory(presentedCredentials({ raw: request }));
    if (caller === undefined || accessRefusal(route.access, caller) !== undefined) return undefined;
    const body = route.fromMemory(caller);
    if (body === undefined) {
      handedOver.set(request, caller);
      return undefined;
    }
    return { route, caller, payload: payloadOf(route, route.serialize, body as object) };
  }

  return {
    answer(request, response) {
      const started = performance.now();
      let decided: ReturnType<typeof decide>;
      try {
        decided = decide(request);
      } catch {
        // Fastify answers it, and reports whatever failed as it reports any route's failure.
        return false;
      }
      if (decided === undefined) return false;
      const { route, caller, payload } = decided;
      const requestId = newRequestId();
      // The headers and their order as Fastify writes them: the listener's hook's, the session's, then the body's.
      response.writeHead(200, {
        'svc-request-id': requestId,
        ...standardHeaders,
        ...sessionExpiryHeaders(caller, clock.now()),
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(payload)),
      });
      response.end(payload);
      answered++;
      const elapsedMs = performance.now() - started;
      record(route.url, 'GET', 200, elapsedMs / 1000);
      logLaneAnswer(log, requestId, route.url, request.url ?? '/', elapsedMs, caller);
      return true;
    },
    get answered() {
      return answered;
    },
    close() {
      closed = true;
    },
  };
}

/** Puts the lane in front of the server's request handlers (Fastify's): they get every request it does not answer. */
export function installMemoryLane(server: Server, lane: MemoryLane): void {
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (lane.answer(request, response)) return;
    for (const handler of handlers) handler.call(server, request, response);
  });
}
