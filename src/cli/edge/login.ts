/**
 * `svc edge login URL`, `logout`, `whoami`. The first contact trusts nothing: it reads the controller's well-known
 * CA bundle (RFC 7030 §4.1) without verifying the server, shows each CA's SHA-256 fingerprint and asks the user to
 * confirm them (unless `--ca FILE` names the CAs or `--yes` accepts them), then logs in trusting only those CAs and
 * stores the URL, the CAs, the session and the controller's Management API document (config-store.ts).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { x509 } from '../../pki/index.js';
import type { Output } from '../output.js';
import { forgetLogin, loginFilePath, readLogin, saveLogin } from './config-store.js';
import { refusedError, usageError } from '../cli-error.js';
import { describeAnswer, send } from './http.js';
import { managementClient, managementUrl } from './management-client.js';
import { ask, askHidden, readLine } from './terminal.js';

export interface LoginArgs {
  url: string;
  username?: string;
  password?: string;
  passwordStdin: boolean;
  ca?: string;
  yes: boolean;
}

/** `https://host:port` of a controller URL given with or without an API path. */
export function controllerOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`URL: expected the controller's address such as https://127.0.0.1:1280, not '${text}'`);
  }
  if (url.protocol !== 'https:') throw usageError(`URL: expected an https:// address, not '${text}'`);
  return url.origin;
}

/** The certificates of a base64 certs-only PKCS#7, as PEM. */
export function certificatesOfPkcs7(base64: string): string[] {
  const der = Buffer.from(base64.replace(/\s+/g, ''), 'base64');
  return [...new x509.X509Certificates(der)].map((cert) => `${cert.toString('pem').trim()}\n`);
}

/** `subject  SHA256 AB:CD:…` for each certificate. */
export function describeCertificates(pems: string[]): string[] {
  return pems.map((pem) => {
    const cert = new X509Certificate(pem);
    return `  ${cert.subject.replace(/\n/g, ', ')}\n    SHA-256 ${cert.fingerprint256}`;
  });
}

/** The controller's CA bundle from its well-known endpoint, read before anything is trusted. */
async function fetchWellKnownCas(origin: string): Promise<string[]> {
  const answer = await send(new URL('/.well-known/est/cacerts', origin), { ca: false, headers: { accept: 'application/pkcs7-mime' } });
  if (answer.status !== 200) throw refusedError(`${origin} did not serve its CA bundle at /.well-known/est/cacerts: ${describeAnswer(answer)}`);
  try {
    return certificatesOfPkcs7(answer.text);
  } catch {
    throw refusedError(`${origin}/.well-known/est/cacerts is not a base64 PKCS#7 certificate bundle`);
  }
}

async function trustedCas(origin: string, args: LoginArgs, out: Output): Promise<string> {
  if (args.ca !== undefined) {
    let text: string;
    try {
      text = readFileSync(args.ca, 'utf8');
    } catch (error) {
      throw usageError(`--ca: cannot read '${args.ca}': ${(error as Error).message}`);
    }
    if (!text.includes('-----BEGIN CERTIFICATE-----')) throw usageError(`--ca: '${args.ca}' holds no PEM certificate`);
    return text;
  }
  const cas = await fetchWellKnownCas(origin);
  out.error(`${origin} presents these certificate authorities:\n${describeCertificates(cas).join('\n')}`);
  if (!args.yes) {
    const answer = (await ask('Trust them for this controller? [y/N] ')) ?? '';
    if (!/^y(es)?$/i.test(answer.trim())) throw refusedError('the certificate authorities were not trusted; nothing was saved');
  }
  return cas.join('');
}

async function passwordOf(args: LoginArgs, username: string): Promise<string> {
  if (args.password !== undefined) return args.password;
  if (args.passwordStdin) {
    const line = await readLine();
    if (line === undefined || line === '') throw usageError('--password-stdin: stdin ended before a password line');
    return line;
  }
  const fromEnv = process.env.SVC_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) return askHidden(`password for ${username}: `);
  throw usageError('a password is needed: -p PASSWORD, --password-stdin or SVC_ADMIN_PASSWORD');
}

export async function loginCommand(args: LoginArgs, out: Output): Promise<number> {
  const origin = controllerOrigin(args.url);
  const username = args.username ?? (process.env.SVC_ADMIN_USER || 'admin');
  const ca = await trustedCas(origin, args, out);
  const password = await passwordOf(args, username);
  const login = await send(managementUrl(origin, '/authenticate', { method: 'password' }), { method: 'POST', ca, body: { username, password } });
  const token = login.body?.data?.token;
  if (login.status !== 200 || typeof token !== 'string') throw refusedError(`could not log in as ${username}: ${describeAnswer(login)}`);
  const identity = login.body.data.identity ?? {};
  const spec = await send(managementUrl(origin, '/specs/edge-management/spec'), { ca });
  if (spec.status !== 200 || typeof spec.body?.data?.paths !== 'object') throw refusedError(`could not read the Management API document: ${describeAnswer(spec)}`);
  saveLogin(
    { controller: origin, ca, token, identity: { id: String(identity.id ?? ''), name: String(identity.name ?? username) }, username, loggedInAt: new Date().toISOString() },
    spec.body.data,
  );
  out.print(`logged in to ${origin} as ${identity.name ?? username}; session saved in ${loginFilePath()}`);
  return 0;
}

export async function logoutCommand(out: Output): Promise<number> {
  const login = readLogin();
  if (!login) {
    out.print('not logged in');
    return 0;
  }
  // Ending the session on the controller is a courtesy: the local login is forgotten even if it fails.
  await send(managementUrl(login.controller, '/current-api-session'), { method: 'DELETE', ca: login.ca, headers: { 'svc-session': login.token } }).catch(() => undefined);
  forgetLogin();
  out.print(`logged out of ${login.controller}`);
  return 0;
}

export async function whoamiCommand(out: Output, json: boolean): Promise<number> {
  const client = managementClient();
  const me = (await client.call('GET', '/current-identity')).body.data;
  if (json) out.print(JSON.stringify(me, null, 2));
  else out.print(`${me.name} (${me.id}) at ${client.login.controller}${me.isAdmin ? ', administrator' : ''}`);
  return 0;
}
