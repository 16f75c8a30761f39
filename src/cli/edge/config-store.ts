/**
 * What `svc edge login` remembers between commands, in the user's config folder (`$XDG_CONFIG_HOME/svc`, else
 * `~/.config/svc`): the controller's URL, the CA certificates the user accepted, the session token and who it is, in
 * `edge.json` (mode 0600: it holds a live session), and the controller's Management API document the resource
 * commands are generated from (`management-spec.json`).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OidcTokens } from './oidc-session.js';
import { usageError } from '../cli-error.js';

export interface EdgeLogin {
  /** `https://host:port` of the controller. */
  controller: string;
  /** The accepted CA certificates (PEM). */
  ca: string;
  /** OIDC tokens (`svc edge login` since decision 0075): the access token is sent as Bearer and refreshed when due. */
  oidc?: OidcTokens;
  /** A legacy API session token (`svc-session`), from a login saved before the OIDC login; still used while it works. */
  token?: string;
  identity: { id: string; name: string };
  username: string;
  loggedInAt: string;
}

/** The folder the edge commands keep their state in. */
export function configFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'svc');
}

const loginFile = () => join(configFolder(), 'edge.json');
const specFile = () => join(configFolder(), 'management-spec.json');
/** The CAs accepted per controller; kept across logouts so a later login to the same URL is not asked again. */
const knownCasFile = () => join(configFolder(), 'known-controllers.json');

/** Writes `text` readable by the user only (0600), in a folder only the user can enter (0700). */
function writePrivate(path: string, text: string): void {
  mkdirSync(configFolder(), { recursive: true, mode: 0o700 });
  // mkdir's mode applies only to a folder it creates: one made earlier (by hand, or with a wider umask) is narrowed.
  chmodSync(configFolder(), 0o700);
  // A new file, 0600 from its first byte, then renamed over the old one: an existing file keeps the mode it had, so
  // writing into it would put the session in a file others may read before any chmod.
  const fresh = `${path}.${process.pid}.tmp`;
  rmSync(fresh, { force: true });
  writeFileSync(fresh, text, { mode: 0o600, flag: 'wx' });
  renameSync(fresh, path);
}

export function saveLogin(login: EdgeLogin, managementSpec: unknown): void {
  writePrivate(loginFile(), `${JSON.stringify(login, null, 2)}\n`);
  writePrivate(specFile(), JSON.stringify(managementSpec));
}

/** Replaces the saved login's tokens (after a refresh), keeping the saved document. */
export function saveLoginTokens(login: EdgeLogin): void {
  writePrivate(loginFile(), `${JSON.stringify(login, null, 2)}\n`);
}

/** The stored login, or undefined when there is none. */
export function readLogin(): EdgeLogin | undefined {
  if (!existsSync(loginFile())) return undefined;
  try {
    return JSON.parse(readFileSync(loginFile(), 'utf8')) as EdgeLogin;
  } catch {
    throw usageError(`${loginFile()} is not readable JSON: log in again with 'svc edge login URL'`);
  }
}

/** The stored login, or a usage error telling how to log in. */
export function requireLogin(): EdgeLogin {
  const login = readLogin();
  if (!login) throw usageError("not logged in: run 'svc edge login URL' first");
  return login;
}

/** The Management API document saved at login, if any. */
export function readSavedSpec(): Record<string, any> | undefined {
  if (!existsSync(specFile())) return undefined;
  try {
    return JSON.parse(readFileSync(specFile(), 'utf8')) as Record<string, any>;
  } catch {
    return undefined;
  }
}

function readKnownCas(): Record<string, string> {
  if (!existsSync(knownCasFile())) return {};
  try {
    const known = JSON.parse(readFileSync(knownCasFile(), 'utf8')) as unknown;
    return known !== null && typeof known === 'object' && !Array.isArray(known) ? (known as Record<string, string>) : {};
  } catch {
    // A damaged file only means the user is asked again, as at a first contact.
    return {};
  }
}

/** The CAs (PEM) accepted earlier for the controller at `origin`, if any. */
export function knownCasOf(origin: string): string | undefined {
  const pem = readKnownCas()[origin];
  return typeof pem === 'string' && pem.includes('-----BEGIN CERTIFICATE-----') ? pem : undefined;
}

/** Remembers the CAs accepted for `origin` (private like the login: it decides whom the CLI trusts). */
export function rememberCas(origin: string, pem: string): void {
  writePrivate(knownCasFile(), `${JSON.stringify({ ...readKnownCas(), [origin]: pem }, null, 2)}\n`);
}

/** Forgets the login and the saved document (the accepted CAs stay: the controller is no stranger after a logout). */
export function forgetLogin(): void {
  rmSync(loginFile(), { force: true });
  rmSync(specFile(), { force: true });
}

export function loginFilePath(): string {
  return loginFile();
}
