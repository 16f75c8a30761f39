/**
 * Reads the credentials a request carries: the `svc-session` header and up to three `Authorization: Bearer`
 * values. Node keeps only the first of repeated Authorization headers, so they are read from the raw headers
 * (the reference lets a request carry an access token and a secondary external JWT side by side).
 */
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import type { PresentedClientCertificate } from '../../services/authentication/authentication.js';
import type { PresentedCredentials } from '../../services/authentication/request-auth.js';
import { hashToken } from '../../crypto/secrets.js';
import { presentedClientChain } from './client-chain.js';

const MAX_BEARER_TOKENS = 3;

/**
 * The session token (the first `svc-session` header, trimmed) and the first MAX_BEARER_TOKENS bearer tokens of every
 * `Authorization` header, in order.
 */
export function presentedCredentials(request: Pick<FastifyRequest, 'raw'>): PresentedCredentials {
  const raw = request.raw.rawHeaders;
  const bearerTokens: string[] = [];
  let sessionToken: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'svc-session' && sessionToken === undefined) sessionToken = value.trim();
    if (name === 'authorization' && bearerTokens.length < MAX_BEARER_TOKENS) {
      for (const token of bearerTokensOnConnection(request.raw.socket, value)) if (bearerTokens.length < MAX_BEARER_TOKENS) bearerTokens.push(token);
    }
  }
  if (sessionToken !== undefined && sessionToken !== '') {
    return { sessionToken, bearerTokens, knownSessionTokenHash: tokenHashOnConnection(request.raw.socket, sessionToken) };
  }
  // A certificate names a session only for a request without a token (decision 0038): the others are spared reading it.
  const clientCertificate = bearerTokens.length === 0 ? presentedClientCertificate(request) : undefined;
  return { sessionToken, bearerTokens, ...(clientCertificate ? { clientCertificate } : {}) };
}

/**
 * `derive(value)` for a value sent on a connection, kept with the value the connection sent last: an SDK sends the same
 * credential on every request of a connection. A value is only ever compared with one sent earlier on the same
 * connection, so the comparison tells a client nothing it did not send itself.
 */
function lastOnConnection<T>(derive: (value: string) => T): (socket: Socket | null, value: string) => T {
  const last = new WeakMap<Socket, { value: string; derived: T }>();
  return (socket, value) => {
    if (socket === null) return derive(value);
    const kept = last.get(socket);
    if (kept !== undefined && kept.value === value) return kept.derived;
    const derived = derive(value);
    last.set(socket, { value, derived });
    return derived;
  };
}

// The session token's SHA-256: hashing it was a tenth of a polling request's work.
const tokenHashOnConnection = lastOnConnection(hashToken);

// The Bearer tokens of an Authorization value: besides sparing the scan of an access token (some 800 characters) on
// every request, the same token strings come back each time, and V8 keeps a string's hash on the string, so the
// verified-token cache finds them without hashing them again.
const bearerTokensOnConnection = lastOnConnection(bearerTokensOf);

/**
 * One `Bearer <token>` item of a comma-separated Authorization value: it starts the value or follows a comma, and ends
 * at the next comma or the end; the scheme is in any case, with white space around and between. The token is taken as
 * in an atomic group (a lookahead captures it, the backreference consumes it), so that an item with more after its
 * token fails at once rather than giving the token back a character at a time. Each character is then looked at a
 * bounded number of times, whatever the value holds; splitting on commas and matching each item instead made a 16 KiB
 * value of commas cost thirty times a 16 KiB token.
 */
const BEARER_ITEM = /(?:^|,)\s*bearer\s+(?=([^\s,]+))\1\s*(?=,|$)/gi;

/** The tokens of the first MAX_BEARER_TOKENS `Bearer <token>` items of `value`, in order (frozen: they are kept). */
function bearerTokensOf(value: string): readonly string[] {
  const tokens: string[] = [];
  for (const match of value.matchAll(BEARER_ITEM)) {
    if (tokens.length >= MAX_BEARER_TOKENS) break;
    tokens.push(match[1] as string);
  }
  return Object.freeze(tokens);
}

/**
 * What the TLS handshake established about the client certificate: the leaf's fingerprint and whether the
 * presented chain (leaf first, intermediates after) verified against the controller's CAs. Listeners request a
 * certificate without requiring one, so OpenSSL's verdict is read here rather than enforced at the handshake.
 */
export function presentedClientCertificate(request: Pick<FastifyRequest, 'raw'>): PresentedClientCertificate | undefined {
  const socket = request.raw.socket as TLSSocket;
  if (typeof socket.getPeerX509Certificate !== 'function') return undefined;
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return undefined;
  const error = socket.authorizationError as unknown;
  const verificationError = error === null || error === undefined ? undefined : typeof error === 'string' ? error : String((error as { code?: string }).code ?? error);
  // The chain as sent (leaf first, then intermediates): what third-party CAs are checked against (decision 0037).
  return { fingerprint: createHash('sha1').update(leaf.raw).digest('hex'), verified: socket.authorized, verificationError, chain: presentedClientChain(request) };
}
