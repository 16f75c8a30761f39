/**
 * HTTPS to the controller with the identity's certificate presented and only the identity's CAs trusted: every
 * request the SDK makes (OIDC login, legacy authenticate, the client API) goes through here. Redirects are not
 * followed (the OIDC login reads them), and a connection failure becomes one SdkError sentence naming the URL.
 */
import { request as httpsRequest } from 'node:https';
import { readJsonAnswer } from '../shared/json-answer.js';
import { SdkError } from './errors.js';
import type { LoadedIdentity } from './identity-file.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A form-encoded body. */
  form?: Record<string, string>;
  timeoutMs?: number;
}

export type ControllerHttp = (url: URL, request?: HttpRequest) => Promise<HttpAnswer>;

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 16 * 1_048_576;

/** A requester presenting `identity`'s certificate and trusting its CAs (the system's when the file names none). */
export function controllerHttp(identity: Pick<LoadedIdentity, 'certPem' | 'keyPem' | 'caPem'>): ControllerHttp {
  return (url, req = {}) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
      let body: string | undefined;
      if (req.json !== undefined) {
        body = JSON.stringify(req.json);
        headers['content-type'] = 'application/json';
      } else if (req.form !== undefined) {
        body = new URLSearchParams(req.form).toString();
        headers['content-type'] = 'application/x-www-form-urlencoded';
      }
      const r = httpsRequest(
        url,
        { method: req.method ?? 'GET', headers, cert: identity.certPem, key: identity.keyPem, ...(identity.caPem ? { ca: identity.caPem } : {}), agent: false, timeout: req.timeoutMs ?? DEFAULT_TIMEOUT_MS },
        (res) => {
          void readJsonAnswer(res, MAX_ANSWER_BYTES).then(({ text, json }) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json }));
          res.on('error', (error) => reject(unreachable(url, error)));
        },
      );
      r.on('timeout', () => r.destroy(new Error(`no answer within ${req.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)));
      r.on('error', (error) => reject(unreachable(url, error)));
      if (body !== undefined) r.write(body);
      r.end();
    });
}

/** `path` (with any query) under the client API base `base`, e.g. apiUrl(base, '/sessions'). */
export const apiUrl = (base: URL, path: string): URL => new URL(`${base.pathname.replace(/\/$/, '')}${path}`, base);

function unreachable(url: URL, error: Error): SdkError {
  return new SdkError('CONTROLLER_UNREACHABLE', `could not reach the controller at ${url.origin}${url.pathname}: ${error.message}`, { cause: error });
}

/** The controller's error sentence from an answer: the envelope's `error.message`, an OAuth description, or the status. */
export function answerReason(answer: HttpAnswer): string {
  const j = answer.json;
  const text = j?.error?.message ?? j?.error_description ?? j?.message ?? (typeof j?.error === 'string' ? j.error : undefined);
  return `${answer.status}${text ? ` ${text}` : ''}`;
}
