/**
 * A small HTTPS client for tests: real TLS against the controller's CA, every response header kept
 * (including repeated WWW-Authenticate), optional client certificate.
 */
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
// Fastify's own injection library (what app.inject uses), given the server's dispatch instead of Fastify's handler.
import { inject } from 'light-my-request';
import { clientContext } from './tls-contexts.js';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Values of a header, in order, however many times it was sent. */
  headerValues(name: string): string[];
  text: string;
  /** The raw body (for binary answers such as images). */
  body: Buffer;
  json<T = any>(): T;
}

export interface TestRequestOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer | object;
  ca: string | string[];
  cert?: string;
  key?: string;
  servername?: string;
  /** The client's source address (any 127.x.y.z on loopback), to act as another client. */
  localAddress?: string;
}

export function request(url: string, options: TestRequestOptions): Promise<TestResponse> {
  const { body } = options;
  const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string | string[]> = { ...(options.headers ?? {}) };
  if (body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body) && !headers['content-type']) headers['content-type'] = 'application/json';
  // Node frames a DELETE body only with an explicit length (as fetch and curl send it).
  if (payload !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        // Passed on to tls.connect (which takes it) though https' option type leaves it out.
        ...({ secureContext: clientContext(options.ca, options.cert, options.key) } as object),
        ...(options.servername ? { servername: options.servername } : {}),
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          const raw = res.rawHeaders;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            headerValues: (name) => raw.flatMap((h, i) => (i % 2 === 0 && h.toLowerCase() === name.toLowerCase() ? [raw[i + 1] as string] : [])),
            text,
            body: bytes,
            json: () => JSON.parse(text),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * The same request injected into the app's server (the in-process tier): no socket, no TLS, the client address
 * 127.0.0.1. It is dispatched to the server's request listeners, as a listening server dispatches a request, so the
 * memory lane answers what it would answer in production (decision 0042) and Fastify the rest; Fastify's own
 * `inject()` would skip the lane. Client certificates cannot be presented this way.
 */
export async function injected(app: FastifyInstance, path: string, options: Omit<TestRequestOptions, 'ca'>): Promise<TestResponse> {
  if (options.cert || options.localAddress) throw new Error('client certificates and source addresses need the listening tier');
  const { body } = options;
  const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string | string[]> = { ...(options.headers ?? {}) };
  if (body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body) && !headers['content-type']) headers['content-type'] = 'application/json';
  const dispatch = (request: IncomingMessage, response: ServerResponse) => void app.server.emit('request', request, response);
  const res = await inject(dispatch, { method: (options.method ?? 'GET') as any, url: path, headers, ...(payload === undefined ? {} : { payload }) });
  const bytes = res.rawPayload;
  const text = bytes.toString('utf8');
  const headerValues = (name: string) => {
    const value = res.headers[name.toLowerCase()];
    return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
  };
  return {
    status: res.statusCode,
    headers: res.headers as Record<string, string | string[] | undefined>,
    headerValues,
    text,
    body: bytes,
    json: () => JSON.parse(text),
  };
}
