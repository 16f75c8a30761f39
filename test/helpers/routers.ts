/**
 * Edge routers for tests (issue 41): a router created through the management API, enrolled with its one-time token
 * and a key and CSRs made by openssl (as a router does: one key, two CSRs, the client one named by the router id),
 * its identity files and a router configuration file written to a folder of its own. The router then runs in this
 * process (`startRouter`) or as a real `svc router run` process. Builders return values and never assert.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { stringify } from 'yaml';
import { startRouter, type RunningRouter } from '../../src/router/run.js';
import { createdId, type ManagementClient } from './management.js';
import { opensslCsr, opensslFingerprint, opensslKey } from './openssl.js';
import type { TestResponse } from './https.js';
import { freePort } from './ports.js';

export interface EnrolledRouter {
  id: string;
  name: string;
  dir: string;
  configPath: string;
  keyPem: string;
  certPem: string;
  fingerprint: string;
  /** The loopback port its edge listener binds (free when the router was enrolled). */
  edgePort: number;
  /** Removes the router's folder. */
  remove(): void;
}

/** Fast timings so that tests see state changes in a fraction of a second. */
export const FAST_CTRL = {
  heartbeats: { sendInterval: '200ms', checkInterval: '50ms', closeUnresponsiveTimeout: '5s' },
  options: { connectTimeout: '2s', reconnect: { minRetryInterval: '50ms', maxRetryInterval: '500ms', retryBackoffFactor: 2 } },
};

export interface RouterFileOptions {
  /** `tls:host:port` of the controller(s). */
  endpoints: string[];
  /** Advertised edge listener host:port (default er-<name>.example:3022). */
  advertise?: string;
  /** The port the edge listener binds on 127.0.0.1 (default: the router's own edgePort). */
  edgePort?: number;
  /** Options of the edge listener (limits and timeouts). */
  edgeOptions?: Record<string, unknown>;
  /** Extra top-level keys (e.g. `web`, `healthChecks`), merged over the defaults. */
  extra?: Record<string, unknown>;
}

let edgePortCounter = 0;
/** A port below Linux's ephemeral range, spread by process id so parallel test files rarely meet. */
function fallbackEdgePort(): number {
  return 20_000 + ((process.pid * 97 + edgePortCounter++ * 13) % 12_000);
}

/** Writes the router's configuration file (v3, identity files in its folder, fast control timings). */
export function writeRouterFile(router: Pick<EnrolledRouter, 'dir' | 'name'> & { edgePort?: number }, options: RouterFileOptions): string {
  const edgePort = options.edgePort ?? router.edgePort ?? fallbackEdgePort();
  const config: Record<string, unknown> = {
    v: 3,
    identity: { cert: 'client.pem', server_cert: 'server.pem', key: 'key.pem', ca: 'ca.pem' },
    ctrl: { ...(options.endpoints.length === 1 ? { endpoint: options.endpoints[0] } : { endpoints: options.endpoints }), ...FAST_CTRL },
    csr: { sans: { dns: [`${router.name}.routers.test`] } },
    edge: {},
    listeners: [{ binding: 'edge', address: `tls:127.0.0.1:${edgePort}`, advertise: options.advertise ?? `er-${router.name}.example:3022`, ...(options.edgeOptions ? { options: options.edgeOptions } : {}) }],
    ...options.extra,
  };
  const path = join(router.dir, 'router.yml');
  writeFileSync(path, stringify(config));
  return path;
}

/**
 * Creates router `name` (management API), enrolls it with openssl-made key and CSRs and writes its files. The
 * returned router has no configuration file until `writeRouterFile`, unless `file` is given.
 */
export async function enrolledRouter(
  admin: ManagementClient,
  enroll: (token: string, body: object) => Promise<TestResponse>,
  name: string,
  file?: RouterFileOptions,
  /** serverSans: more names for its server certificate (`IP:127.0.0.1` for SDKs that connect to the advertised address). */
  options: { serverSans?: string[] } = {},
): Promise<EnrolledRouter> {
  const id = await createdId(admin, '/edge-routers', { name, isTunnelerEnabled: false });
  const detail = (await admin.get(`/edge-routers/${id}`)).json().data;
  const keyPem = opensslKey();
  const res = await enroll(detail.enrollmentToken, { certCsr: opensslCsr(keyPem, id), serverCertCsr: opensslCsr(keyPem, id, [`DNS:${name}.routers.test`, ...(options.serverSans ?? [])]) });
  if (res.status !== 200) throw new Error(`router enrollment failed: ${res.status} ${res.text}`);
  const { cert, serverCert, ca } = res.json().data as { cert: string; serverCert: string; ca: string };
  const dir = mkdtempSync(join(tmpdir(), `svc-router-${name}-`));
  const edgePort = await freePort();
  writeFileSync(join(dir, 'client.pem'), cert);
  writeFileSync(join(dir, 'server.pem'), serverCert);
  writeFileSync(join(dir, 'key.pem'), keyPem, { mode: 0o600 });
  writeFileSync(join(dir, 'ca.pem'), ca);
  const router: EnrolledRouter = {
    id,
    name,
    dir,
    configPath: join(dir, 'router.yml'),
    keyPem,
    certPem: cert,
    fingerprint: opensslFingerprint(cert),
    edgePort,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  if (file) writeRouterFile(router, file);
  return router;
}

/** A router started in this process, its log lines collected (JSON, level debug and up). */
export async function runRouterInProcess(router: EnrolledRouter, lines: string[] = []): Promise<{ running: RunningRouter; lines: string[]; log: Logger }> {
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const running = await startRouter(router.configPath, { log, env: {}, build: { version: '0.0.0-test', revision: 'test', buildDate: 'now' } });
  return { running, lines, log };
}

/** Polls `check` every 20 ms until it is true or `timeoutMs` passed; resolves with whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
