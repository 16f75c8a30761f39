/**
 * `svc edge login URL`, `logout`, `whoami`. The first contact trusts nothing: it reads the controller's well-known
 * CA bundle (RFC 7030 §4.1; the controller's own CAs only, never a third-party CA: decision 0056) without verifying
 * the server, shows each CA's SHA-256 fingerprint and asks the user to confirm them (unless `--ca FILE` names the CAs
 * or `--yes` accepts them; a script with neither and no answer on stdin is refused naming both). The accepted CAs are
 * remembered per URL, across logouts, so a later login to the same controller is not asked again while they are
 * valid. The login itself is OIDC (oidc-session.ts: authorization code with PKCE, by password or, with `--identity
 * FILE`, by the enrolled identity's certificate); a TOTP code the identity owes comes from `--totp` or a terminal
 * prompt, and nothing is saved until the login is complete. What is saved (config-store.ts): the URL, the CAs, the
 * tokens and the controller's Management API document. Logout revokes the refresh token.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { certificatesOfPkcs7 } from '../../pki/pkcs7.js';
import type { Output } from '../output.js';
import { forgetLogin, knownCasOf, loginFilePath, readLogin, rememberCas, saveLogin } from './config-store.js';
import { refusedError, usageError } from '../cli-error.js';
import { describeAnswer, send } from './http.js';
import { managementClient, managementUrl } from './management-client.js';
import { ask, readPassword } from './terminal.js';
import { oidcLogin, revokeOidcTokens } from './oidc-session.js';
import { readIdentityFile, type LoadedIdentity } from '../../sdk/identity-file.js';

export interface LoginArgs {
  url: string;
  username?: string;
  password?: string;
  passwordStdin: boolean;
  ca?: string;
  yes: boolean;
  /** An enrolled identity file (the SDKs' JSON): certificate login instead of a password. */
  identity?: string;
  /** The TOTP code, for an identity whose session owes one. */
  totp?: string;
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

/** The certificates of a base64 certs-only PKCS#7, as PEM (pki/pkcs7.ts; the router's enrollment reads it too). */
export { certificatesOfPkcs7 };

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

/** True when every certificate in the PEM bundle is inside its validity period now. */
function allStillValid(pem: string): boolean {
  const now = Date.now();
  const pems = pem.split(/(?=-----BEGIN CERTIFICATE-----)/).filter((part) => part.includes('-----BEGIN CERTIFICATE-----'));
  try {
    return pems.length > 0 && pems.every((part) => {
      const cert = new X509Certificate(part);
      return Date.parse(cert.validFrom) <= now && now < Date.parse(cert.validTo);
    });
  } catch {
    return false;
  }
}

async function trustedCas(origin: string, args: LoginArgs, out: Output): Promise<string> {
  // Only the first contact asks: CAs accepted before for this URL and still valid are trusted again as they are.
  const known = args.ca === undefined && !args.yes ? knownCasOf(origin) : undefined;
  if (known !== undefined && allStillValid(known)) return known;
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
    const reply = await ask('Trust them for this controller? [y/N] ');
    if (reply === undefined && !process.stdin.isTTY) {
      throw refusedError(`the certificate authorities were not trusted: stdin is not a terminal to ask on; pass --ca FILE (the controller's CA bundle, checked beforehand) or --yes (accept the CAs shown above); nothing was saved`);
    }
    const answer = reply ?? '';
    if (!/^y(es)?$/i.test(answer.trim())) throw refusedError('the certificate authorities were not trusted; nothing was saved');
  }
  return cas.join('');
}


/** Ends a session the controller started but this login will not keep (a courtesy: failing to end it changes nothing). */
async function abandon(origin: string, ca: string, token: string): Promise<void> {
  await send(managementUrl(origin, '/current-api-session'), { method: 'DELETE', ca, headers: { 'svc-session': token } }).catch(() => undefined);
}

/** The TOTP code: `--totp`, else asked on a terminal; a script without `--totp` is refused rather than left waiting. */
async function totpCodeOf(args: LoginArgs, username: string): Promise<string> {
  if (args.totp !== undefined) return args.totp;
  if (!process.stdin.isTTY) throw usageError(`${username} must also give a TOTP code: add --totp CODE (stdin is not a terminal to ask on)`);
  return ((await ask(`TOTP code for ${username}: `)) ?? '').trim();
}

/** The identity file of `--identity`, checked before any contact; a bad one is a usage error naming the file and field. */
function identityOf(path: string): LoadedIdentity {
  try {
    return readIdentityFile(path);
  } catch (error) {
    throw usageError(`--identity: ${(error as Error).message}`);
  }
}

/** Password login, or certificate login with the identity file's key (its CAs are trusted: enrollment checked them). */
async function authenticate(origin: string, args: LoginArgs, out: Output, identity: LoadedIdentity | undefined) {
  if (identity) {
    const ca = args.ca === undefined && identity.caPem !== '' ? identity.caPem : await trustedCas(origin, args, out);
    const username = identity.commonName;
    const tokens = await oidcLogin(origin, ca, username, { cert: identity.certPem, key: identity.keyPem }, () => totpCodeOf(args, username));
    return { ca, tokens, username };
  }
  const username = args.username ?? (process.env.SVC_ADMIN_USER || 'admin');
  const ca = await trustedCas(origin, args, out);
  const password = await readPassword({ password: args.password, passwordStdin: args.passwordStdin, envVariable: 'SVC_ADMIN_PASSWORD' }, `password for ${username}: `);
  const tokens = await oidcLogin(origin, ca, username, { username, password }, () => totpCodeOf(args, username));
  return { ca, tokens, username };
}

export async function loginCommand(args: LoginArgs, out: Output): Promise<number> {
  const origin = controllerOrigin(args.url);
  const file = args.identity === undefined ? undefined : identityOf(args.identity);
  const { ca, tokens, username } = await authenticate(origin, args, out, file);
  const me = await send(managementUrl(origin, '/current-identity'), { ca, headers: { authorization: `Bearer ${tokens.accessToken}` } });
  if (me.status !== 200) {
    if (tokens.refreshToken) await revokeOidcTokens(origin, ca, tokens.refreshToken);
    throw refusedError(`could not log in as ${username}: the controller did not take the new login: ${describeAnswer(me)}; nothing was saved`);
  }
  const identity = me.body?.data ?? {};
  const spec = await send(managementUrl(origin, '/specs/edge-management/spec'), { ca });
  if (spec.status !== 200 || typeof spec.body?.data?.paths !== 'object') throw refusedError(`could not read the Management API document: ${describeAnswer(spec)}`);
  saveLogin(
    { controller: origin, ca, oidc: tokens, identity: { id: String(identity.id ?? ''), name: String(identity.name ?? username) }, username, loggedInAt: new Date().toISOString() },
    spec.body.data,
  );
  rememberCas(origin, ca);
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
  if (login.oidc?.refreshToken) await revokeOidcTokens(login.controller, login.ca, login.oidc.refreshToken);
  else if (login.token) await abandon(login.controller, login.ca, login.token);
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
