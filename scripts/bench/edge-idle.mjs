// Part 3 of `npm run bench -- edge-relay`: what an idle SDK channel costs the router. `count` raw channels as the C SDK
// opens them (TLS with the identity's certificate, ALPN ziti-edge, the Hello with the API session's access token;
// src/channel from dist), all of one OIDC API session (several channels per session, as an SDK on many hosts would
// hold): the router process's RSS before and after, per channel. Beside it, the same number of idle mutual-TLS
// connections held by a bare Node TLS server (tls-relay.mjs holding only) with the same certificates: what TLS and
// a Node socket cost on their own, so the router's figure can be read as that plus its own state.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { rssMiB, stop } from './lib.mjs';

const root = new URL('../..', import.meta.url).pathname;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Opened this many at a time. */
const OPENING = 32;
/** Waited before each RSS reading, for the process to settle (timers, allocator). */
const SETTLE_MS = 5_000;

/**
 * Opens `count` TLS connections to `port` (then `afterTls(socket, i)` on each), `OPENING` at a time, and reads the RSS
 * of `pid` before and after. Resolves with the figures and `close()`.
 */
async function held(pid, port, count, tlsOptions, afterTls = async () => undefined) {
  const sockets = [];
  const failures = [];
  await sleep(SETTLE_MS);
  const before = rssMiB(pid);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: OPENING }, async () => {
      while (next < count) {
        const i = next++;
        const socket = tlsConnect({ host: '127.0.0.1', port, ...tlsOptions });
        socket.on('error', () => undefined);
        try {
          await once(socket, 'secureConnect');
          await afterTls(socket, i);
          sockets.push(socket);
        } catch (error) {
          failures.push(error.message);
          socket.destroy();
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (failures.length > count / 100) throw new Error(`${failures.length} of ${count} connections to port ${port} failed, the first: ${failures[0]}`);
  await sleep(SETTLE_MS);
  const after = rssMiB(pid);
  return { open: sockets.length, failed: failures.length, firstFailure: failures[0], seconds, beforeMiB: before, afterMiB: after, perKiB: ((after - before) * 1024) / sockets.length, close: () => sockets.forEach((s) => s.destroy()) };
}

/** Measures both; resolves with {bare, router} as `held` describes them (closed). */
export async function idleChannels({ overlay, count }) {
  const { dialHello } = await import(join(root, 'dist/channel/index.js'));
  const { readIdentityFile } = await import(join(root, 'dist/sdk/identity-file.js'));
  const { controllerHttp } = await import(join(root, 'dist/sdk/controller-http.js'));
  const { openApiSession } = await import(join(root, 'dist/sdk/api-session.js'));
  const identity = readIdentityFile(overlay.dialer.file);
  const tlsOptions = { cert: identity.certPem, key: identity.keyPem, ca: overlay.ca, ALPNProtocols: ['ziti-edge'] };

  const routerPem = (name) => join(overlay.routerDir, name);
  const holder = spawn(process.execPath, [join(root, 'scripts/bench/tls-relay.mjs'), routerPem('server.cert.pem'), routerPem('router.key.pem'), routerPem('client.cert.pem'), routerPem('router.key.pem'), overlay.caFile, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let bare;
  try {
    const [chunk] = await once(holder.stdout, 'data');
    const port = Number(/ready (\d+)/.exec(String(chunk))[1]);
    bare = await held(holder.pid, port, count, { ...tlsOptions, servername: 'localhost' });
    bare.close();
  } finally {
    await stop(holder);
  }

  const session = await openApiSession({ http: controllerHttp(identity), clientApi: identity.clientApi, auth: 'oidc' });
  try {
    const hello = (i) => ({ contentType: 0, headers: [[1002, Buffer.from(session.token)], [1023, Buffer.from([1])], [7, Buffer.from('edge.default')]], body: `ziti-sdk-c[${i}]@bench` });
    const channels = [];
    const router = await held(overlay.routerPid, overlay.edgePort, count, tlsOptions, async (socket, i) => {
      channels.push((await dialHello(socket, hello(i), { timeoutMs: 30_000, heartbeat: false })).channel);
    });
    for (const channel of channels) channel.close('bench done');
    router.close();
    return { bare, router };
  } finally {
    await session.close();
  }
}
