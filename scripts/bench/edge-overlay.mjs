// The overlay `npm run bench -- edge-relay` measures (issue 42), built the way a user builds one, from the built dist:
// a quickstart controller without its own router (a process), one edge router created through the management API,
// enrolled with `svc router enroll` and run with `svc router run` (a process of its own, so its RSS is its own), the
// policies that let every identity use it for every service, two identities enrolled with `svc edge enroll` (a
// hoster and a dialer, their SDK identity files), and services with Dial and Bind policies for them.
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, moveToPostgres, post, readWhenWritten, stop, waitFor } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
// The enrollment JWT in an entity's detail (an identity's `enrollment.ott.jwt`, a router's `enrollmentJwt`), as the CLI finds it.
const { enrollmentJwtOf: enrollmentJwt } = await import(join(root, 'dist/cli/edge/resource-commands.js'));
const svc = join(root, 'bin/svc.js');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
async function listening(port, limitMs, what) {
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

/**
 * Starts the overlay in `dir` (a new empty folder). Resolves with its addresses, the router's process, the identity files and what to
 * stop. `services`: [{name, encryptionRequired}], each dialled by the dialer and hosted by the hoster.
 */
export async function startOverlay({ dir, store, services, password = 'bench-password' }) {
  // The quickstart home must not exist yet: a folder of its own beside the logs and the router's files.
  const home = join(dir, 'controller');
  const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: password };
  const [port, ctrlPort, edgePort] = [await freePort(), await freePort(), await freePort()];
  const base = `https://127.0.0.1:${port}`;
  const children = [];
  let cluster;
  const spawnLogged = (args, logName) => {
    const child = spawn(process.execPath, [svc, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const log = join(dir, logName);
    writeFileSync(log, '');
    child.stderr.on('data', (c) => writeFileSync(log, c, { flag: 'a' }));
    children.push(child);
    return child;
  };
  const stopAll = async () => {
    for (const child of children.reverse()) await stop(child);
    await cluster?.stop();
  };
  try {
    let controller = spawnLogged(['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(ctrlPort), '--no-router'], 'controller.log');
    // config.yml is written after the PKI: the CA bundle is whole once it exists (read earlier, it may be half written).
    const ca = await Promise.race([
      readWhenWritten(join(home, 'config.yml')).then(() => readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8')),
      new Promise((_, reject) => controller.once('exit', (code) => reject(new Error(`svc quickstart exited ${code}: ${readFileSync(join(dir, 'controller.log'), 'utf8').trim()}`)))),
    ]);
    await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), controller);
    if (store === 'postgres') {
      await stop(controller);
      ({ cluster } = await moveToPostgres(home, svc, env, password));
      controller = spawnLogged(['controller', 'run', '--config', join(home, 'config.yml')], 'controller.log');
      await waitFor(`${base}/edge/client/v1/version`, ca, process.hrtime.bigint(), controller);
    }
    const admin = JSON.parse((await post(`${base}/edge/client/v1/authenticate?method=password`, ca, { username: 'admin', password })).text).data.token;
    const mgmt = async (method, path, body) => {
      const res = await post(`${base}/edge/management/v1${path}`, ca, body, { method, headers: { 'svc-session': admin } });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return JSON.parse(res.text).data;
    };
    const get = (path) => mgmt('GET', path);

    // The router: created, enrolled by its own command, run as its own process.
    const router = await mgmt('POST', '/edge-routers', { name: 'bench-router', roleAttributes: ['bench'], isTunnelerEnabled: false });
    const routerDir = join(dir, 'router');
    const routerFile = join(dir, 'router.yml');
    mkdirSync(routerDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'router.jwt'), enrollmentJwt(await get(`/edge-routers/${router.id}`)));
    writeFileSync(
      routerFile,
      [
        'v: 3',
        `identity: { cert: ${routerDir}/client.cert.pem, server_cert: ${routerDir}/server.cert.pem, key: ${routerDir}/router.key.pem, ca: ${routerDir}/ca-bundle.pem }`,
        `ctrl: { endpoint: "tls:127.0.0.1:${ctrlPort}" }`,
        'csr: { sans: { dns: [localhost], ip: [127.0.0.1] } }',
        'edge: {}',
        `listeners: [{ binding: edge, address: "tls:127.0.0.1:${edgePort}", advertise: "127.0.0.1:${edgePort}" }]`,
        '',
      ].join('\n'),
    );
    await svcCommand(['router', 'enroll', '--jwt', join(dir, 'router.jwt'), '--config', routerFile], env);
    const routerChild = spawnLogged(['router', 'run', '--config', routerFile], 'router.log');
    await mgmt('POST', '/edge-router-policies', { name: 'bench-all-identities', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
    await mgmt('POST', '/service-edge-router-policies', { name: 'bench-all-services', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });

    // The two identities, enrolled as an SDK user enrolls one.
    const identity = async (name) => {
      const created = await mgmt('POST', '/identities', { name, type: 'Device', isAdmin: false, enrollment: { ott: true } });
      const jwtFile = join(dir, `${name}.jwt`);
      writeFileSync(jwtFile, enrollmentJwt(await get(`/identities/${created.id}`)));
      const file = join(dir, `${name}.json`);
      await svcCommand(['edge', 'enroll', jwtFile, '-o', file], env);
      return { id: created.id, name, file };
    };
    const hoster = await identity('bench-hoster');
    const dialer = await identity('bench-dialer');
    for (const service of services) {
      const created = await mgmt('POST', '/services', { name: service.name, encryptionRequired: service.encryptionRequired });
      await mgmt('POST', '/service-policies', { name: `${service.name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${dialer.id}`], serviceRoles: [`@${created.id}`] });
      await mgmt('POST', '/service-policies', { name: `${service.name}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${hoster.id}`], serviceRoles: [`@${created.id}`] });
    }

    await listening(edgePort, 30_000, 'the router edge listener');
    const until = Date.now() + 30_000;
    while (!(await get(`/edge-routers/${router.id}`)).isOnline) {
      if (routerChild.exitCode !== null) throw new Error(`the router exited ${routerChild.exitCode}: ${readFileSync(join(dir, 'router.log'), 'utf8').trim()}`);
      if (Date.now() > until) throw new Error('the router is not online after 30 s');
      await sleep(100);
    }
    return { base, ca, caFile: join(home, 'pki', 'ca-bundle.pem'), edgePort, controllerPid: controller.pid, routerPid: routerChild.pid, routerFile, routerDir, hoster, dialer, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
