// The pieces the overlay benches (edge-overlay.mjs: one router; fabric-overlay.mjs: routers joined by links) build
// an overlay from, each the way a user does it, from the built dist: a quickstart controller without its own router
// (a process), routers created through the management API, enrolled with `svc router enroll` and run with
// `svc router run` (each a process of its own, so its RSS and CPU are its own), and identities enrolled with
// `svc edge enroll` (their SDK identity files).
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, moveToPostgres, post, readWhenWritten, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
// The enrollment JWT in an entity's detail (an identity's `enrollment.ott.jwt`, a router's `enrollmentJwt`), as the CLI finds it.
const { enrollmentJwtOf: enrollmentJwt } = await import(join(root, 'dist/cli/edge/resource-commands.js'));
const svc = join(root, 'bin/svc.js');
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** svc/sdk from dist, for the benches' SDK ends. */
export const loadSdk = () =>
  import(join(root, 'dist/sdk/index.js')).catch((error) => {
    throw new Error(`the SDK is not in dist (${error.message}): npm run build, with src/sdk present`);
  });

/** Prints a bench's table (`rows`: [name, value]), the command that repeats it and its JSON result line. */
export function printReport(title, rows, result, command) {
  const width = Math.max(...rows.map(([name]) => name.length)) + 1;
  console.log(`\n${title}\n`);
  for (const [name, value] of rows) console.log(`${name.padEnd(width)} ${value}`);
  console.log(`\nrepeat: ${command}`);
  console.log(JSON.stringify({ ...result, command }));
}

