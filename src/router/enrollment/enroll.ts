/**
 * `svc router enroll` (method `erott`, issue 41 must-have 1; decision 0063). In order, each step refusing with one
 * sentence before anything irreversible happens:
 * 1. the JWT is read unverified (enrollment-jwt.ts) and the config must give the server certificate a name;
 * 2. the server at the JWT's `iss` must present a certificate whose key verifies the JWT's signature (enrollment JWTs
 *    are signed with the controller's server certificate key, decision 0038): a JWT of another network, or another
 *    server at that address, stops here;
 * 3. its CA bundle (`/.well-known/est/cacerts`, fetched pinned to that certificate) must verify that same server
 *    certificate: this bundle is what the router pins from now on, for every later connection to the controller;
 * 4. the key is made (or the existing one of the configured type kept), every file is staged beside its target (so an
 *    unwritable folder is found before the one-time token is spent), and the CSRs are posted;
 * 5. only a 200 commits: the certificates, the key, the CA bundle and the endpoints file land together.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { jwtVerify } from 'jose';
import { certificatesOfPkcs7 } from '../../pki/pkcs7.js';
import { parsePrivateKeyPem } from '../../pki/keys.js';
import type { CsrFile, KeyType, RouterFile } from '../../router-config/schema.js';
import { ROUTER_DEFAULTS } from '../../router-config/schema.js';
import type { Clock } from '../../shared/clock.js';
import { systemClock } from '../../shared/clock.js';
import { reasonOf } from '../../shared/system-errors.js';
import { stageFiles } from '../atomic-files.js';
import { endpointsFileText } from '../endpoints-file.js';
import { endpointsFilePath } from '../../router-config/timings.js';
import { RouterSetupError } from '../errors.js';
import { controllerRequest, describeAnswer, presentedCertificate } from './controller-https.js';
import { readRouterJwt } from './enrollment-jwt.js';
import { identityContentsByPath, identityFilesToWrite, identityPaths } from './identity-files.js';
import { generateRouterKey, keyTypeOf, routerCsrs } from './router-keys.js';

export const CLIENT_API = '/edge/client/v1';

export interface EnrollOptions {
  /** The router config file (relative identity paths resolve against its folder). */
  readonly configPath: string;
  /** Its validated content. */
  readonly config: RouterFile;
  /** The JWT file's path (for messages) and text. */
  readonly jwtFile: string;
  readonly jwt: string;
  readonly clock?: Clock;
  readonly timeoutMs?: number;
}

export interface EnrollResult {
  readonly routerId: string;
  /** The controller's API origin, as the JWT named it. */
  readonly origin: string;
  /** Every file written, labelled (`identity.cert /path`). */
  readonly written: string[];
  /** Whether an existing key file of the configured type was kept. */
  readonly keptKey: boolean;
}

/** The csr section in effect: the root one, else the deprecated `edge.csr` (router-config/rules/csr.ts). */
export function csrOf(config: RouterFile): CsrFile | undefined {
  return config.csr ?? config.edge?.csr;
}

/** The server certificate needs a name (spec: "at least one valid SAN is needed"); refused before anything is sent. */
function requireSans(csr: CsrFile | undefined, configFile: string): void {
  const sans = csr?.sans;
  const count = (sans?.dns?.length ?? 0) + (sans?.ip?.length ?? 0) + (sans?.uri?.length ?? 0) + (sans?.email?.length ?? 0);
  if (count === 0) {
    throw new RouterSetupError(
      `${configFile}: csr.sans names nothing; at least one valid SAN is needed (csr.sans.dns or csr.sans.ip: the names SDKs and other routers reach this router by)`,
    );
  }
}

/** The key to enroll with: the existing identity.key when it is of the configured type, else a new one. */
async function keyFor(path: string, type: KeyType): Promise<{ keyPem: string; kept: boolean }> {
  let existing: string;
  try {
    existing = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { keyPem: generateRouterKey(type), kept: false };
    throw new RouterSetupError(`identity.key ${path}: cannot be read (${reasonOf(error)})`);
  }
  let kind: KeyType | undefined;
  try {
    kind = keyTypeOf(parsePrivateKeyPem(existing));
  } catch {
    throw new RouterSetupError(`identity.key ${path}: exists but is not an unencrypted PEM private key; move it away to have a new key made`);
  }
  return kind === type ? { keyPem: existing, kept: true } : { keyPem: generateRouterKey(type), kept: false };
}

