/**
 * Reads the credentials a request carries: the `svc-session` header and up to three `Authorization: Bearer`
 * values. Node keeps only the first of repeated Authorization headers, so they are read from the raw headers
 * (the reference lets a request carry an access token and a secondary external JWT side by side).
 */
import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import type { PresentedClientCertificate } from '../../services/authentication.js';
import type { PresentedCredentials } from '../../services/request-auth.js';

const MAX_BEARER_TOKENS = 3;

export function presentedCredentials(request: FastifyRequest): PresentedCredentials {
  const raw = request.raw.rawHeaders;
  const bearerTokens: string[] = [];
  let sessionToken: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'svc-session' && sessionToken === undefined) sessionToken = value.trim();
    if (name === 'authorization') {
      for (const part of value.split(',')) {
        const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(part);
        if (match && bearerTokens.length < MAX_BEARER_TOKENS) bearerTokens.push(match[1] as string);
      }
    }
  }
  return { sessionToken, bearerTokens };
}

/**
 * What the TLS handshake established about the client certificate: the leaf's fingerprint and whether the
 * presented chain (leaf first, intermediates after) verified against the controller's CAs. Listeners request a
 * certificate without requiring one, so OpenSSL's verdict is read here rather than enforced at the handshake.
 */
export function presentedClientCertificate(request: FastifyRequest): PresentedClientCertificate | undefined {
  const socket = request.raw.socket as TLSSocket;
  if (typeof socket.getPeerX509Certificate !== 'function') return undefined;
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return undefined;
  const error = socket.authorizationError as unknown;
  const verificationError = error === null || error === undefined ? undefined : typeof error === 'string' ? error : String((error as { code?: string }).code ?? error);
  return { fingerprint: createHash('sha1').update(leaf.raw).digest('hex'), verified: socket.authorized, verificationError };
}
