/**
 * The router's identity on disk (contract seam 3): `identity.cert` (client certificate + chain), `identity.server_cert`
 * (server certificate + chain), `identity.key` (the one private key of both, PKCS#8 PEM, 0600) and `identity.ca` (the
 * controller CA bundle pinned at enrollment). Relative paths resolve against the config file's folder. Loading checks
 * everything a start needs and says in one sentence what is wrong; writing replaces the set atomically.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { parsePrivateKeyPem, spkiDer } from '../../pki/keys.js';
import { splitPemCertificates } from '../../pki/pem.js';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { reasonOf } from '../../shared/system-errors.js';
import { stageFiles, type FileToWrite } from '../atomic-files.js';
import { RouterSetupError } from '../errors.js';

/** The part of the config's `identity` section these files come from. */
export interface IdentitySection {
  readonly cert: string;
  readonly server_cert: string;
  readonly key: string;
  readonly ca: string;
}

export interface RouterIdentity {
  readonly certPem: string;
  readonly serverCertPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  readonly clientLeaf: X509Certificate;
  readonly serverLeaf: X509Certificate;
  /** The earlier notAfter of the two leaves: when the router stops being able to work. */
  readonly notAfter: Date;
}

export interface LoadOptions {
  /** The config file's name, said first in messages (default `router.yml`). */
  readonly configFile?: string;
  readonly clock?: Clock;
  /** Load an expired identity without refusing it (renewal reports expiry itself). */
  readonly allowExpired?: boolean;
}

type Key = keyof IdentitySection;
const KEYS: readonly Key[] = ['cert', 'server_cert', 'key', 'ca'];

/** The absolute path of each identity file. */
export function identityPaths(identity: IdentitySection, baseDir: string): Record<Key, string> {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path));
  return { cert: at(identity.cert), server_cert: at(identity.server_cert), key: at(identity.key), ca: at(identity.ca) };
}

/** Re-enrolling is the way out of every problem of an enrolled identity; said the same way everywhere. */
export const reEnrollHint = (config: string) =>
  `re-enroll the router (svc edge do edge-router re-enroll NAME -o router.jwt) and run svc router enroll --jwt router.jwt --config ${config}`;

/**
 * Reads and checks the identity files: each present and readable, PEM of the right kind, the key belonging to both
 * leaves, both leaves within their validity (unless allowExpired). Throws RouterSetupError with one sentence.
 *
 * @example const identity = await loadRouterIdentity(config.identity, dirname(configPath), { configFile: 'router.yml' });
 */
export async function loadRouterIdentity(identity: IdentitySection, baseDir: string, options: LoadOptions = {}): Promise<RouterIdentity> {
  const config = options.configFile ?? 'router.yml';
  const paths = identityPaths(identity, baseDir);
  const where = (key: Key) => `${basename(config)}: identity.${key} ${paths[key]}`;
  const texts = {} as Record<Key, string>;
  for (const key of KEYS) {
    try {
      texts[key] = await readFile(paths[key], 'utf8');
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new RouterSetupError(
        missing
          ? `${where(key)}: no such file; enroll first with svc router enroll --jwt FILE --config ${config}`
          : `${where(key)}: cannot be read (${reasonOf(error)})`,
      );
    }
  }
  const leaf = (key: Key): X509Certificate => {
    const first = splitPemCertificates(texts[key])[0];
    try {
      if (first === undefined) throw new Error('none');
      return new X509Certificate(first);
    } catch {
      throw new RouterSetupError(`${where(key)}: is not a PEM certificate`);
    }
  };
  const clientLeaf = leaf('cert');
  const serverLeaf = leaf('server_cert');
  leaf('ca');
  let key: KeyObject;
  try {
    key = parsePrivateKeyPem(texts.key);
  } catch {
    // Never Node's own message: it may quote the key file's content.
    throw new RouterSetupError(`${where('key')}: is not an unencrypted PEM private key`);
  }
  for (const [name, cert] of [['cert', clientLeaf], ['server_cert', serverLeaf]] as const) {
    if (!spkiDer(cert.publicKey).equals(spkiDer(key))) throw new RouterSetupError(`${where('key')}: the key does not match the certificate in identity.${name} ${paths[name]}`);
  }
  const now = (options.clock ?? systemClock).now();
  const notAfter = new Date(Math.min(Date.parse(clientLeaf.validTo), Date.parse(serverLeaf.validTo)));
  if (!options.allowExpired) {
    for (const [name, cert] of [['cert', clientLeaf], ['server_cert', serverLeaf]] as const) {
      if (Date.parse(cert.validTo) <= now.getTime()) {
        throw new RouterSetupError(`${where(name)}: the certificate expired at ${new Date(cert.validTo).toISOString()}; ${reEnrollHint(config)}`);
      }
    }
  }
  return { certPem: texts.cert, serverCertPem: texts.server_cert, keyPem: texts.key, caPem: texts.ca, clientLeaf, serverLeaf, notAfter };
}

/** What writeRouterIdentity writes; a field left out keeps its file as it is. */
export interface IdentityContents {
  readonly certPem: string;
  readonly serverCertPem: string;
  readonly keyPem?: string;
  readonly caPem?: string;
}

/** The files of a write, labelled for messages; the key 0600, the rest 0644. */
export function identityFilesToWrite(paths: Record<Key, string>, contents: IdentityContents): FileToWrite[] {
  const files: FileToWrite[] = [
    { path: paths.cert, label: `identity.cert ${paths.cert}`, mode: 0o644 },
    { path: paths.server_cert, label: `identity.server_cert ${paths.server_cert}`, mode: 0o644 },
  ];
  if (contents.keyPem !== undefined) files.push({ path: paths.key, label: `identity.key ${paths.key}`, mode: 0o600 });
  if (contents.caPem !== undefined) files.push({ path: paths.ca, label: `identity.ca ${paths.ca}`, mode: 0o644 });
  return files;
}

/** The contents of `identityFilesToWrite`'s files by path. */
export function identityContentsByPath(paths: Record<Key, string>, contents: IdentityContents): Map<string, string> {
  const byPath = new Map<string, string>([
    [paths.cert, contents.certPem],
    [paths.server_cert, contents.serverCertPem],
  ]);
  if (contents.keyPem !== undefined) byPath.set(paths.key, contents.keyPem);
  if (contents.caPem !== undefined) byPath.set(paths.ca, contents.caPem);
  return byPath;
}

/**
 * Replaces the identity files in one step: every new content into temporary files, then all renamed; on any failure
 * no file changed. `extra` files (the endpoints file at enrollment) join the same step.
 */
export async function writeRouterIdentity(
  identity: IdentitySection,
  baseDir: string,
  contents: IdentityContents,
  extra: ReadonlyArray<FileToWrite & { content: string }> = [],
): Promise<void> {
  const paths = identityPaths(identity, baseDir);
  const staged = await stageFiles([...identityFilesToWrite(paths, contents), ...extra]);
  const byPath = identityContentsByPath(paths, contents);
  for (const file of extra) byPath.set(file.path, file.content);
  await staged.commit(byPath);
}
