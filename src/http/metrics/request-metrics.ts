/**
 * Records every answered request in `svc_http_requests_total` and `svc_http_request_duration_seconds`: the route as
 * its registered template (`/edge/management/v1/identities/:id`), `unmatched` when no route matched, never the URL
 * a client sent, so the number of series stays bounded whatever clients ask for (decision 0033).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ControllerMetrics } from '../../services/metrics/index.js';
import { edgeClientAliases, EDGE_CLIENT_PREFIX } from '../edge-client/routes.js';
import { EDGE_MANAGEMENT_PREFIX } from '../edge-management/routes.js';
import { METRICS_PATH } from './routes.js';

export const UNMATCHED_ROUTE = 'unmatched';

const EDGE_CLIENT_ALIASES = new Set(Object.values(edgeClientAliases).flat());

const under = (route: string, prefix: string) => route === prefix || route.startsWith(`${prefix}/`);

/** The binding a route template belongs to, from the roots each binding serves; `none` for unmatched requests. */
export function bindingOfRoute(route: string | undefined): string {
  if (route === undefined) return 'none';
  if (route === METRICS_PATH) return 'metrics';
  if (under(route, EDGE_MANAGEMENT_PREFIX)) return 'edge-management';
  if (under(route, EDGE_CLIENT_PREFIX) || EDGE_CLIENT_ALIASES.has(route)) return 'edge-client';
  if (under(route, '/oidc') || route === '/.well-known/openid-configuration') return 'edge-oidc';
  return 'other';
}

/** Records one answered request: its route template (undefined when none matched), method, status and duration. */
export type AnswerRecorder = (route: string | undefined, method: string, status: number, durationSeconds: number) => void;

/** The recorder of one listener's answers: Fastify's `onResponse` hook and the memory lane use the same one. */
export function answerRecorder(metrics: Pick<ControllerMetrics, 'httpRequest'>): AnswerRecorder {
  // Route templates are a bounded set: each one's binding is worked out once.
  const bindings = new Map<string | undefined, string>();
  return (route, method, status, durationSeconds) => {
    let binding = bindings.get(route);
    if (binding === undefined) bindings.set(route, (binding = bindingOfRoute(route)));
    metrics.httpRequest({ binding, method, route: route ?? UNMATCHED_ROUTE, status }, durationSeconds);
  };
}

/** What a listener's `onResponse` hook records of each answered request. */
export function recordRequest(record: AnswerRecorder) {
  return (request: FastifyRequest, reply: FastifyReply): void => record(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
}
