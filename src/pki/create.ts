/**
 * A fresh controller PKI on disk, for `svc` quickstarts and tests: root CA -> intermediate CA ->
 * server and client leaves, written as PEM files in one private folder. Production deployments may
 * bring their own files instead; `loadIdentity` reads either.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { IdentityFiles } from '../config/types.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { PkiError } from './errors.js';
import { createRootCertificate, issueCertificate } from './issue.js';
import { generateKeyPair, privateKeyToPem } from './keys.js';
import { DEFAULT_SERVER_HOSTS, subjectAltNamesForHosts } from './subject-alt-names.js';

/** Absolute paths of the files `createControllerPki` writes. */
export interface PkiPaths {
  rootCert: string;
  rootKey: string;
  intermediateCert: string;
  intermediateKey: string;
  /** Server leaf followed by the intermediate. */
  serverCert: string;
  serverKey: string;
  /** Client leaf followed by the intermediate. */
  clientCert: string;
  clientKey: string;
  /** Root followed by the intermediate. */
  caBundle: string;
}

const FILE_NAMES: Readonly<PkiPaths> = {
  rootCert: 'root.cert.pem',
  rootKey: 'root.key.pem',
  intermediateCert: 'intermediate.cert.pem',
  intermediateKey: 'intermediate.key.pem',
  serverCert: 'server.chain.pem',
  serverKey: 'server.key.pem',
  clientCert: 'client.chain.pem',
  clientKey: 'client.key.pem',
  caBundle: 'ca-bundle.pem',
};

const DAY_MS = 24 * 60 * 60 * 1000;
const YEAR_MS = 365 * DAY_MS;
export const PKI_LIFETIMES_MS = { root: 10 * YEAR_MS, intermediate: 5 * YEAR_MS, leaf: YEAR_MS } as const;

/**
 * Creates a fresh PKI under `dir` (created with mode 0700 when missing): a self-signed root CA
 * (10 years), an intermediate CA (5 years, pathLen 0) signed by the root, a server certificate
 * (1 year) for `hosts` plus localhost, 127.0.0.1 and ::1, and a client certificate (1 year,
 * clientAuth, CN = `commonName`, default `svc-controller`), each leaf with its own P-256 key.
 * Private keys are PKCS#8 PEM files with mode 0600. Refuses (PkiError) to overwrite any existing file,
 * so a CA key is never replaced by accident. The intermediate is the enrollment signing CA.
 *
 * @example
 * const paths = await createControllerPki('/var/lib/svc/pki', { hosts: ['ctrl.example.com'] });
 * const identity = await loadIdentity(identityFilesFromPki(paths));
 */
export async function createControllerPki(
  dir: string,
  options: { hosts: string[]; commonName?: string; clock?: Clock },
): Promise<PkiPaths> {
  const clock = options.clock ?? systemClock;
  const commonName = options.commonName ?? 'svc-controller';
  const sans = subjectAltNamesForHosts([...options.hosts, ...DEFAULT_SERVER_HOSTS]);
  const root = resolve(dir);
  const paths = Object.fromEntries(Object.entries(FILE_NAMES).map(([k, name]) => [k, join(root, name)])) as unknown as PkiPaths;
  await mkdir(root, { recursive: true, mode: 0o700 });
  await refuseExisting(Object.values(paths));

  const rootKeys = await generateKeyPair();
  const rootCert = await createRootCertificate({
    keys: rootKeys,
    subject: { commonName: `${commonName} root CA`, organization: 'svc' },
    validityMs: PKI_LIFETIMES_MS.root,
    clock,
  });
  const intermediateKeys = await generateKeyPair();
  const intermediateCert = await issueCertificate({
    profile: 'intermediate-ca',
    publicKey: intermediateKeys.publicKey,
    subject: { commonName: `${commonName} intermediate CA`, organization: 'svc' },
    validityMs: PKI_LIFETIMES_MS.intermediate,
    issuer: { cert: rootCert, key: rootKeys.privateKey },
    clock,
  });
  const intermediate = { cert: intermediateCert, key: intermediateKeys.privateKey };

  const serverKeys = await generateKeyPair();
  const serverCert = await issueCertificate({
    profile: 'server',
    publicKey: serverKeys.publicKey,
    // Browsers and TLS stacks ignore the CN when SANs exist; it is the first name for people reading it.
    subject: { commonName: sans.dns[0] ?? sans.ip[0] ?? commonName, organization: 'svc' },
    subjectAltNames: sans,
    validityMs: PKI_LIFETIMES_MS.leaf,
    issuer: intermediate,
    clock,
  });
  const clientKeys = await generateKeyPair();
  const clientCert = await issueCertificate({
    profile: 'client',
    publicKey: clientKeys.publicKey,
    subject: { commonName, organization: 'svc' },
    validityMs: PKI_LIFETIMES_MS.leaf,
    issuer: intermediate,
    clock,
  });

  const pem = (cert: { toString(format: 'pem'): string }) => `${cert.toString('pem').trim()}\n`;
  // Keys first: if writing stops half way, no certificate exists without its key.
  await writePrivate(paths.rootKey, await privateKeyToPem(rootKeys.privateKey));
  await writePrivate(paths.intermediateKey, await privateKeyToPem(intermediateKeys.privateKey));
  await writePrivate(paths.serverKey, await privateKeyToPem(serverKeys.privateKey));
  await writePrivate(paths.clientKey, await privateKeyToPem(clientKeys.privateKey));
  await writePublic(paths.rootCert, pem(rootCert));
  await writePublic(paths.intermediateCert, pem(intermediateCert));
  await writePublic(paths.serverCert, pem(serverCert) + pem(intermediateCert));
  await writePublic(paths.clientCert, pem(clientCert) + pem(intermediateCert));
  await writePublic(paths.caBundle, pem(rootCert) + pem(intermediateCert));
  return paths;
}

/** The `IdentityFiles` (config shape) of a created PKI: client and server leaves with their own keys. */
export function identityFilesFromPki(paths: PkiPaths): IdentityFiles {
  return { cert: paths.clientCert, key: paths.clientKey, serverCert: paths.serverCert, serverKey: paths.serverKey, ca: paths.caBundle };
}

async function refuseExisting(files: string[]): Promise<void> {
  for (const file of files) {
    const found = await stat(file).then(
      () => true,
      () => false,
    );
    if (found) throw new PkiError(`${file}: the file already exists; a new PKI is only created in a folder without one`);
  }
}

// `wx` fails if the file appeared since the check; the mode applies at creation, so the key is never
// readable by others, not even for a moment.
async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600, flag: 'wx' });
}

async function writePublic(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o644, flag: 'wx' });
}
