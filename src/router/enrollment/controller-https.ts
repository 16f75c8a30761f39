/**
 * HTTPS to the controller's edge client API, as the router's enrollment and renewal need it: one unverified first
 * contact that only reads the certificate the server presents (the enrollment JWT says whether to trust it), then
 * requests verified against the pinned CA bundle, with the router's client certificate when renewing. Every
 * failure is a RouterSetupError naming the address and what went wrong; answers of any status are returned.
 */
import { request } from 'node:https';
import { connect } from 'node:tls';
import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { readJsonAnswer } from '../../shared/json-answer.js';
import { RouterSetupError } from '../errors.js';

export interface Answer {
  status: number;
  text: string;
  /** The JSON body, or undefined when it is not JSON. */
  json: any;
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  /** PEM CAs the server must chain to (and its name be in its certificate), or `{ pin }` on first contact. */
  trust: { ca: string } | { pin: string };
  /** The router's client certificate chain and key (PEM), for mutual TLS. */
  client?: { cert: string; key: string };
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** OpenSSL's and Node's codes for a server certificate that does not verify against the given CAs or name. */
const VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** SNI carries host names only (RFC 6066 section 3). */
const serverName = (host: string) => (isIP(host.replace(/^\[|\]$/g, '')) === 0 ? { servername: host } : {});

function unreachable(origin: string, error: unknown): RouterSetupError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && VERIFY_CODES.has(code)) {
    return new RouterSetupError(`${origin}: the controller's certificate does not verify against the pinned CA bundle (${code}); the address may not be the controller's`);
  }
  return new RouterSetupError(`cannot reach the controller at ${origin} (${(error as Error).message})`);
}

/** The leaf certificate `origin` presents in a TLS handshake, unverified: the caller decides what trusts it. */
export function presentedCertificate(origin: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<X509Certificate> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 443), rejectUnauthorized: false, ...serverName(url.hostname) });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    socket.once('secureConnect', () => {
      const leaf = socket.getPeerX509Certificate();
      socket.destroy();
      if (leaf === undefined) reject(new RouterSetupError(`${origin} presented no certificate`));
      else resolve(leaf);
    });
    socket.once('error', (error) => reject(unreachable(origin, error)));
  });
}

/** One request; resolves with the answer of any status, rejects with RouterSetupError when no answer came. */
export function controllerRequest(url: URL, options: RequestOptions): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const pin = 'pin' in options.trust ? options.trust.pin : undefined;
  const tls = 'ca' in options.trust ? { ca: options.trust.ca } : { rejectUnauthorized: false };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    // A connection of its own: a pooled socket or a resumed session would skip the handshake the trust is checked in.
    const req = request(url, { method: options.method ?? 'GET', headers, agent: false, ...tls, ...serverName(url.hostname), ...(options.client ?? {}) }, (res) => {
      void readJsonAnswer(res).then(({ text, json }) => resolve({ status: res.statusCode ?? 0, text, json }));
      res.on('error', (error) => reject(unreachable(url.origin, error)));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    if (pin !== undefined) {
      // Checked as the handshake completes, before the request body (which may carry a token) is read by anyone.
      req.on('socket', (socket) =>
        socket.once('secureConnect', () => {
          const presented = (socket as import('node:tls').TLSSocket).getPeerX509Certificate()?.fingerprint256;
          if (presented !== pin) req.destroy(new Error(`the server's certificate changed since the first contact (SHA-256 ${presented ?? 'none'}, expected ${pin})`));
        }),
      );
    }
    req.on('error', (error) => reject(unreachable(url.origin, error)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** `400 INVALID_ENROLLMENT_TOKEN: the message` from an API error answer, for one-sentence refusals. */
export function describeAnswer(answer: Answer): string {
  const error = answer.json?.error;
  if (error && typeof error === 'object') {
    const reason = error.cause?.reason ? ` (${error.cause.field ? `${error.cause.field}: ` : ''}${error.cause.reason})` : '';
    return `${answer.status} ${error.code ?? ''}: ${error.message ?? ''}${reason}`.replace(/ : /, ': ');
  }
  return `${answer.status} ${answer.text.slice(0, 200)}`;
}
