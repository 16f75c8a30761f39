/**
 * A raw HTTP/1.1-over-TLS client for tests that must send what an ordinary client refuses to: repeated or
 * conflicting framing headers, control characters in header values, no Host header, heads of any size, bodies that
 * are not what their headers say. One connection per request (`Connection: close`); the answer is read to the end.
 * Each connection resumes the TLS session of the last one to the same server (RFC 8446 §2.2), as clients do: a full
 * handshake per request was most of the bad-input corpus's CPU, and no test here is about the handshake. The TLS
 * context is built once per CA too (tls-contexts.ts).
 */
import { connect, type ConnectionOptions } from 'node:tls';
import { clientContext } from './tls-contexts.js';

export interface RawRequest {
  method: string;
  /** The request-target exactly as sent: path and query, already percent-encoded (or deliberately not). */
  target: string;
  /** Header lines in order; repeats allowed. Host is added first unless `omitHost`. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: string | Buffer;
  /** Adds `content-length` for the body unless the headers already frame it. Default true. */
  frameBody?: boolean;
  omitHost?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: Buffer;
  text: string;
}

/** Decodes a chunked body (RFC 9112 §7.1); trailers are ignored. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseResponse(data: Buffer): RawResponse {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no complete HTTP response head in ${data.length} bytes: ${JSON.stringify(data.subarray(0, 200).toString('latin1'))}`);
  const [statusLine = '', ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  let body = data.subarray(headEnd + 4);
  if (headers['transfer-encoding']?.some((v) => v.toLowerCase().includes('chunked'))) body = dechunk(body);
  else if (headers['content-length']) body = body.subarray(0, Number(headers['content-length'][0]));
  return { status, headers, body, text: body.toString('utf8') };
}

/** The last TLS session ticket each server (host, port and trusted CA) gave, to resume on the next connection. */
const sessions = new Map<string, Buffer>();

/** Sends `request` to `host:port` over TLS trusting `ca`; resolves with the answer once the server closes. */
export function rawHttpsRequest(target: { host: string; port: number; ca: string }, request: RawRequest): Promise<RawResponse> {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  if (!request.omitHost) lines.push(`Host: ${target.host}:${target.port}`);
  for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
  const framed = (request.headers ?? []).some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (body !== undefined && request.frameBody !== false && !framed) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const server = `${target.host}:${target.port}:${target.ca}`;
  const session = sessions.get(server);
  const options: ConnectionOptions = { host: target.host, port: target.port, secureContext: clientContext(target.ca), ...(session ? { session } : {}) };
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(options, () => {
      socket.write(body ? Buffer.concat([head, body]) : head);
    });
    socket.on('session', (ticket: Buffer) => sessions.set(server, ticket));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while a large request is still being written (it refused the head): what it answered
    // before closing is still the answer.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (chunks.length > 0 && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return;
      reject(error);
    });
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}
