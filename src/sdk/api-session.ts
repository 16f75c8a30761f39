/**
 * The SDK's API session with the controller: OIDC with the certificate when the controller offers it (its version
 * document lists `OIDC_AUTH`) or `auth: 'oidc'` asks, else the legacy `POST /authenticate?method=cert`. It keeps the
 * session alive in the background: an OIDC access token is refreshed when three quarters of its life have passed (a
 * failed refresh falls back to a new certificate login); a legacy session is touched (`GET /current-api-session`)
 * at half its expiry and re-authenticated when the controller no longer knows it. Every new token is told to the
 * listeners, which pass it to the routers (UpdateToken, or a reconnect for a legacy token).
 */
import type { Logger } from 'pino';
import { SdkError } from './errors.js';
import { answerReason, apiUrl, type ControllerHttp } from './controller-http.js';
import { oidcClient, type OidcClient } from './oidc-login.js';

export type AuthMode = 'auto' | 'oidc' | 'legacy';

export interface ApiSession {
  readonly mode: 'oidc' | 'legacy';
  /** The current API session token: an OIDC access JWT or a legacy session token. */
  readonly token: string;
  /** The headers that carry the token to the client API. */
  authHeaders(): Record<string, string>;
  /** `listener` gets each new token; the answer stops the telling. */
  onToken(listener: (token: string) => void): () => void;
  /** Logs in again now (the controller refused the token). */
  renew(): Promise<void>;
  /** Does now what the background timer does next: an OIDC refresh (or a legacy touch). */
  refresh(): Promise<void>;
  /** Stops the refreshing and ends the session at the controller (a courtesy: failing to end it is ignored). */
  close(): Promise<void>;
}

export interface ApiSessionOptions {
  http: ControllerHttp;
  clientApi: URL;
  auth: AuthMode;
  log?: Logger;
}

/** A retry after a failed refresh waits this long, doubling up to the maximum. */
const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 60_000;

interface Grant {
  token: string;
  refreshToken?: string;
  /** When to refresh (or touch), in ms from now. */
  refreshInMs: number;
}

/** The OIDC issuer base from the version document, else `/oidc` on the client API's origin. */
async function versionFacts(http: ControllerHttp, clientApi: URL): Promise<{ oidc: boolean; oidcBase: URL }> {
  const answer = await http(apiUrl(clientApi, '/version'));
  const data = answer.json?.data;
  const oidc = answer.status === 200 && Array.isArray(data?.capabilities) && data.capabilities.includes('OIDC_AUTH');
  const listed = data?.apiVersions?.['edge-oidc']?.v1?.apiBaseUrls?.[0];
  return { oidc, oidcBase: new URL(typeof listed === 'string' ? listed : '/oidc', clientApi) };
}

async function legacyLogin(http: ControllerHttp, clientApi: URL): Promise<Grant> {
  const url = apiUrl(clientApi, '/authenticate?method=cert');
  const answer = await http(url, { method: 'POST', json: {} });
  const data = answer.json?.data;
  if (answer.status !== 200 || typeof data?.token !== 'string') {
    throw new SdkError(answer.status >= 500 || answer.status === 0 ? 'CONTROLLER_UNREACHABLE' : 'NOT_AUTHENTICATED', `legacy login with the certificate failed: ${answerReason(answer)}`);
  }
  if (Array.isArray(data.authQueries) && data.authQueries.length > 0) {
    throw new SdkError('NOT_AUTHENTICATED', `legacy login with the certificate needs more factors (${data.authQueries.map((q: { typeId?: string }) => q.typeId).join(', ')}), which the SDK cannot answer`);
  }
  const expiresIn = Number(data.expirationSeconds) || 1800;
  return { token: data.token, refreshInMs: Math.max(1_000, (expiresIn * 1000) / 2) };
}

const oidcGrant = (t: { accessToken: string; refreshToken?: string; expiresIn: number }): Grant => ({
  token: t.accessToken,
  ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}),
  refreshInMs: Math.max(1_000, t.expiresIn * 750),
});

/** Logs in (see the module comment) and keeps the session alive until closed. */
export async function openApiSession(options: ApiSessionOptions): Promise<ApiSession> {
  const { http, clientApi, log } = options;
  let mode: 'oidc' | 'legacy' = 'legacy';
  let oidc: OidcClient | undefined;
  if (options.auth !== 'legacy') {
    const facts = await versionFacts(http, clientApi);
    if (facts.oidc || options.auth === 'oidc') {
      mode = 'oidc';
      oidc = oidcClient(http, facts.oidcBase);
    }
  }
  const login = async (): Promise<Grant> => (oidc ? oidcGrant(await oidc.login()) : legacyLogin(http, clientApi));
  let grant = await login();
  const listeners = new Set<(token: string) => void>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let retryMs = RETRY_FIRST_MS;

  const authHeaders = (): Record<string, string> => (mode === 'oidc' ? { authorization: `Bearer ${grant.token}` } : { 'svc-session': grant.token });
  const adopt = (next: Grant) => {
    const changed = next.token !== grant.token;
    grant = next;
    retryMs = RETRY_FIRST_MS;
    if (changed) for (const listener of [...listeners]) listener(grant.token);
  };

  /** One refresh: OIDC refresh token, else a new login; a legacy session is touched, and logged in again if gone. */
  async function refresh(): Promise<void> {
    if (oidc) {
      if (grant.refreshToken) {
        try {
          adopt(oidcGrant(await oidc.refresh(grant.refreshToken)));
          return;
        } catch (error) {
          log?.warn({ err: (error as Error).message }, 'svc sdk: refreshing the OIDC token failed; logging in again');
        }
      }
      adopt(await login());
      return;
    }
    const touched = await http(apiUrl(clientApi, '/current-api-session'), { headers: authHeaders() });
    if (touched.status === 200) {
      const seconds = Number(touched.json?.data?.expirationSeconds) || 1800;
      grant = { ...grant, refreshInMs: Math.max(1_000, (seconds * 1000) / 2) };
      return;
    }
    adopt(await login());
  }

  function schedule(inMs: number): void {
    if (closed) return;
    timer = setTimeout(() => {
      refresh().then(
        () => schedule(grant.refreshInMs),
        (error: Error) => {
          log?.warn({ err: error.message, retryInMs: retryMs }, 'svc sdk: keeping the API session alive failed; retrying');
          const wait = retryMs;
          retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
          schedule(wait);
        },
      );
    }, inMs);
    timer.unref();
  }
  schedule(grant.refreshInMs);

  return {
    get mode() {
      return mode;
    },
    get token() {
      return grant.token;
    },
    authHeaders,
    onToken(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async renew() {
      adopt(await login());
    },
    refresh,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      listeners.clear();
      await http(apiUrl(clientApi, '/current-api-session'), { method: 'DELETE', headers: authHeaders(), timeoutMs: 5_000 }).catch(() => undefined);
    },
  };
}
