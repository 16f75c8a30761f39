/**
 * `svc quickstart`: the first run makes a home folder with a PKI, a controller config file, a SQLite database
 * and the default admin; later runs reuse it unchanged. The config file is written last, so a run interrupted
 * half-way is recognised (no config.yml) and refused rather than half-reused.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { newSecretsKeyText } from '../crypto/secret-box.js';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { openDatabase } from '../persistence/database.js';
import { createIdentityRepository } from '../persistence/repositories/identities.js';
import { createControllerPki } from '../pki/index.js';
import { ensureDefaultAdmin } from '../services/identities/default-admin.js';
import { systemClock, type Clock } from '../shared/clock.js';

export interface QuickstartOptions {
  home: string;
  host: string;
  port: number;
  /** The control-plane port routers connect to (DEFAULT_CTRL_PORT unless given). */
  ctrlPort?: number;
  adminUser: string;
  adminPassword: string;
  clock?: Clock;
  /** Told before each step that may take a second or more, so that a first run does not look stuck. */
  progress?: (step: string) => void;
}

export interface QuickstartHome {
  configFile: string;
  caBundle: string;
  /** False when an existing home was reused as it was. */
  created: boolean;
}

export const QUICKSTART_CONFIG = 'config.yml';
/** Upstream's conventional control-plane port. */
export const DEFAULT_CTRL_PORT = 6262;

/** Creates the quickstart home unless it exists; never changes an existing one. */
export async function prepareQuickstartHome(options: QuickstartOptions): Promise<QuickstartHome> {
  const configFile = join(options.home, QUICKSTART_CONFIG);
  const caBundle = join(options.home, 'pki', 'ca-bundle.pem');
  if (existsSync(configFile)) return { configFile, caBundle, created: false };
  if (existsSync(options.home) && readdirSync(options.home).length > 0) {
    throw new Error(`${options.home} exists but holds no ${QUICKSTART_CONFIG} (an interrupted first run?): remove it or choose another --home`);
  }
  mkdirSync(options.home, { recursive: true, mode: 0o700 });
  const clock = options.clock ?? systemClock;
  options.progress?.(`creating ${options.home}: the PKI (root and intermediate CAs, server and client certificates)…`);
  await createControllerPki(join(options.home, 'pki'), { hosts: [options.host], commonName: 'svc-controller', clock });
  mkdirSync(join(options.home, 'db'), { mode: 0o700 });
  // Seals TOTP secrets and recovery codes at rest; kept apart from the database so that a copy of one is not enough.
  writeFileSync(join(options.home, 'pki', 'totp-secrets.key'), newSecretsKeyText(), { mode: 0o600 });

  options.progress?.('creating the SQLite store and the default admin (hashing its password)…');
  const database = await openDatabase({ kind: 'sqlite', path: join(options.home, 'db', 'svc.sqlite') });
  try {
    await ensureDefaultAdmin({ identities: createIdentityRepository(database), clock }, { username: options.adminUser, password: options.adminPassword });
  } finally {
    await database.close();
  }
  writeFileSync(configFile, quickstartConfigYaml(options.host, options.port, options.ctrlPort ?? DEFAULT_CTRL_PORT), { mode: 0o600 });
  return { configFile, caBundle, created: true };
}

/** The config file quickstart writes: every path relative to the home folder, so the folder can move. */
function quickstartConfigYaml(host: string, port: number, ctrlPort: number): string {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  const address = `${bracketed}:${port}`;
  const config = {
    v: 3,
    db: 'db/svc.sqlite',
    identity: {
      cert: 'pki/client.chain.pem',
      key: 'pki/client.key.pem',
      server_cert: 'pki/server.chain.pem',
      server_key: 'pki/server.key.pem',
      ca: 'pki/ca-bundle.pem',
    },
    // Routers connect here with mutual TLS (decision 0065).
    ctrl: { listener: `tls:${bracketed}:${ctrlPort}` },
    edge: {
      api: { address, sessionTimeout: '30m' },
      enrollment: {
        signingCert: { cert: 'pki/intermediate.cert.pem', key: 'pki/intermediate.key.pem', ca: 'pki/ca-bundle.pem' },
        edgeIdentity: { duration: '180m' },
        // A quickstart runs its routers on the controller's machine, naming localhost (decision 0056).
        edgeRouter: { duration: '180m', allowLocalNames: true },
      },
      oidc: { accessTokenDuration: '30m', idTokenDuration: '30m', refreshTokenDuration: '24h' },
      totp: { encryptionKeyFile: 'pki/totp-secrets.key' },
    },
    web: [
      {
        name: 'default',
        bindPoints: [{ interface: address, address }],
        apis: [{ binding: 'edge-client' }, { binding: 'edge-management' }],
      },
    ],
  };
  const header = [
    '# Written by `svc quickstart`; edit freely, then check with `svc controller check <this file>`.',
    "# edge.enrollment.edgeRouter.allowLocalNames is true here only: routers on this machine may then hold server",
    "# certificates naming localhost, loopback addresses and this controller's host names. Set it to false (the",
    '# default) once routers run elsewhere, so that no router certificate can pose as this controller.',
  ];
  return `${header.join('\n')}\n${stringify(config)}`;
}
