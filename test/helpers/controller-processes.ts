/**
 * Controllers as real processes (`svc controller run --config FILE`, through the same `main()` that bin/svc.js
 * runs, from source or the compiled suite as test/helpers/cli.ts does, so a stale dist/ is never tested) sharing one
 * store, for tests of several controllers (docs/decisions/0034-several-controllers.md). What they share is what the
 * "Running several controllers" (docs/guides/controller.md) says must be shared: the store, the CA (the enrollment signing CA, which
 * also issues every controller's server certificate) and the TOTP encryption key file; what differs is each one's
 * identity (a server certificate with its own subject) and its address. Builders return values and never assert.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { newSecretsKeyText } from '../../src/crypto/secret-box.js';
import { createControllerPki, generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem, subjectAltNamesForHosts, type PkiPaths } from '../../src/pki/index.js';
import { spawnCli, type CliProcess } from './cli.js';
import { request, type TestRequestOptions, type TestResponse } from './https.js';
import { freePort } from './ports.js';

/** What the controllers of one test share: a CA and the TOTP encryption key file, in one temporary folder. */
export interface SharedPki {
  dir: string;
  paths: PkiPaths;
  /** The CA bundle's text, for clients' TLS checks. */
  ca: string;
  totpKeyFile: string;
  remove(): void;
}

/** A new CA (root and intermediate) and TOTP key file for the controllers of one test. */
export async function createSharedPki(): Promise<SharedPki> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-cluster-'));
  const paths = await createControllerPki(join(dir, 'ca'), { hosts: ['127.0.0.1', 'localhost'], commonName: 'svc-test-cluster' });
  const totpKeyFile = join(dir, 'totp.key');
  writeFileSync(totpKeyFile, newSecretsKeyText(), { mode: 0o600 });
  return { dir, paths, ca: readFileSync(paths.caBundle, 'utf8'), totpKeyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The identity files of controller `name`: a server certificate issued by the shared intermediate with the subject
 * `CN=svc-controller-<name>` (the name the store knows the controller by, so it must differ per controller) for
 * 127.0.0.1 and localhost, and its key; the client certificate and CA bundle are the shared PKI's.
 */
export async function controllerIdentity(pki: SharedPki, name: string) {
  const issuer = await loadCertificateAuthority({ cert: pki.paths.intermediateCert, key: pki.paths.intermediateKey });
  const keys = await generateKeyPair();
  const leaf = await issueCertificate({
    profile: 'server',
    publicKey: keys.publicKey,
    subject: { commonName: `svc-controller-${name}`, organization: 'svc' },
    subjectAltNames: subjectAltNamesForHosts(['127.0.0.1', 'localhost']),
    validityMs: 24 * 3_600_000,
    issuer,
  });
  const serverCert = join(pki.dir, `${name}.server.chain.pem`);
  const serverKey = join(pki.dir, `${name}.server.key.pem`);
  writeFileSync(serverCert, `${leaf.toString('pem').trim()}\n${readFileSync(pki.paths.intermediateCert, 'utf8').trim()}\n`);
  writeFileSync(serverKey, await privateKeyToPem(keys.privateKey), { mode: 0o600 });
  return { cert: pki.paths.clientCert, key: pki.paths.clientKey, server_cert: serverCert, server_key: serverKey, ca: pki.paths.caBundle };
}

export interface ControllerProcess {
  readonly name: string;
  /** `https://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** `tls:127.0.0.1:<port>` of its control listener, when started with `ctrl`. */
  readonly ctrlEndpoint: string | undefined;
  readonly ca: string;
  /** The running process (replaced by `restart`). */
  readonly cli: CliProcess;
  /** A request to `path` (absolute URL or path on baseUrl) trusting the shared CA. */
  fetch(path: string, options?: Omit<TestRequestOptions, 'ca'>): Promise<TestResponse>;
  /** Sends `signal` (SIGTERM: a clean stop; SIGKILL: gone without a word) and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the process again on the same config (address, identity, store) once it has stopped. */
  restart(): Promise<void>;
}

/** The text the CLI prints once every listener is up. */
const LISTENING = 'svc controller listening on';

/**
 * Writes the config of controller `name` (its own identity and loopback port, the shared store, CA and TOTP key)
 * and starts `svc controller run` on it; resolves once it listens. With `ctrl`, it also listens for routers.
 */
export async function startControllerProcess(options: { pki: SharedPki; name: string; db: string; ctrl?: boolean }): Promise<ControllerProcess> {
  const { pki, name } = options;
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const ctrlEndpoint = options.ctrl ? `tls:127.0.0.1:${await freePort()}` : undefined;
  const config = {
    v: 3,
    db: options.db,
    identity: await controllerIdentity(pki, name),
    edge: {
      api: { address },
      enrollment: { signingCert: { cert: pki.paths.intermediateCert, key: pki.paths.intermediateKey } },
      totp: { encryptionKeyFile: pki.totpKeyFile },
    },
    web: [{ name: 'main', bindPoints: [{ interface: address, address }], apis: [{ binding: 'edge-client' }, { binding: 'edge-management' }] }],
    ...(ctrlEndpoint ? { ctrl: { listener: ctrlEndpoint } } : {}),
  };
  const configFile = join(pki.dir, `${name}.controller.yml`);
  writeFileSync(configFile, stringify(config));
  const baseUrl = `https://${address}`;
  const launch = async () => {
    const cli = spawnCli(['controller', 'run', '--config', configFile]);
    try {
      await cli.waitForOutput(LISTENING, 60_000);
    } catch (error) {
      await cli.stop('SIGKILL');
      throw error;
    }
    return cli;
  };
  let cli = await launch();
  return {
    name,
    baseUrl,
    ctrlEndpoint,
    ca: pki.ca,
    get cli() {
      return cli;
    },
    fetch: (path, requestOptions = {}) => request(path.startsWith('https://') ? path : `${baseUrl}${path}`, { ...requestOptions, ca: pki.ca }),
    async stop(signal = 'SIGTERM') {
      await cli.stop(signal);
    },
    async restart() {
      await cli.stop('SIGTERM');
      cli = await launch();
    },
  };
}
