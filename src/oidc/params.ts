/**
 * Reading OAuth parameters from a query string or a form/JSON body: every value must be a single string
 * (RFC 6749 §3.1: parameters MUST NOT be included more than once) and within a size limit, so oversized input is a
 * 400 before it reaches the store or a hash.
 */
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../services/oidc-provider/oidc-provider.js';

/** Authorization request parameters (state, nonce, redirect_uri...). */
export const MAX_AUTHORIZE_PARAM = 2048;
/** Token endpoint and hint parameters (codes, refresh tokens, JWT hints). */
export const MAX_TOKEN_PARAM = 8192;

/** The string parameters of `source` (query object or parsed body); OAuthError invalid_request otherwise. */
export function readParams(source: unknown, maxLength: number, ...more: unknown[]): Params {
  const params: Params = {};
  for (const part of [...more.reverse(), source]) {
    if (part === undefined || part === null) continue;
    if (typeof part !== 'object' || Array.isArray(part)) throw new OAuthError('invalid_request', 'the parameters must be an object of strings');
    for (const [name, value] of Object.entries(part as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (typeof value !== 'string') throw new OAuthError('invalid_request', `parameter ${name} must be given once, as a string`);
      if (value.length > maxLength) throw new OAuthError('invalid_request', `parameter ${name} is longer than ${maxLength} characters`);
      params[name] = value;
    }
  }
  return params;
}

/**
 * The parameters of a request that may carry them in the query and in a form body, as the authorization endpoint
 * (OpenID Connect Core 1.0 §3.1.2.1: GET and POST). A parameter given in both places is refused as a repeated one
 * is (RFC 6749 §3.1).
 */
export function queryAndBodyParams(query: unknown, body: unknown, maxLength: number): Params {
  const fromQuery = readParams(query, maxLength);
  const fromBody = body === undefined || body === null || body === '' ? {} : readParams(body, maxLength);
  for (const name of Object.keys(fromBody)) {
    if (fromQuery[name] !== undefined) throw new OAuthError('invalid_request', `parameter ${name} must be given once; it is in both the query and the body`);
  }
  return { ...fromQuery, ...fromBody };
}

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Parses an `application/x-www-form-urlencoded` body; a repeated name becomes an array (refused by readParams). A name
 * in `refused` is an OAuthError invalid_request, found in the same pass, before it is used as a key (a plain object
 * would take `__proto__` as its prototype).
 */
export function parseForm(body: string, refused: ReadonlySet<string> = NO_NAMES): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (refused.has(name)) throw new OAuthError('invalid_request', `the parameter name ${name} is not accepted`);
    // Own names only: `constructor` is not yet in the form just because every object inherits one.
    const seen = Object.hasOwn(out, name) ? out[name] : undefined;
    // Appended in place: copying the array for each repeat made a 1 MiB body of one repeated name quadratic.
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}
