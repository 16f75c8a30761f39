// `node scripts/bench/log-formats.mjs [--seconds N] [--rounds N] [--connections N]` (after `npm run build`): requests
// per second and controller CPU per request of GET /edge/client/v1/version at SVC_LOG_LEVEL=info with JSON logs,
// with text logs (pino-pretty in process, decision 0076), and with JSON at warn (no request line), in alternating
// rounds on one quickstart home; the log goes to a file, as a service manager's journal would take it. Prints the
// medians and the ratios (CPU per request is the steadier figure on a shared machine).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, generatorName, measured, median, stop, waitFor } from './lib.mjs';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' } } });
const svc = new URL('../../bin/svc.js', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-logs-'));
const home = join(scratch, 'home');
const port = await freePort();
const base = { ...process.env, SVC_ADMIN_PASSWORD: 'bench-password-1', SVC_LOG_LEVEL: 'info' };

// `warn`: JSON at warn, no line per request (the level before issue 44 wrote request lines at debug only).
const variants = { json: { SVC_LOG_FORMAT: 'json' }, text: { SVC_LOG_FORMAT: 'text' }, warn: { SVC_LOG_FORMAT: 'json', SVC_LOG_LEVEL: 'warn' } };

async function controller(variant, args) {
  const log = openSync(join(scratch, `${variant}.log`), 'a');
  return spawn(process.execPath, [svc, ...args], { env: { ...base, ...variants[variant] }, stdio: ['ignore', 'ignore', log] });
}

try {
  // The home, made once by quickstart; every round then runs the controller from its config.
  const first = await controller('json', ['quickstart', '--home', home, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router']);
  const ca = () => readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
  const url = `https://127.0.0.1:${port}/edge/client/v1/version`;
  for (;;) {
    try {
      await waitFor(url, ca(), process.hrtime.bigint(), first);
      break;
    } catch (error) {
      if (first.exitCode !== null) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop(first);
  const results = { json: [], text: [], warn: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const format of round % 2 === 0 ? ['warn', 'json', 'text'] : ['text', 'json', 'warn']) {
      const child = await controller(format, ['controller', 'run', '--config', join(home, 'config.yml')]);
      await waitFor(url, ca(), process.hrtime.bigint(), child);
      results[format].push(await measured(url, ca(), child.pid, { connections: Number(values.connections), seconds: Number(values.seconds), scratch }));
      await stop(child);
    }
  }
  const rps = (f) => median(results[f].map((r) => r.rps));
  const cpu = (f) => median(results[f].map((r) => r.cpuUs));
  console.log(`load: ${generatorName}, ${values.connections} connections, ${values.seconds} s x ${values.rounds} rounds each`);
  for (const f of ['warn', 'json', 'text']) console.log(`${f}: ${rps(f).toFixed(0)} req/s, ${cpu(f).toFixed(0)} us controller CPU per request (median)`);
  console.log(`text/json: ${(rps('text') / rps('json')).toFixed(2)}x req/s, ${(cpu('text') / cpu('json')).toFixed(2)}x CPU per request`);
  console.log(`json/warn: ${(rps('json') / rps('warn')).toFixed(2)}x req/s, ${(cpu('json') / cpu('warn')).toFixed(2)}x CPU per request`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
