/**
 * The console's only way to the controller: the public Management API (/edge/management/v1), with the signed-in
 * user's access token. The console, the CLI and the API therefore cannot drift. A 401 is answered by one refresh
 * and one retry; if that fails too the session is over and the shell asks the user to sign in again.
 */
import { currentTokens, refresh } from './session';

export const MANAGEMENT = '/edge/management/v1';

/** An error the API answered, with what the envelope says: code, message, and the field when it names one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export interface Envelope<T> {
  data: T;
  meta?: { pagination?: { limit: number; offset: number; totalCount: number }; [key: string]: unknown };
}

type ExpiredListener = () => void;
const expiredListeners = new Set<ExpiredListener>();
export const onSessionExpired = (listener: ExpiredListener) => {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
};

/** A request body sent as it is, not as JSON (a CA's verification certificate is a PEM text body). */
export class TextBody {
  constructor(
    readonly text: string,
    readonly type = 'text/plain',
  ) {}
}

async function send(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  const token = currentTokens()?.accessToken ?? '';
  const raw = body instanceof TextBody;
  return fetch(path.startsWith('/') && !path.startsWith(MANAGEMENT) ? `${MANAGEMENT}${path}` : path, {
    method,
    headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': raw ? body.type : 'application/json' }) },
    ...(body === undefined ? {} : { body: raw ? body.text : JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
}

async function errorOf(response: Response): Promise<ApiError> {
  const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string; cause?: { field?: string; reason?: string } & Record<string, unknown> } };
  const error = answer.error ?? {};
  const cause = error.cause;
  // The catalogue's message may say only "see cause": then the cause's reason is the sentence to show.
  const message = error.message && !/see cause$/.test(error.message) ? error.message : (cause?.reason ?? error.message ?? response.statusText);
  // Fields arrive as the API names them (`body.name`, `data.port`, `name`): the form's names are the body's.
  const field = cause?.field?.replace(/^body\./, '');
  return new ApiError(response.status, error.code ?? `HTTP_${response.status}`, message, field, cause);
}

/** A request whose 401 gets one refresh and one retry. */
export async function authorizedFetch(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  let response = await send(method, path, body, signal);
  if (response.status === 401) {
    const renewed = await refresh();
    if (renewed) response = await send(method, path, body, signal);
    if (response.status === 401) for (const listener of expiredListeners) listener();
  }
  return response;
}

export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Envelope<T>> {
  const response = await authorizedFetch(method, path, body, signal);
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return { data: undefined as T };
  return (await response.json()) as Envelope<T>;
}

export const get = <T>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);

/** Query string from defined values (arrays repeat the parameter, as roleFilter wants). */
export function query(params: Record<string, string | number | string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const item of value) search.append(key, item);
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A filter-language string literal (the API's filter grammar: double quotes, backslash escapes). */
export const quoted = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
