/**
 * An in-process controller for one test file, listening on loopback ports over real TLS, on the dialect under
 * test. The config is written as YAML and loaded through the real loader; `modify` adjusts it first.
 * With `inProcess: true` (the fast tier for route behaviour) nothing listens: requests are injected into the app's
 * server (its memory lane, then Fastify, as production answers them), and SQLite runs in memory; use the listening
 * tier for what needs TLS, client certificates, sockets or real client libraries. Fixture builders here return values and never assert.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { startController, type RunningController } from '../../src/app/controller.js';
import { loadControllerConfig } from '../../src/config/load.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';
import { createControllerPki, type PkiPaths } from '../../src/pki/index.js';
import { ensureDefaultAdmin } from '../../src/services/identities/default-admin.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import type { WorkLimiterOptions } from '../../src/services/authentication/work-limiter.js';
import { newMigratedDatabaseTarget, testDialect } from './database.js';
import { injected, request, type TestRequestOptions, type TestResponse } from './https.js';
import { freePort } from './ports.js';

export interface TestController {
  /** `https://127.0.0.1:<port>` of the first bind point. */
  baseUrl: string;
  ports: number[];
  ca: string;
  pki: PkiPaths;
  dir: string;
  running: RunningController;
  /** A request to `path` (absolute URL or path on baseUrl) trusting the controller's CA. */
  fetch(path: string, options?: Omit<TestRequestOptions, 'ca'>): Promise<TestResponse>;
  /** A legacy session token for the default admin. */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

export type ConfigObject = Record<string, any>;

export interface TestControllerOptions {
  /** Extra loopback ports to reserve (available to `modify` as ports[1..]). */
  extraPorts?: number;
  modify?(config: ConfigObject, ports: number[]): void;
  clock?: Clock;
  /** Bounds on concurrent login work, instead of the defaults. */
  authenticationLimits?: WorkLimiterOptions;
  /**
   * The `db` value of an existing store to use (see `newSharedDatabase`), e.g. for a second controller on the first
   * one's database; the caller owns it, so `close` neither drops nor deletes it.
   */
  databaseTarget?: string;
  /** Loopback ports to listen on instead of newly reserved ones (e.g. a restart on the same address). */
  ports?: number[];
  /** Receives the controller's log lines (JSON, level info and up) instead of discarding them. */
  logLines?: string[];
  /** Picks a free loopback port (default: freePort, asking the OS); for tests of the retry when one was taken. */
  pickPort?(): Promise<number>;
  /** No sockets: requests injected into the first bind point's server (memory lane, then Fastify), SQLite in memory. */
  inProcess?: boolean;
}

let pkiCache: { dir: string; paths: PkiPaths } | undefined;

/** One PKI per test process: creating keys is the slow part and they are read-only for tests. */
async function sharedPki(): Promise<PkiPaths> {
  if (!pkiCache) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-test-pki-'));
    pkiCache = { dir, paths: await createControllerPki(dir, { hosts: ['127.0.0.1', 'localhost'], commonName: 'svc-test-controller' }) };
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return pkiCache.paths;
}

/** A new store of the dialect under test for one controller: a PostgreSQL database, or a SQLite file in `dir`. */
async function ownDatabase(dir: string): Promise<{ db: string; drop(): Promise<void> }> {
  const { target, drop } = await newMigratedDatabaseTarget();
  return { db: target.kind === 'postgres' ? target.url : join(dir, 'svc.sqlite'), drop };
}

/** Whether `error` is a listener's refusal of an address another socket took. */
const addressInUse = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === 'EADDRINUSE' || /EADDRINUSE/.test(String((error as Error)?.message));

/** Tries to start a controller on ports it picked this many times before giving up. */
const LISTEN_ATTEMPTS = 3;

export async function startTestController(options: TestControllerOptions = {}): Promise<TestController> {
  const pki = await sharedPki();
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const inMemory = options.inProcess && testDialect === 'sqlite' && options.databaseTarget === undefined;
  const { db, drop } = inMemory
    ? { db: ':memory:', drop: async () => {} }
    : options.databaseTarget !== undefined
      ? { db: options.databaseTarget, drop: async () => {} }
      : await ownDatabase(dir);
  // In process nothing listens, so any port number will do as the address the config and the URLs name. Otherwise
  // a port asked of the OS is released before the controller binds it, and another process may take it meanwhile:
  // the start is then tried again on newly picked ports (ports the caller gave are tried once).
  const given = options.ports !== undefined && options.ports.length > 0;
  const pick = options.pickPort ?? freePort;
  const pickPorts = async () => {
    const ports: number[] = [];
    for (let i = 0; i <= (options.extraPorts ?? 0); i++) ports.push(options.inProcess ? 1280 + i : await pick());
    return ports;
  };
  const startOn = async (ports: number[]) => {
    const address = `127.0.0.1:${ports[0]}`;
    const config: ConfigObject = {
      v: 3,
      db,
      identity: { cert: pki.clientCert, key: pki.clientKey, server_cert: pki.serverCert, server_key: pki.serverKey, ca: pki.caBundle },
      edge: {
        api: { address },
        enrollment: { signingCert: { cert: pki.intermediateCert, key: pki.intermediateKey } },
      },
      web: [{ name: 'main', bindPoints: [{ interface: address, address }], apis: [{ binding: 'edge-client' }, { binding: 'edge-management' }] }],
    };
    options.modify?.(config, ports);
    const file = join(dir, 'controller.yml');
    writeFileSync(file, stringify(config));
    const { config: loaded, diagnostics } = await loadControllerConfig(file, { env: {} });
    if (!loaded) throw new Error(`test config invalid:\n${diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n')}`);
    return startController(loaded, {
      logger: options.logLines ? pino({ level: 'info' }, { write: (line: string) => void options.logLines?.push(line) }) : pino({ level: 'silent' }),
      clock: options.clock ?? systemClock,
      ...(options.authenticationLimits ? { authenticationLimits: options.authenticationLimits } : {}),
      ...(options.inProcess ? { listen: false } : {}),
    });
  };
  let ports = given ? [...(options.ports as number[])] : await pickPorts();
  let running: RunningController;
  for (let attempt = 1; ; attempt++) {
    try {
      running = await startOn(ports);
      break;
    } catch (error) {
      if (given || options.inProcess || attempt >= LISTEN_ATTEMPTS || !addressInUse(error)) {
        await drop();
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      ports = await pickPorts();
    }
  }
  const address = `127.0.0.1:${ports[0]}`;
  const ca = readFileSync(pki.caBundle, 'utf8');
  const baseUrl = `https://${address}`;
  let adminToken: string | undefined;
  return {
    baseUrl,
    ports,
    ca,
    pki,
    dir,
    running,
    fetch: (path, requestOptions = {}) =>
      options.inProcess
        ? injected(running.apps[0]!.app, path.startsWith('https://') ? path.slice(new URL(path).origin.length) : path, requestOptions)
        : request(path.startsWith('https://') ? path : `${baseUrl}${path}`, { ...requestOptions, ca }),
    async adminToken() {
      if (!adminToken) {
        const identities = createIdentityRepository(running.database);
        const { identity } = await ensureDefaultAdmin({ identities, clock: systemClock }, { username: 'admin', password: 'admin-password' });
        adminToken = (await running.services.apiSessions.start(identity.id, 'password', '127.0.0.1')).token;
      }
      return adminToken;
    },
    async close() {
      await running.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
