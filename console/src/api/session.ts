/**
 * The console's sign-in (decision 0080): the controller's own OIDC provider, authorization code with PKCE, client id
 * `svc`, redirect to /console/callback on this origin. Tokens live in sessionStorage (this tab only, gone with it);
 * the access token is refreshed in the background a minute before it ends. When a refresh fails the user is sent to
 * sign in again and comes back to the page they were on; forms keep their drafts in sessionStorage (drafts.ts), so
 * nothing typed is lost.
 */
import { challengeOf, randomToken } from './pkce';

const CLIENT_ID = 'svc';
const TOKENS = 'svc.console.tokens';
const PENDING = 'svc.console.pending';
const REFRESH_AHEAD_MS = 60_000;

export interface Tokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Who signed in, from the access token's claims (display only). */
  name: string;
}

type Listener = (tokens: Tokens | undefined) => void;
const listeners = new Set<Listener>();
let timer: ReturnType<typeof setTimeout> | undefined;

export const callbackUri = () => `${location.origin}/console/callback`;

export function currentTokens(): Tokens | undefined {
  const text = sessionStorage.getItem(TOKENS);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as Tokens;
  } catch {
    return undefined;
  }
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function store(tokens: Tokens | undefined): void {
  if (tokens) sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
  else sessionStorage.removeItem(TOKENS);
  scheduleRefresh(tokens);
  for (const listener of listeners) listener(tokens);
}

/** The name to show for a token: its `name` or `sub` claim (the controller signs it; the console only displays it). */
function nameOf(accessToken: string): string {
  try {
    const payload = JSON.parse(atob(accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    return String(payload.name ?? payload.preferred_username ?? payload.sub ?? '');
  } catch {
    return '';
  }
}

interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
}

async function tokenRequest(fields: Record<string, string>): Promise<Tokens> {
  const response = await fetch('/oidc/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ client_id: CLIENT_ID, ...fields }),
  });
  const answer = (await response.json().catch(() => ({}))) as TokenAnswer;
  if (!response.ok || !answer.access_token) throw new Error(answer.error_description ?? answer.error ?? `the token endpoint answered ${response.status}`);
  return {
    accessToken: answer.access_token,
    ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
    expiresAt: Date.now() + (answer.expires_in ?? 300) * 1000,
    name: nameOf(answer.access_token),
  };
}

/** Sends the browser to the controller's login page; `returnTo` is where it comes back to afterwards. */
export async function startSignIn(returnTo: string): Promise<void> {
  const verifier = randomToken();
  const state = randomToken(16);
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: callbackUri(),
    scope: 'openid offline_access',
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    state,
  });
  location.assign(`/oidc/authorization?${query}`);
}

/** Completes a sign-in at /console/callback; resolves with the path to return to. */
export async function finishSignIn(url: URL): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(PENDING);
  const error = url.searchParams.get('error');
  if (error) throw new Error(url.searchParams.get('error_description') ?? error);
  const code = url.searchParams.get('code');
  if (!pending || !code || url.searchParams.get('state') !== pending.state) throw new Error('state');
  store(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callbackUri(), code_verifier: pending.verifier }));
  return pending.returnTo.startsWith('/console/') ? pending.returnTo : '/console/';
}

let refreshing: Promise<Tokens | undefined> | undefined;

/** Exchanges the refresh token for a new pair; on failure the session ends (undefined). One refresh at a time. */
export function refresh(): Promise<Tokens | undefined> {
  refreshing ??= (async () => {
    const tokens = currentTokens();
    try {
      if (!tokens?.refreshToken) throw new Error('no refresh token');
      const next = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken });
      store(next);
      return next;
    } catch {
      store(undefined);
      return undefined;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

function scheduleRefresh(tokens: Tokens | undefined): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (!tokens?.refreshToken) return;
  const wait = Math.max(1_000, tokens.expiresAt - Date.now() - REFRESH_AHEAD_MS);
  timer = setTimeout(() => void refresh(), wait);
}

/** Starts the background refresh for tokens kept from before a reload. */
export function resumeSession(): void {
  scheduleRefresh(currentTokens());
}

/** Revokes the refresh token at the controller and forgets both tokens. */
export async function signOut(): Promise<void> {
  const tokens = currentTokens();
  store(undefined);
  if (tokens?.refreshToken) {
    await fetch('/oidc/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: CLIENT_ID, token: tokens.refreshToken, token_type_hint: 'refresh_token' }),
    }).catch(() => undefined);
  }
}
