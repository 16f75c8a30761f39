#!/usr/bin/env node
// How long slow clients can hold a listener (issue 12, point 4; needs `npm run build`): a quickstart controller on
// loopback gets, from three client addresses, --count connections each that never start TLS, that send their headers
// a byte a second, and that send a declared 1 MB body a byte a second. Prints, per kind, how many the controller
// closed and when (median and last), and the answer time of GET /version asked meanwhile from a fourth address.
// Every connection and loop is bounded: the script gives up after --limit seconds and closes what is left.
// Options: --count N per kind (default 100), --limit S (default 45).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'node:https';
import { freePort, readWhenWritten, stop, waitFor } from './lib.mjs';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100' }, limit: { type: 'string', default: '45' } } });
const count = Number(values.count);
const limitMs = Number(values.limit) * 1000;
const root = new URL('../..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'svc-bench-slow-'));
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Opens one connection of `kind` from `localAddress`; resolves with ms until the server closed it, or null. */
function slowConnection(kind, port, ca, localAddress, started) {
  return new Promise((resolve) => {
    const timers = [];
    let settled = false;
    const done = (socket, closedByServer) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearInterval(t);
      socket.destroy();
      resolve(closedByServer ? Date.now() - started : null);
    };
    const trickle = (socket, text) => {
      let i = 0;
      timers.push(setInterval(() => socket.write(text[i++ % text.length]), 1000));
    };
    const socket =
      kind === 'no TLS handshake'
        ? tcpConnect({ host: '127.0.0.1', port, localAddress })
        : tlsConnect({ host: '127.0.0.1', port, localAddress, ca, servername: 'localhost' }, () => {
            if (kind === 'slow headers') {
              socket.write('GET /edge/client/v1/version HTTP/1.1\r\n');
              trickle(socket, 'x-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n');
            } else {
              socket.write('POST /edge/client/v1/authenticate?method=password HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n');
              trickle(socket, '{');
            }
          });
    // Read what the server sends (its 408): a paused socket would never see the close that follows it.
    socket.resume();
    socket.on('error', () => done(socket, true));
    socket.on('close', () => done(socket, true));
    socket.on('end', () => done(socket, true));
    timers.push(setTimeout(() => done(socket, false), limitMs));
  });
}

function versionTime(port, ca) {
  return new Promise((resolve) => {
    const t = Date.now();
    const req = request({ host: '127.0.0.1', port, path: '/edge/client/v1/version', ca, servername: 'localhost', localAddress: '127.0.0.9', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? Date.now() - t : null));
    });
    req.on('error', () => resolve(null));
    req.end();
  });
}

let child;
try {
  const port = await freePort();
  child = spawn(process.execPath, [join(root, 'bin/svc.js'), 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  const ca = await readWhenWritten(join(home, 'pki/ca-bundle.pem'));
  await waitFor(`https://127.0.0.1:${port}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);

  const kinds = ['no TLS handshake', 'slow headers', 'slow body'];
  const started = Date.now();
  const attacks = kinds.map((kind, k) => Promise.all(Array.from({ length: count }, () => slowConnection(kind, port, ca, `127.0.0.${k + 2}`, started))));
  const answers = [];
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    answers.push(await versionTime(port, ca));
  }
  const results = await Promise.all(attacks);
  console.log(`${count} slow connections of each kind from one address each; limit ${limitMs / 1000} s`);
  results.forEach((closedAt, k) => {
    const closed = closedAt.filter((ms) => ms !== null);
    const when = closed.length ? `median ${(median(closed) / 1000).toFixed(1)} s, last ${(Math.max(...closed) / 1000).toFixed(1)} s` : 'none';
    console.log(`${kinds[k].padEnd(18)} closed by the controller: ${closed.length}/${count} (${when})`);
  });
  const ok = answers.filter((ms) => ms !== null);
  console.log(`GET /version meanwhile: ${ok.length}/${answers.length} answered, median ${median(ok)} ms, slowest ${Math.max(...ok)} ms`);
} finally {
  if (child) await stop(child);
  rmSync(home, { recursive: true, force: true });
}
