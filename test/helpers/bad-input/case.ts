/**
 * One case of the bad-input corpus (a request that must be refused, and what is certain about its refusal) and
 * what every case generator is given. Builders return values and never assert.
 */
import type { Operation } from './operations.js';
import type { Rng } from './values.js';

/** Which session a case is sent with: the default admin's, a non-admin's, or none. */
export type TokenName = 'admin' | 'user' | 'none';

export interface BadCase {
  /** The case class: `deep-nesting`, `duplicate-keys`, `bad-path-id`, ... */
  kind: string;
  /** What exactly is wrong, short, for failure messages. */
  what: string;
  method: string;
  /** The request-target as sent (percent-encoded path and query). */
  target: string;
  headers: Array<[string, string]>;
  body?: string | Buffer;
  /** False when the headers frame (or misframe) the body themselves. */
  frameBody?: boolean;
  omitHost?: boolean;
  token: TokenName;
  /** Refused by the HTTP layer before any route is known: answered in the envelope whatever the path. */
  unrouted: boolean;
  /** The status it must get, where that is certain; otherwise any 4xx. */
  status?: number;
  /** The envelope code it must get (the OAuth answers say `invalid_request`), where that is certain. */
  code?: string;
}

export interface CaseLimits {
  maxJsonDepth: number;
  bodyBytes: number;
  headBytes: number;
  socketHeadBytes: number;
  maxParamLength: number;
}

export interface CaseContext {
  rng: Rng;
  op: Operation;
  /** Real values for the path parameters, for the cases that are not about them. */
  ids: Record<string, string>;
  /** The session the operation is called with. */
  token: TokenName;
  limits: CaseLimits;
}

/** Percent-encodes everything but RFC 3986 unreserved characters, byte by byte of the UTF-8 (never throws). */
export function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The operation's path with `values` (already encoded) for its parameters, under its prefix. */
export function pathWith(context: CaseContext, values: Record<string, string> = {}): string {
  const path = context.op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? pct(context.ids[name] ?? 'no-id'));
  return `${context.op.prefix}${path}`;
}

/** A case on the operation's own path with its own method and session; `overrides` say what is bad. */
export function baseCase(context: CaseContext, kind: string, what: string, overrides: Partial<BadCase> = {}): BadCase {
  return {
    kind,
    what,
    method: context.op.method,
    target: pathWith(context),
    headers: [],
    token: context.op.authenticated ? context.token : 'none',
    unrouted: false,
    ...overrides,
  };
}

/** The code a refusal of the request's form has in the operation's error shape. */
export function formCode(context: CaseContext, code: string): string {
  return context.op.api === 'oidc' ? 'invalid_request' : code;
}

/** Methods whose body the server reads. */
export function takesBody(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}
