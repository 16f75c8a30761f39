/**
 * HTTPS for the edge commands: one request function trusting given CA certificates (never the system roots alone
 * once a controller's CAs are known), and the unverified first contact that reads the certificate a server presents,
 * for login's fingerprint confirmation and enrollment's JWT check.
 */
import { request } from 'node:https';
import { connect, type PeerCertificate } from 'node:tls';
import { refusedError } from '../cli-error.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON body, or undefined when the body is not JSON. */
  body: any;
}

export interface HttpRequest {
  method?: string;
  /** PEM certificates to trust; `false` skips verification (first contact only, before trust exists). */
  ca: string | false;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or a string sent as it is with its own content-type header. */
  body?: unknown;
  /**
   * The SHA-256 fingerprint (`AB:CD:…`) the server's certificate must have, with `ca: false`: trust established
   * elsewhere (an enrollment JWT verified by that very certificate's key).
   */
  pin?: string;
  /** A client certificate and key (PEM) for certificate authentication. */
  cert?: string;
  key?: string;
}

/** Sends one request; rejects only when the controller cannot be reached (exit code 1 with the reason). */
export function send(url: URL, options: HttpRequest): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let payload: string | undefined;
  if (typeof options.body === 'string') payload = options.body;
  else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const tls = options.ca === false ? { rejectUnauthorized: false } : { ca: options.ca };
  // A pinned request takes a connection of its own: through the shared agent it could ride a kept-alive socket (no
  // handshake, so the pin would go unchecked) or resume a TLS session (no certificate presented to check).
  const connection = options.pin !== undefined ? { agent: false as const } : {};
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers, ...tls, ...connection, cert: options.cert, key: options.key }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    if (options.pin !== undefined) {
      const pin = options.pin;
      // Checked before the response is read; the request written meanwhile carries nothing the pin protects.
      req.on('socket', (socket) =>
        socket.once('secureConnect', () => {
          const presented = (socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
          if (presented !== pin) req.destroy(new Error(`the server's certificate changed (SHA-256 ${presented}, expected ${pin})`));
        }),
      );
    }
    req.on('error', (error) => reject(refusedError(`cannot reach ${url.origin}: ${error.message}`)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** `HTTP 404 NOT_FOUND: no identity with id 'x'` (with the field the controller names, when it names one). */
export function describeAnswer(answer: HttpAnswer): string {
  const error = answer.body?.error;
  if (!error) return `HTTP ${answer.status}${answer.text ? `: ${answer.text.slice(0, 300)}` : ''}`;
  const cause = error.cause;
  // The field the controller names, unless its message already does.
  const named = cause && typeof cause === 'object' && typeof cause.field === 'string' ? (cause.field as string) : undefined;
  const field = named && !String(error.message).includes(named) ? ` (field ${named})` : '';
  return `HTTP ${answer.status} ${error.code}: ${error.message}${field}`;
}

/**
 * The certificate chain a TLS server presents at `url`, read without verifying it: the caller decides whether to
 * trust it (a person comparing fingerprints, or an enrollment JWT's signature).
 */
export function presentedChain(url: URL): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 443), servername: isIp(url.hostname) ? undefined : url.hostname, rejectUnauthorized: false }, () => {
      const chain = socket.getPeerCertificate(true);
      socket.end();
      resolve(chain);
    });
    socket.on('error', (error) => reject(refusedError(`cannot reach ${url.origin}: ${error.message}`)));
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
