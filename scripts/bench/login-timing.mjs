#!/usr/bin/env node
// Whether a password login's answer time tells anything (issue 12, point 7; needs `npm run build`): one controller
// (quickstart in a temporary home) answers legacy password logins of four kinds, sent one at a time in shuffled
// order so drift hits every kind alike: an unknown username, a known one with a wrong password, the right password,
// and the right password of an account whose password logins are locked out. Prints the median and the 10th/90th
// percentiles of each, and each median as a ratio to the wrong-password one. A measurement, not a test.
// Options: --samples N per kind (default 60).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, post, readWhenWritten, stop, waitFor } from './lib.mjs';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '60' } } });
const samples = Number(values.samples);
const root = new URL('../..', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'svc-bench-timing-'));
const env = { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: 'bench-password' };
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

let child;
try {
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  child = spawn(process.execPath, [join(root, 'bin/svc.js'), 'quickstart', '--home', home, '--port', String(port)], { env, stdio: 'ignore' });
  const ca = await readWhenWritten(join(home, 'pki/ca-bundle.pem'));
  await waitFor(`${origin}/edge/client/v1/version`, ca, process.hrtime.bigint(), child);
  const login = (username, password) => post(`${origin}/edge/client/v1/authenticate?method=password`, ca, { username, password });
  const token = JSON.parse((await login('admin', 'bench-password')).text).data.token;
  const manage = async (path, body) => JSON.parse((await post(`${origin}/edge/management/v1${path}`, ca, body, { headers: { 'svc-session': token } })).text).data;

  // Two policies that count attempts: one that cannot lock out within the run (timing-user), one that locks out
  // after 3 wrong passwords for an hour (locked-user). Both users are enrolled by updb.
  const policy = async (name, maxAttempts) =>
    manage('/auth-policies', {
      name,
      primary: {
        cert: { allowed: true, allowExpiredCerts: false },
        updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts, lockoutDurationMinutes: 60 },
        extJwt: { allowed: true, allowedSigners: [] },
      },
      secondary: { requireTotp: false, requireExtJwt: null },
    });
  const counting = await policy('counting', 1_000_000);
  const strict = await policy('strict', 3);
  for (const [name, authPolicy] of [['timing-user', counting], ['locked-user', strict]]) {
    const { id } = await manage('/identities', { name, type: 'User', isAdmin: false, authPolicyId: authPolicy.id, enrollment: { updb: name } });
    const detail = JSON.parse((await post(`${origin}/edge/management/v1/identities/${id}`, ca, undefined, { method: 'GET', headers: { 'svc-session': token } })).text).data;
    await post(`${origin}/edge/client/v1/enroll/updb?token=${detail.enrollment.updb.token}`, ca, { password: 'right-password' });
  }
  for (let i = 0; i < 3; i++) await login('locked-user', `wrong-${i}`);

  const kinds = {
    'unknown username': () => login('no-such-user', 'some-password'),
    'known username, wrong password': () => login('timing-user', 'wrong-password'),
    'known username, right password': () => login('timing-user', 'right-password'),
    'locked-out account, right password': () => login('locked-user', 'right-password'),
  };
  const order = Object.keys(kinds).flatMap((kind) => Array(samples).fill(kind));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const times = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
  const statuses = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, {}]));
  for (const kind of order) {
    const started = process.hrtime.bigint();
    const res = await kinds[kind]();
    times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
    statuses[kind][res.status] = (statuses[kind][res.status] ?? 0) + 1;
  }
  const reference = quantile(times['known username, wrong password'], 0.5);
  console.log(`login answer times, ${samples} of each kind in shuffled order (ms: median [p10, p90], ratio of medians to a wrong password)`);
  for (const kind of Object.keys(kinds)) {
    const xs = times[kind];
    console.log(
      `${kind.padEnd(38)} ${quantile(xs, 0.5).toFixed(1)} [${quantile(xs, 0.1).toFixed(1)}, ${quantile(xs, 0.9).toFixed(1)}]  ${(quantile(xs, 0.5) / reference).toFixed(2)}  statuses ${JSON.stringify(statuses[kind])}`,
    );
  }
} finally {
  if (child) await stop(child);
  rmSync(home, { recursive: true, force: true });
}
