// Revocation propagation between two controllers for `npm run bench` (issue 17): a legacy session logged in at A and
// in use at B (so B keeps it in memory) is logged out at A; the time from A's answer (the commit is before it) to B's
// first refusal, polled back to back. Prints JSON { p50, p99, max, samples } in ms. Loopback only.
import { Agent, request } from 'node:https';

const [originA, originB, ca, samples = '50', username, password] = process.argv.slice(2);
for (const origin of [originA, originB]) if (!/^https:\/\/(127\.0\.0\.1|localhost)[:/]/.test(origin)) throw new Error('propagation.mjs only targets loopback');
const agent = new Agent({ keepAlive: true, maxSockets: 4, ca });

function call(origin, method, path, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent, method, headers: body ? { ...headers, 'content-type': 'application/json' } : headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const times = [];
for (let i = 0; i < Number(samples); i++) {
  const login = await call(originA, 'POST', '/edge/client/v1/authenticate?method=password', {}, JSON.stringify({ username, password }));
  if (login.status !== 200) throw new Error(`login failed: ${login.text}`);
  const headers = { 'svc-session': JSON.parse(login.text).data.token };
  for (let warm = 0; warm < 3; warm++) {
    const used = await call(originB, 'GET', '/edge/client/v1/current-api-session', headers);
    if (used.status !== 200) throw new Error(`the session is not usable at B: ${used.text}`);
  }
  const out = await call(originA, 'DELETE', '/edge/client/v1/current-api-session', headers);
  if (out.status !== 200) throw new Error(`logout failed: ${out.text}`);
  const committed = process.hrtime.bigint();
  for (;;) {
    const seen = await call(originB, 'GET', '/edge/client/v1/current-api-session', headers);
    if (seen.status === 401) break;
    if (Number(process.hrtime.bigint() - committed) / 1e6 > 10_000) throw new Error('B still accepts the session 10 s after the logout');
  }
  times.push(Number(process.hrtime.bigint() - committed) / 1e6);
}
agent.destroy();
times.sort((a, b) => a - b);
const pct = (p) => times[Math.min(times.length - 1, Math.floor((times.length * p) / 100))];
process.stdout.write(JSON.stringify({ p50: pct(50), p99: pct(99), max: times[times.length - 1], samples: times.length }));