/** Steps 2 and 3: the verified CA bundle of the controller at `origin`, or RouterSetupError. */
async function pinnedBundle(jwt: string, jwtFile: string, origin: string, now: Date, timeoutMs?: number): Promise<string> {
  const leaf = await presentedCertificate(origin, timeoutMs);
  try {
    await jwtVerify(jwt, leaf.publicKey, { currentDate: now });
  } catch {
    throw new RouterSetupError(
      `${jwtFile}: the JWT was not signed by the controller at ${origin} (its signature does not verify with the certificate that server presents): it belongs to another network, or another server answers at that address; nothing was written`,
    );
  }
  const answer = await controllerRequest(new URL('/.well-known/est/cacerts', origin), { trust: { pin: leaf.fingerprint256 }, timeoutMs });
  let cas: string[];
  try {
    if (answer.status !== 200) throw new Error(describeAnswer(answer));
    cas = certificatesOfPkcs7(answer.text);
  } catch (error) {
    throw new RouterSetupError(`${origin}/.well-known/est/cacerts: no CA bundle could be read (${(error as Error).message})`);
  }
  const bundle = cas.join('');
  // The bundle must vouch for the very server that signed the JWT (chain and name, as every later connection checks).
  await controllerRequest(new URL(`${CLIENT_API}/version`, origin), { trust: { ca: bundle }, timeoutMs });
  return bundle;
}

/**
 * Enrolls the router the JWT names with the controller that signed it and writes its identity and endpoints files.
 *
 * @example
 * const result = await enrollWithJwt({ configPath: 'router.yml', config, jwtFile: 'router.jwt', jwt: readFileSync('router.jwt', 'utf8') });
 */
export async function enrollWithJwt(options: EnrollOptions): Promise<EnrollResult> {
  const { config, configPath, jwtFile, timeoutMs } = options;
  const now = (options.clock ?? systemClock).now();
  const claims = readRouterJwt(options.jwt, jwtFile, now);
  const csr = csrOf(config);
  requireSans(csr, configPath);
  const bundle = await pinnedBundle(options.jwt.trim(), jwtFile, claims.origin, now, timeoutMs);

  const baseDir = dirname(resolve(configPath));
  const paths = identityPaths(config.identity, baseDir);
  const { keyPem, kept } = await keyFor(paths.key, csr?.keyType ?? ROUTER_DEFAULTS.keyType);
  const body = await routerCsrs(keyPem, claims.routerId, csr);

  const endpointsPath = endpointsFilePath(config, configPath);
  const ctrl = config.ctrl.endpoint !== undefined ? [config.ctrl.endpoint] : [...(config.ctrl.endpoints ?? [])];
  const contents = { certPem: '', serverCertPem: '', caPem: bundle, ...(kept ? {} : { keyPem }) };
  const files = [...identityFilesToWrite(paths, contents), { path: endpointsPath, label: `endpoints file ${endpointsPath}`, mode: 0o600 }];
  const staged = await stageFiles(files);
  try {
    const url = new URL(`${CLIENT_API}/enroll`, claims.origin);
    url.searchParams.set('method', 'erott');
    url.searchParams.set('token', claims.token);
    const answer = await controllerRequest(url, { method: 'POST', body, trust: { ca: bundle }, timeoutMs });
    const { cert, serverCert } = (answer.json?.data ?? {}) as { cert?: unknown; serverCert?: unknown };
    if (answer.status !== 200 || typeof cert !== 'string' || typeof serverCert !== 'string') {
      throw new RouterSetupError(`the controller at ${claims.origin} refused the enrollment: ${describeAnswer(answer)}; nothing was written`);
    }
    const byPath = identityContentsByPath(paths, { ...contents, certPem: cert, serverCertPem: serverCert });
    byPath.set(endpointsPath, endpointsFileText({ ctrl, api: claims.origin }));
    await staged.commit(byPath);
  } finally {
    await staged.discard();
  }
  return { routerId: claims.routerId, origin: claims.origin, written: files.map((file) => file.label), keptKey: kept };
}
