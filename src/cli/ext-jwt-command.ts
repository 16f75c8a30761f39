/**
 * `svc ext-jwt check --controller URL --signer ID --token JWT`: asks a running controller whether a JWT would log in
 * through an external JWT signer, and if not, which check fails. Logs in as an administrator with the password
 * method, calls `POST /edge/management/v1/external-jwt-signers/{id}/check`, prints the answer in plain words and
 * logs out again. Exit codes: 0 the token maps to an identity, 1 it does not (or the controller refused us).
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { defaultQuickstartHome } from './quickstart-command.js';
import type { Output } from './output.js';

export interface ExtJwtCheckArgs {
  /** `https://host:port` of the controller. */
  controller: string;
  signer: string;
  /** The JWT, or `-` to read it from stdin. */
  token: string;
  username: string;
  password: string;
  /** CA bundle (PEM) to trust the controller with; default the quickstart home's, else the system roots. */
  ca?: string;
}

interface Answer {
  status: number;
  body: any;
}

const MANAGEMENT = '/edge/management/v1';

/** The CA file to trust: the given one, or the quickstart home's when it exists. */
function caFile(given: string | undefined): string | undefined {
  if (given !== undefined) return given;
  const quickstart = join(defaultQuickstartHome(), 'pki', 'ca-bundle.pem');
  return existsSync(quickstart) ? quickstart : undefined;
}

function send(url: URL, method: string, ca: string | undefined, body?: unknown, session?: string): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (session !== undefined) headers['svc-session'] = session;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, ...(ca ? { ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => reject(new Error(`cannot reach ${url.origin}: ${error.message}`)));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** `HTTP 401 INVALID_AUTH: The authentication request failed` */
function describeError(answer: Answer): string {
  const error = answer.body?.error;
  return error ? `HTTP ${answer.status} ${error.code}: ${error.message}` : `HTTP ${answer.status}`;
}

async function readToken(token: string): Promise<string> {
  if (token !== '-') return token;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export async function extJwtCheckCommand(args: ExtJwtCheckArgs, out: Output): Promise<number> {
  let base: URL;
  try {
    base = new URL(args.controller);
  } catch {
    out.error(`svc: --controller must be a URL such as https://127.0.0.1:1280, not '${args.controller}'`);
    return 2;
  }
  if (base.protocol !== 'https:') {
    out.error(`svc: --controller must be an https URL, not '${args.controller}'`);
    return 2;
  }
  const file = caFile(args.ca);
  const ca = file === undefined ? undefined : readFileSync(file, 'utf8');
  const at = (path: string) => new URL(`${MANAGEMENT}${path}`, base);

  const login = await send(at('/authenticate?method=password'), 'POST', ca, { username: args.username, password: args.password });
  const session = login.body?.data?.token;
  if (login.status !== 200 || typeof session !== 'string') {
    out.error(`svc: could not log in as ${args.username}: ${describeError(login)}`);
    return 1;
  }
  try {
    const answer = await send(at(`/external-jwt-signers/${encodeURIComponent(args.signer)}/check`), 'POST', ca, { token: await readToken(args.token) }, session);
    if (answer.status !== 200) {
      out.error(`svc: the controller refused the check: ${describeError(answer)}`);
      return 1;
    }
    const result = answer.body.data as { ok: boolean; check?: string; message: string };
    if (result.ok) {
      out.print(`ok: ${result.message}`);
      return 0;
    }
    out.print(`refused (${result.check}): ${result.message}`);
    return 1;
  } finally {
    await send(at('/current-api-session'), 'DELETE', ca, undefined, session).catch(() => undefined);
  }
}
