/**
 * Helpers for Edge Management API tests: a client bound to one session that keeps every response text (so a
 * test can check that no answer ever carried a secret), a valid auth policy body to vary, and a non-admin
 * session. Builders return values and never assert.
 */
import type { TestController } from './controller.js';
import { createIdentity } from './fixtures.js';
import type { TestResponse } from './https.js';

export const MANAGEMENT = '/edge/management/v1';

export interface ManagementClient {
  get(path: string): Promise<TestResponse>;
  post(path: string, body?: unknown): Promise<TestResponse>;
  put(path: string, body: unknown): Promise<TestResponse>;
  patch(path: string, body: unknown): Promise<TestResponse>;
  del(path: string): Promise<TestResponse>;
  /** Every response body this client received, in order. */
  readonly seen: string[];
}

/** A client for `/edge/management/v1` sending `token` as `svc-session` (no header when undefined). */
export function managementClient(ctl: TestController, token: string | undefined): ManagementClient {
  const seen: string[] = [];
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await ctl.fetch(`${MANAGEMENT}${path}`, {
      method,
      headers: token === undefined ? {} : { 'svc-session': token },
      ...(body === undefined ? {} : { body: body as object }),
    });
    seen.push(res.text);
    return res;
  };
  return {
    get: (path) => send('GET', path),
    post: (path, body) => send('POST', path, body),
    put: (path, body) => send('PUT', path, body),
    patch: (path, body) => send('PATCH', path, body),
    del: (path) => send('DELETE', path),
    seen,
  };
}

/** A complete, valid auth policy body (every setting present, as create and PUT require). */
export function authPolicyBody(name: string): Record<string, any> {
  return {
    name,
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: {
        allowed: true,
        minPasswordLength: 8,
        requireSpecialChar: false,
        requireNumberChar: true,
        requireMixedCase: false,
        maxAttempts: 5,
        lockoutDurationMinutes: 15,
      },
      extJwt: { allowed: false, allowedSigners: [] },
    },
    secondary: { requireTotp: false, requireExtJwt: null },
    tags: { team: 'ops' },
  };
}

/** A session of a new identity that is not an administrator. */
export async function nonAdminToken(ctl: TestController, name = 'plain-user'): Promise<string> {
  await createIdentity(ctl.running.database, { name, username: name, password: 'plain-password' });
  const res = await ctl.fetch('/edge/client/v1/authenticate?method=password', { method: 'POST', body: { username: name, password: 'plain-password' } });
  return res.json().data.token as string;
}

/**
 * POSTs `body` to `path` and returns the id of what it created; any answer but 201 throws with the answer's text, so
 * a test's failure names what the controller said.
 */
export async function createdId(client: ManagementClient, path: string, body: unknown): Promise<string> {
  const res = await client.post(path, body);
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.json().data.id as string;
}
