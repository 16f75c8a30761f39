/**
 * The router's own HTTPS listeners (the file's `web` section): per bind point, `GET /health-checks` for a
 * listener binding `health-checks` (reference D4, plus the probe variant of decision 0065) and `GET /metrics`
 * (Prometheus text) for one binding `metrics`, over TLS with the router's server certificate. Plain node:https:
 * two read-only endpoints need no framework, and the router stays apart from the controller's http/ layer.
 */
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Logger } from 'pino';
import type { RouterFile } from '../../router-config/schema.js';
import { parseDuration } from '../../shared/durations.js';
import type { HealthChecks } from '../health/health-checks.js';
import type { RouterMetrics } from '../metrics/router-metrics.js';

type WebSection = NonNullable<RouterFile['web']>;
type WebListener = WebSection[number];

export interface RouterTls {
  /** PKCS#8 PEM private key of the server certificate. */
  readonly key: string;
  /** Server certificate and chain (PEM). */
  readonly cert: string;
}

export interface RouterWebOptions {
  readonly tls: RouterTls;
  readonly health: HealthChecks;
  readonly metrics: RouterMetrics;
  readonly log: Pick<Logger, 'info' | 'warn'>;
}

export interface RouterWeb {
  /** `https://<address>` of every bind point, in file order. */
  readonly urls: string[];
  /** Serves new connections with renewed certificates; open ones keep theirs. */
  updateTls(tls: RouterTls): void;
  close(): Promise<void>;
}

/** The one `failWith` value: what Kubernetes (and most probes) read as "not healthy" (decision 0065). */
export const PROBE_STATUS = 503;

/**
 * Starts every listener of a validated `web` section; rejects (after closing those already listening) when one
 * cannot listen, naming the listener and the address.
 *
 * @example
 * const web = await startRouterWeb(config.web, { tls: { key, cert }, health, metrics, log });
 * console.log(web.urls); // ['https://router.example.com:8081']
 */
export async function startRouterWeb(web: WebSection, options: RouterWebOptions): Promise<RouterWeb> {
  const servers: Server[] = [];
  const urls: string[] = [];
  try {
    for (const listener of web) {
      for (const point of listener.bindPoints) {
        const on = hostPort(point.interface);
        const server = createListener(listener, options);
        servers.push(server);
        await listen(server, on.host, on.port).catch((error: Error) => {
          throw new Error(`web listener '${listener.name}' cannot listen on ${point.interface}: ${error.message}`);
        });
        urls.push(`https://${point.address}`);
        options.log.info({ listener: listener.name, url: `https://${point.address}` }, `serving ${listener.apis.map((a) => a.binding).join(', ')} on ${point.interface}`);
      }
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  return {
    urls,
    updateTls(tls) {
      for (const server of servers) server.setSecureContext({ key: tls.key, cert: tls.cert });
    },
    async close() {
      await Promise.all(servers.map(closeServer));
    },
  };
}

function createListener(listener: WebListener, options: RouterWebOptions): Server {
  const settings = listener.options ?? {};
  const ms = (text: string | undefined, fallback: number) => (text === undefined ? fallback : (parseDuration(text) ?? fallback));
  const tlsVersion = (name: string | undefined, fallback: 'TLSv1.2' | 'TLSv1.3') => (name === undefined ? fallback : name === 'TLS1.3' ? 'TLSv1.3' : 'TLSv1.2');
  const server = createServer(
    {
      key: options.tls.key,
      cert: options.tls.cert,
      minVersion: tlsVersion(settings.minTLSVersion, 'TLSv1.2'),
      maxVersion: tlsVersion(settings.maxTLSVersion, 'TLSv1.3'),
      handshakeTimeout: ms(settings.handshakeTimeout, 10_000),
    },
    (request, response) => void answer(listener, options, request, response),
  );
  server.headersTimeout = ms(settings.headerTimeout, 10_000);
  server.requestTimeout = ms(settings.requestTimeout, 30_000);
  server.keepAliveTimeout = ms(settings.idleTimeout, 5_000);
  server.maxConnections = settings.maxConnections ?? 10_000;
  return server;
}

async function answer(listener: WebListener, options: RouterWebOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const apis = new Set(listener.apis.map((api) => api.binding));
  // Only the path and query are read; the host part is a placeholder, never the client's Host header.
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'https://router.invalid');
  } catch {
    return send(response, 400, error('INVALID_PATH', 'the request target is not a path'));
  }
  const path = url.pathname;
  const health = apis.has('health-checks') && (path === '/health-checks' || path.startsWith('/health-checks/'));
  const metrics = apis.has('metrics') && path === '/metrics';
  if (!health && !metrics) {
    const served = [...apis].map((api) => `/${api}`).join(', ');
    return send(response, 404, error('NOT_FOUND', `nothing is served at ${path} on this listener; it serves ${served}`));
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return send(response, 405, error('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; use GET`));
  }
  if (health) return healthAnswer(options.health, url.searchParams, response);
  try {
    const { contentType, body } = await options.metrics.exposition();
    send(response, 200, body, contentType);
  } catch (failure) {
    options.log.warn({ err: failure }, 'the metrics exposition failed');
    send(response, 503, error('METRICS_UNAVAILABLE', 'the metrics could not be collected; try again'));
  }
}

/**
 * Always 200, as the reference answers, unless `failWith=503` asks for 503 while unhealthy: an HTTP probe
 * (Kubernetes httpGet) judges by status alone and would pass `"healthy": false` with 200.
 */
function healthAnswer(health: HealthChecks, query: URLSearchParams, response: ServerResponse): void {
  const failWith = query.get('failWith');
  if (failWith !== null && failWith !== String(PROBE_STATUS)) {
    const message = `failWith: '${failWith}' is not supported; use failWith=${PROBE_STATUS} to answer ${PROBE_STATUS} while unhealthy`;
    return send(response, 400, error('INVALID_PARAMETER', message));
  }
  const report = health.report({ short: query.get('type') === 'short' });
  const status = failWith !== null && !report.data.healthy ? PROBE_STATUS : 200;
  // Indented by four spaces, as the reference renders it.
  send(response, status, `${JSON.stringify(report, null, 4)}\n`);
}

function error(code: string, message: string): string {
  return `${JSON.stringify({ error: { code, message }, meta: {} })}\n`;
}

function send(response: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** A validated bind point `host:port`, IPv6 hosts in brackets. */
function hostPort(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  return { host: text.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(colon + 1)) };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    // Keep-alive connections would hold close() open until they idle out.
    server.closeAllConnections();
  });
}
