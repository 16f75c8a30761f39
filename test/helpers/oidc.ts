/**
 * Helpers for OIDC tests: a fetch that trusts the test CA (node's global fetch takes no CA; this one goes through
 * node:https), and the browser part of the authorization code flow. Builders return values; they never assert.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import * as client from 'openid-client';
import type { TestController } from './controller.js';

/** A Fetch-API-shaped function over node:https trusting `ca`; it never follows redirects. */
export function caFetch(ca: string) {
  return async (url: string | URL, init: { method?: string; headers?: Record<string, string> | Headers; body?: unknown } = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    if (init.headers instanceof Headers) init.headers.forEach((v, k) => (headers[k] = v));
    else Object.assign(headers, init.headers ?? {});
    const body = init.body === undefined || init.body === null ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : String(init.body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(String(url), { method: init.method ?? 'GET', headers, ca, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) out.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
          const status = res.statusCode ?? 500;
          const text = Buffer.concat(chunks);
          resolve(new Response([204, 304].includes(status) ? null : text, { status, headers: out }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}

export const REDIRECT_URI = 'http://127.0.0.1:53123/auth/callback';

/** openid-client configured by discovery against the controller, trusting its CA. */
export async function discoverClient(ctl: TestController): Promise<client.Configuration> {
  const fetchImpl = caFetch(ctl.ca) as unknown as client.CustomFetch;
  const config = await client.discovery(new URL(`${ctl.baseUrl}/oidc`), 'svc', undefined, client.None(), { [client.customFetch]: fetchImpl });
  config[client.customFetch] = fetchImpl;
  return config;
}

export interface StartedLogin {
  verifier: string;
  state: string;
  nonce: string;
  authRequestId: string;
  /** Where the authorization endpoint sent the browser (the login URL). */
  location: URL;
}

/** Builds the authorization URL with PKCE, follows it, and returns the auth request id from the login redirect. */
export async function startLogin(
  ctl: TestController,
  config: client.Configuration,
  extra: Record<string, string> = {},
  tls: { certPem: string; keyPem: string } | undefined = undefined,
): Promise<StartedLogin> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  // Presenting a client certificate on the authorization request makes `cert` the default login method.
  const res = await ctl.fetch(url.toString(), tls ? { cert: tls.certPem, key: tls.keyPem } : {});
  const location = new URL(String(res.headers.location ?? ''), ctl.baseUrl);
  const authRequestId = location.searchParams.get('authRequestID') ?? '';
  return { verifier, state, nonce, authRequestId, location };
}

/** Posts username and password for an auth request; returns the response (302 with the callback on success). */
export function postLogin(ctl: TestController, authRequestId: string, username: string, password: string) {
  return ctl.fetch('/oidc/login/password', { method: 'POST', body: { authRequestId, username, password } });
}

/**
 * Follows a completed login's redirect to the controller-hosted callback (`/oidc/authorize/callback?id=`), as a
 * browser or SDK does, and returns where the callback sends the user agent: the client's redirect URI with the code.
 * A location that is not the callback (an error, or no redirect) is returned as it is.
 */
export async function followCallback(ctl: Pick<TestController, 'fetch'>, location: string | string[] | undefined): Promise<string | undefined> {
  if (typeof location !== 'string' || !new URL(location, 'https://x').pathname.endsWith('/oidc/authorize/callback')) return location as string | undefined;
  const res = await ctl.fetch(location);
  return res.headers.location === undefined ? undefined : String(res.headers.location);
}

/** The full browser part: authorization request, login, the controller's callback, and the URL carrying the code. */
export async function loginToCallback(ctl: TestController, config: client.Configuration, username: string, password: string) {
  const started = await startLogin(ctl, config);
  const res = await postLogin(ctl, started.authRequestId, username, password);
  return { ...started, callback: new URL(String(await followCallback(ctl, res.headers.location))), status: res.status };
}

/** A form-encoded POST (token, revoke endpoints). */
export function postForm(ctl: TestController, path: string, fields: Record<string, string>) {
  return ctl.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
}

/**
 * A complete PKCE password login through the controller (authorization request, login, the controller's callback,
 * code exchange) without the openid-client discovery, for tests that need a Bearer session of an existing identity.
 * A step that does not answer as a successful login does throws, naming the step and its answer.
 */
export async function passwordLoginTokens(ctl: TestController, username: string, password: string): Promise<{ accessToken: string; refreshToken: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({ client_id: 'svc', response_type: 'code', scope: 'openid offline_access', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', state: 's' });
  const authorize = await ctl.fetch(`/oidc/authorization?${query}`);
  if (authorize.status !== 302) throw new Error(`authorization: ${authorize.status} ${authorize.text}`);
  const authRequestId = new URL(String(authorize.headers.location), ctl.baseUrl).searchParams.get('authRequestID') ?? '';
  const login = await postLogin(ctl, authRequestId, username, password);
  if (login.status !== 302) throw new Error(`login: ${login.status} ${login.text}`);
  const code = new URL(String(await followCallback(ctl, login.headers.location))).searchParams.get('code') ?? '';
  const tokens = await postForm(ctl, '/oidc/token', { grant_type: 'authorization_code', client_id: 'svc', redirect_uri: REDIRECT_URI, code, code_verifier: verifier });
  if (tokens.status !== 200) throw new Error(`code exchange: ${tokens.status} ${tokens.text}`);
  return { accessToken: tokens.json().access_token as string, refreshToken: tokens.json().refresh_token as string };
}
