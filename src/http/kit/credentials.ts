/**
 * Reads the credentials a request carries: the `svc-session` header and up to three `Authorization: Bearer`
 * values. Node keeps only the first of repeated Authorization headers, so they are read from the raw headers
 * (the reference lets a request carry an access token and a secondary external JWT side by side).
 */
import type { FastifyRequest } from 'fastify';
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
