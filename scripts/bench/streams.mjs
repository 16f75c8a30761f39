// What the traffic benches (edge-relay.mjs: one router; fabric.mjs: routers joined by links) move through a path and
// how they time it: one stream of N bytes in 1 MiB writes with backpressure, read at the far end (optionally hashed),
// with the CPU each process of the path spent per MiB, read from /proc. Both ends of a path live in the bench
// process; the hops between them each in their own.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as tlsServer } from 'node:tls';
import { processCpuMs } from './cpu-budget.mjs';

const here = new URL('.', import.meta.url).pathname;

export const MiB = 1_048_576;

/** A `pem:` or `file:` value of an SDK identity file. */
const pemOf = (value) => (value.startsWith('pem:') ? value.slice(4) : readFileSync(value.replace(/^file:/, ''), 'utf8'));
/** The certificate, key and CA bundle of an SDK identity file, for a bare TLS client with the same credentials. */
export const identityPems = (file) => {
  const { id } = JSON.parse(readFileSync(file, 'utf8'));
  return { cert: pemOf(id.cert), key: pemOf(id.key), ca: pemOf(id.ca) };
};

/** Hands each connection a listener accepts to the next waiter (or keeps it until one asks). */
export function acceptQueue() {
  const ready = [];
  const waiting = [];
  return {
    push(conn) {
      const waiter = waiting.shift();
      if (waiter) waiter(conn);
      else ready.push(conn);
    },
    next: () => (ready.length > 0 ? Promise.resolve(ready.shift()) : new Promise((resolve) => waiting.push(resolve))),
  };
}

const BLOCK = randomBytes(MiB);
/** Writes `bytes` in 1 MiB writes, waiting for drain when asked to, then ends. */
async function send(stream, bytes) {
  for (let sent = 0; sent < bytes; sent += BLOCK.length) {
    if (!stream.write(bytes - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, bytes - sent))) await once(stream, 'drain');
  }
  stream.end();
}
/** The SHA-256 of what `send` writes. */
function sentDigest(bytes) {
  const hash = createHash('sha256');
  for (let sent = 0; sent < bytes; sent += BLOCK.length) hash.update(bytes - sent >= BLOCK.length ? BLOCK : BLOCK.subarray(0, bytes - sent));
  return hash.digest('hex');
}
/** Reads until `bytes` arrived (or the stream ends); resolves with the count, the time of the last byte and, if asked, the SHA-256. */
function receive(stream, bytes, withHash) {
  return new Promise((resolve, reject) => {
    const hash = withHash ? createHash('sha256') : undefined;
    let count = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ count, at: performance.now(), digest: hash?.digest('hex') });
    };
    stream.on('data', (chunk) => {
      count += chunk.length;
      hash?.update(chunk);
      if (count >= bytes) finish();
    });
    stream.once('end', finish);
    stream.once('error', (error) => (done ? undefined : reject(error)));
  });
}

/**
 * One stream of `bytes` from a connection `open()` makes to the one `accepted()` answers, checking the hash when
 * asked. `pids`: {name: pid} of the processes whose CPU counts (the hops, and this process for both ends). Resolves
 * with MiB/s and `msPerMiB` {name: CPU ms per MiB}.
 */
export async function transfer(label, { open, accepted, pids }, bytes, check = false) {
  const far = accepted();
  const near = await open();
  const receiving = receive(await far, bytes, check);
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
  const start = performance.now();
  await send(near, bytes);
  const got = await receiving;
  const mib = bytes / MiB;
  const msPerMiB = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, (processCpuMs(pid) - before[name]) / mib]));
  near.destroy();
  if (got.count !== bytes) throw new Error(`${label}: ${got.count} of ${bytes} bytes arrived`);
  if (check && got.digest !== sentDigest(bytes)) throw new Error(`${label}: the bytes that arrived differ from those sent (SHA-256)`);
  return { mibps: mib / ((got.at - start) / 1000), msPerMiB };
}

/** Throughput as the tables print it: MiB/s and Mbit/s. */
export const rateText = (mibps) => `${mibps.toFixed(1)} MiB/s (${((mibps * MiB * 8) / 1e6).toFixed(0)} Mbit/s)`;

/**
 * A bare TLS server that requires a client certificate of `ca` (`routerDir`'s server certificate and key: the
 * router's own), handing each accepted socket to `queue.next()`. The far end of the baselines.
 */
export async function tlsSink(routerDir, ca) {
  const queue = acceptQueue();
  const server = tlsServer({ cert: readFileSync(join(routerDir, 'server.cert.pem')), key: readFileSync(join(routerDir, 'router.key.pem')), ca, requestCert: true, rejectUnauthorized: true }, (socket) => {
    socket.on('error', () => undefined);
    queue.push(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: server.address().port, next: queue.next, close: () => server.close() };
}

/**
 * A bare TLS relay process (tls-relay.mjs) with a router's certificates (`routerDir`: its server certificate toward
 * what connects, its client certificate toward `targetPort`): the hop a router is in the baselines. Resolves
 * {child, port}; stop the child when done.
 */
export async function tlsRelayProcess(routerDir, caFile, targetPort) {
  const pem = (name) => join(routerDir, name);
  const child = spawn(process.execPath, [join(here, 'tls-relay.mjs'), pem('server.cert.pem'), pem('router.key.pem'), pem('client.cert.pem'), pem('router.key.pem'), caFile, String(targetPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => resolve(Number(/ready (\d+)/.exec(String(c))?.[1])));
    child.once('exit', (code) => reject(new Error(`tls-relay.mjs exited ${code} before it listened`)));
  });
  return { child, port };
}

/** Opens mutual TLS to 127.0.0.1:`port` with `client` ({cert, key}, identityPems) and `ca`; resolves once connected. */
export async function tlsClient(port, client, ca) {
  const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', cert: client.cert, key: client.key, ca });
  await once(socket, 'secureConnect');
  return socket;
}