/** Runs `svc ARGS` to its end; rejects with its output when it fails. */
function svcCommand(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [svc, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svc ${args.slice(0, 2).join(' ')} exited ${code}: ${out.trim()}`))));
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
export async function listening(port, limitMs, what) {
  const until = Date.now() + limitMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = createConnection(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`${what} not listening on port ${port} after ${limitMs} ms`);
    await sleep(50);
  }
}

/** Polls `check()` every 100 ms until it is true; throws `what` after `limitMs`, or at once when `failed()` says why. */
export async function until(check, limitMs, what, failed = () => undefined) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    const why = failed();
    if (why) throw new Error(why);
    if (Date.now() > deadline) throw new Error(`${what} after ${limitMs} ms`);
    await sleep(100);
  }
}

/**
 * Starts a quickstart controller (no router) in `dir`, moved to PostgreSQL when `store` says so, and logs the admin
 * in. Resolves with its addresses, `mgmt(method, path, body)` for the management API, `spawnSvc(args, logName)` for
 * further `svc` processes of the overlay (stopped with it), `enrollRouter` and `enrollIdentity`, and `stop`.
 */
export async function startController({ dir, store, password = 'bench-password' }) {
  // The quickstart home must not exist yet: a folder of its own beside the logs and the routers' files.
  const home = join(dir, 'controller');
  const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: password };
  const [port, ctrlPort] = [await freePort(), await freePort()];
  const base = `https://127.0.0.1:${port}`;
  const children = new Set();
  let cluster;
  const spawnSvc = (args, logName) => {
    const child = spawn(process.execPath, [svc, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const log = join(dir, logName);
    writeFileSync(log, '');
    child.stderr.on('data', (c) => writeFileSync(log, c, { flag: 'a' }));
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const stopAll = async () => {
    for (const child of [...children].reverse()) await stop(child);
    await cluster?.stop();
  };
  try {
    let controller = spawnSvc(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(ctrlPort), '--no-router'], 'controller.log');
    // config.yml is written after the PKI: the CA bundle is whole once it exists (read earlier, it may be half written).
    const ca = await Promise.race([
      readWhenWritten(join(home, 'config.yml')).then(() => readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8')),
      new Promise((_, reject) => controller.once('exit', (code) => reject(new Error(`svc quickstart exited ${code}: ${readFileSync(join(dir, 'controller.log'), 'utf8').trim()}`)))),
    ]);
    await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), controller);
    if (store === 'postgres') {
      await stop(controller);
      ({ cluster } = await moveToPostgres(home, svc, env, password));
      controller = spawnSvc(['controller', 'run', '--config', join(home, 'config.yml')], 'controller.log');
      await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), controller);
    }
    const admin = JSON.parse((await post(`${base}/edge/client/v1/authenticate?method=password`, ca, { username: 'admin', password })).text).data.token;
    const mgmt = async (method, path, body) => {
      const res = await post(`${base}/edge/management/v1${path}`, ca, body, { method, headers: { 'svc-session': admin } });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return JSON.parse(res.text).data;
    };

    /**
     * Creates router `name` (management API), writes its file with an edge listener on a free port plus `file`'s
     * other keys (`listeners` are added after the edge one), and enrolls it. `run()` starts its process and resolves
     * once the controller sees it online; `kill(signal)` ends it.
     */
    const enrollRouter = async (name, { roleAttributes = [], isTunnelerEnabled = false, file = {} } = {}) => {
      const router = await mgmt('POST', '/edge-routers', { name, roleAttributes, isTunnelerEnabled });
      const edgePort = await freePort();
      const routerDir = join(dir, name);
      const routerFile = join(dir, `${name}.yml`);
      mkdirSync(routerDir, { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, `${name}.jwt`), enrollmentJwt(await mgmt('GET', `/edge-routers/${router.id}`)));
      const { listeners = [], ...rest } = file;
      const yaml = {
        v: 3,
        identity: { cert: `${routerDir}/client.cert.pem`, server_cert: `${routerDir}/server.cert.pem`, key: `${routerDir}/router.key.pem`, ca: `${routerDir}/ca-bundle.pem` },
        ctrl: { endpoint: `tls:127.0.0.1:${ctrlPort}` },
        csr: { sans: { dns: ['localhost'], ip: ['127.0.0.1'] } },
        edge: {},
        listeners: [{ binding: 'edge', address: `tls:127.0.0.1:${edgePort}`, advertise: `127.0.0.1:${edgePort}` }, ...listeners],
        ...rest,
      };
      // JSON is YAML: one line per key keeps the file readable when a run fails.
      writeFileSync(routerFile, `${Object.entries(yaml).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n')}\n`);
      await svcCommand(['router', 'enroll', '--jwt', join(dir, `${name}.jwt`), '--config', routerFile], env);
      const entry = { id: router.id, name, edgePort, routerDir, routerFile, child: undefined };
      entry.run = async () => {
        const child = spawnSvc(['router', 'run', '--config', routerFile], `${name}.log`);
        entry.child = child;
        await listening(edgePort, 30_000, `router ${name}'s edge listener`);
        const exited = () => (child.exitCode !== null ? `router ${name} exited ${child.exitCode}: ${readFileSync(join(dir, `${name}.log`), 'utf8').trim()}` : undefined);
        await until(async () => (await mgmt('GET', `/edge-routers/${router.id}`)).isOnline, 30_000, `router ${name} is not online`, exited);
        return child;
      };
      entry.kill = async (signal = 'SIGKILL') => {
        const child = entry.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await exited;
      };
      return entry;
    };

    /** Creates an identity (type Device) and enrolls it as an SDK user does; resolves its id, name and file. */
    const enrollIdentity = async (name) => {
      const created = await mgmt('POST', '/identities', { name, type: 'Device', isAdmin: false, enrollment: { ott: true } });
      const jwtFile = join(dir, `${name}.jwt`);
      writeFileSync(jwtFile, enrollmentJwt(await mgmt('GET', `/identities/${created.id}`)));
      const file = join(dir, `${name}.json`);
      await svcCommand(['edge', 'enroll', jwtFile, '-o', file], env);
      return { id: created.id, name, file };
    };

    return { base, ca, caFile: join(home, 'pki', 'ca-bundle.pem'), controllerPid: controller.pid, mgmt, enrollRouter, enrollIdentity, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
