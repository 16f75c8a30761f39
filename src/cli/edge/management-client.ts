/**
 * The Management API as the logged-in user: every call carries the stored session and trusts only the stored CAs.
 * A 401 means the controller no longer takes the session (it expired after a while without use, was revoked, or
 * still owes authentication queries): the user sees the controller's own reason and is told to log in again rather
 * than asked for a password on every command. A 403 for an identity that is not an administrator says so in one
 * sentence with the commands it can run, rather than the bare status.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { requireLogin, saveLoginTokens, type EdgeLogin } from './config-store.js';
import { dueForRefresh, refreshOidcTokens } from './oidc-session.js';
import { refusedError } from '../cli-error.js';
import { describeAnswer, send, type HttpAnswer } from './http.js';

export const MANAGEMENT_PREFIX = '/edge/management/v1';

export interface ManagementClient {
  login: EdgeLogin;
  /** Calls `path` (under the Management API) and returns the answer of a 2xx; anything else is exit code 1. */
  call(method: string, path: string, options?: { query?: Record<string, string | undefined>; body?: unknown; contentType?: string; headers?: Record<string, string> }): Promise<HttpAnswer>;
}

/** An absolute URL of the Management API at `controller`. */
export function managementUrl(controller: string, path: string, query: Record<string, string | undefined> = {}): URL {
  const url = new URL(`${MANAGEMENT_PREFIX}${path}`, controller);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  return url;
}

/** The header that carries the login: the OIDC access token, or a legacy session saved by an older version. */
export function credentialHeaders(login: EdgeLogin): Record<string, string> {
  if (login.oidc) return { authorization: `Bearer ${login.oidc.accessToken}` };
  return login.token ? { 'svc-session': login.token } : {};
}

/**
 * The login with a fresh access token: one that ends within a minute is refreshed first and the new pair saved (the
 * refresh token is spent by the refresh). A refresh token the controller no longer takes means logging in again.
 */
async function freshLogin(login: EdgeLogin): Promise<EdgeLogin> {
  if (!login.oidc || !dueForRefresh(login.oidc.expiresAt)) return login;
  const again = `log in again with 'svc edge login ${login.controller}'`;
  if (!login.oidc.refreshToken) throw refusedError(`the login of ${login.username} at ${login.controller} has expired and cannot be refreshed; ${again}`);
  const tokens = await refreshOidcTokens(login.controller, login.ca, login.oidc.refreshToken);
  if (!tokens) throw refusedError(`the controller no longer takes the login of ${login.username} at ${login.controller} (its refresh token expired or was revoked); ${again}`);
  const refreshed = { ...login, oidc: { ...tokens, refreshToken: tokens.refreshToken ?? login.oidc.refreshToken } };
  saveLoginTokens(refreshed);
  return refreshed;
}

export function managementClient(initial: EdgeLogin = requireLogin()): ManagementClient {
  return apiClient(MANAGEMENT_PREFIX, initial);
}

/** The Client API as the logged-in identity (its own services, sessions and MFA), with the same login and refresh. */
export function clientApiClient(initial: EdgeLogin = requireLogin()): ManagementClient {
  return apiClient(CLIENT_PREFIX, initial);
}

export const CLIENT_PREFIX = '/edge/client/v1';

function apiClient(prefix: string, initial: EdgeLogin): ManagementClient {
  let login = initial;
  return {
    get login() {
      return login;
    },
    async call(method, path, options = {}) {
      login = await freshLogin(login);
      const url = new URL(`${prefix}${path}`, login.controller);
      for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
      const answer = await send(url, {
        method,
        ca: login.ca,
        // A text body (a PEM certificate) says what it is; a JSON one is labelled by send().
        headers: { ...options.headers, ...credentialHeaders(login), ...(options.contentType ? { 'content-type': options.contentType } : {}) },
        body: options.body,
      });
      if (answer.status === 401) {
        // The controller's reason is kept: "expired" would mislead when the session is refused for another cause.
        throw refusedError(
          `the controller refused the session of ${login.username} at ${login.controller} (${describeAnswer(answer)}): it expired, was revoked or is incomplete; log in again with 'svc edge login ${login.controller}'`,
        );
      }
      if (answer.status === 403 && prefix === MANAGEMENT_PREFIX) await explainNonAdmin(login, method, path);
      if (answer.status < 200 || answer.status >= 300) throw refusedError(`the controller refused ${method} ${path}: ${describeAnswer(answer)}`);
      return answer;
    },
  };
}

/**
 * Opens a Management API stream (`GET /events/status`, text/event-stream) as the logged-in user and resolves with
 * the open response once the controller answers 200; any other answer is refused as `call` refuses it.
 */
export async function openManagementStream(path: string, initial: EdgeLogin = requireLogin()): Promise<IncomingMessage> {
  const login = await freshLogin(initial);
  const url = new URL(`${MANAGEMENT_PREFIX}${path}`, login.controller);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'GET', ca: login.ca, headers: { accept: 'text/event-stream', ...credentialHeaders(login) } }, resolve);
    req.on('error', (error) => reject(refusedError(`cannot reach ${url.origin}: ${error.message}`)));
    req.end();
  });
  if (response.statusCode === 200) return response;
  // A refusal is a small JSON document: read it whole and refuse as call() does.
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const answer = { status: response.statusCode ?? 0, headers: response.headers, text, body };
  if (answer.status === 403) await explainNonAdmin(login, 'GET', path);
  throw refusedError(`the controller refused GET ${path}: ${describeAnswer(answer)}`);
}

/** Throws the one-sentence refusal when the logged-in identity is not an administrator; returns otherwise. */
async function explainNonAdmin(login: EdgeLogin, method: string, path: string): Promise<void> {
  const me = await send(managementUrl(login.controller, '/current-identity'), { ca: login.ca, headers: credentialHeaders(login) }).catch(() => undefined);
  const identity = me?.status === 200 ? me.body?.data : undefined;
  if (identity?.isAdmin !== false) return;
  const name = String(identity.name ?? login.username);
  throw refusedError(
    `${method} ${path} needs an administrator and ${name} is not one; as ${name} you can run svc edge me (your services, sessions and MFA), svc edge whoami and svc edge logout, or log in as an administrator with 'svc edge login ${login.controller} -u USER'`,
  );
}
