/**
 * The `metrics` binding: `GET /metrics` answers the controller's Prometheus text exposition (format 0.0.4) for a
 * scraper; other methods answer 405 in the envelope, as elsewhere. Not an Edge API, so it is in no OpenAPI document
 * and in no `/version` entry. It asks for no credentials: a scraper holds none of the controller's kinds, and the
 * figures name no identity or secret; who may reach it is decided by the listener it is put on (decision 0033).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import type { Services } from '../../services/services.js';
import { sendApiError } from '../kit/errors.js';

export const METRICS_PATH = '/metrics';

/** Mounts `GET /metrics` (and HEAD, as Fastify adds for every GET) on a listener's app. */
export function registerMetrics(app: FastifyInstance, services: Pick<Services, 'metrics'>): void {
  app.route({
    method: 'GET',
    url: METRICS_PATH,
    handler: async (_request, reply) => {
      const { contentType, body } = await services.metrics.exposition();
      // A scrape must see the figures of now, never a cached copy.
      return reply.type(contentType).header('cache-control', 'no-store').send(body);
    },
  });
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: METRICS_PATH,
    handler: (request, reply) => {
      reply.header('allow', 'GET, HEAD');
      return sendApiError(request, reply, new ApiError('METHOD_NOT_ALLOWED', { message: `${request.method} is not supported here; use GET, HEAD` }));
    },
  });
}
