/**
 * Reading OAuth parameters from a query string or a form/JSON body: every value must be a single string within a size
 * limit, so oversized input is a 400 before it reaches the store or a hash. RFC 6749 §3.1 says a parameter MUST NOT be
 * included more than once; a repeat carrying the very same value is read as one (decision 0055: the public C SDK sends
 * `state` twice on its token request, and upstream's provider takes it), while a repeat with another value stays an
 * invalid_request. Names the endpoint does not know are left unread (RFC 6749 §3.1: "MUST ignore unrecognized request
 * parameters").
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
      const single = singleValue(name, value);
      if (single.length > maxLength) throw new OAuthError('invalid_request', `parameter ${name} is longer than ${maxLength} characters`);
      params[name] = single;
    }
  }
  return params;
}

/**
 * The one string a parameter carries: a string as it is; a list (a name repeated in a form or query string) only when
 * every entry is the same string.
 */
function singleValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((entry) => typeof entry === 'string')) {
    if (value.every((entry) => entry === value[0])) return value[0] as string;
    throw new OAuthError('invalid_request', `parameter ${name} is given ${value.length} times with different values; give it once`);
  }
  throw new OAuthError('invalid_request', `parameter ${name} must be a string`);
}

/**
 * The parameters of a request that may carry them in the query and in a form body, as the authorization endpoint
 * (OpenID Connect Core 1.0 §3.1.2.1: GET and POST). A parameter given in both places counts as a repeated one: once
 * when both carry the same value, refused when they differ (RFC 6749 §3.1, decision 0055).
 */
export function queryAndBodyParams(query: unknown, body: unknown, maxLength: number): Params {
  const fromQuery = readParams(query, maxLength);
  const fromBody = body === undefined || body === null || body === '' ? {} : readParams(body, maxLength);
  for (const name of Object.keys(fromBody)) {
    const inQuery = fromQuery[name];
    if (inQuery !== undefined && inQuery !== fromBody[name]) {
      throw new OAuthError('invalid_request', `parameter ${name} is in both the query and the body with different values; give it once`);
    }
  }
  return { ...fromQuery, ...fromBody };
}

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Parses an `application/x-www-form-urlencoded` body; a name repeated with the value it already has counts once, one
 * repeated with another value becomes an array (refused by readParams, a list where a field takes one). A name
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
    else if (seen === value) continue; // the same value again counts once (decision 0055)
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}
