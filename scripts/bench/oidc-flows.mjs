// OIDC throughput for `npm run bench`, in a process of its own, with `concurrency` flows in flight; prints JSON.
// `what` = logins: complete PKCE logins per second (authorization request -> password login -> code exchange), the
// generator used when wrk is not installed (pkce-wrk.mjs otherwise); `what` = refreshes: refresh grants per second
// (each worker rotates its own refresh token) and an access token for the routes measured after; `what` = seeds:
// one live refresh token per flow and an access token, for wrk's refresh grants (refresh-wrk.mjs). Loopback only,
// bounded in time.
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:https';

const [origin, ca, concurrency = '10', seconds = '5', username, password, what = 'logins'] = process.argv.slice(2);
if (!/^https:\/\/(127\.0\.0\.1|localhost)[:/]/.test(origin)) throw new Error('oidc-flows.mjs only targets loopback');
const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency), ca });
const redirectUri = 'http://127.0.0.1:9/auth/callback';

function call(method, path, { body, type } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent, method, headers: body ? { 'content-type': type } : {} }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, location: res.headers.location, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const form = (fields) => new URLSearchParams(fields).toString();

async function login() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = form({ response_type: 'code', client_id: 'svc', redirect_uri: redirectUri, scope: 'openid offline_access', state: 's', nonce: 'n', code_challenge: challenge, code_challenge_method: 'S256' });
  const authorize = await call('GET', `/oidc/authorization?${query}`);
  const authRequestId = new URL(authorize.location, origin).searchParams.get('authRequestID');
  const loggedIn = await call('POST', '/oidc/login/password', { body: JSON.stringify({ authRequestId, username, password }), type: 'application/json' });
  // The login answers with the provider's callback (as the reference does), which redirects to the client with the code.
  const callback = new URL(loggedIn.location, origin);
  const redirected = callback.origin === origin ? (await call('GET', callback.pathname + callback.search)).location : loggedIn.location;
  const code = new URL(redirected).searchParams.get('code');
  const tokens = await call('POST', '/oidc/token', { body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'svc', code_verifier: verifier }), type: 'application/x-www-form-urlencoded' });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${tokens.text}`);
  return JSON.parse(tokens.text);
}

async function measure(work) {
  const deadline = Date.now() + Number(seconds) * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async (_, worker) => {
      const state = { worker };
      while (Date.now() < deadline) {
        await work(state);
        done++;
      }
    }),
  );
  return { rate: done / ((Date.now() - started) / 1000), done };
}

if (what === 'logins') {
  const { rate: logins, done: units } = await measure(() => login());
  agent.destroy();
  process.stdout.write(JSON.stringify({ logins, units }));
  process.exit(0);
}
// Each worker starts from a refresh token of its own, obtained before the clock starts.
const seeds = await Promise.all(Array.from({ length: Number(concurrency) }, () => login()));
if (what === 'seeds') {
  // For wrk's refresh grants (refresh-wrk.mjs): one live refresh token per connection, and an access token.
  agent.destroy();
  process.stdout.write(JSON.stringify({ refreshTokens: seeds.map((s) => s.refresh_token), accessToken: seeds[0].access_token }));
  process.exit(0);
}
const { rate: refreshes } = await measure(async (state) => {
  state.refresh ??= seeds[state.worker].refresh_token;
  const res = await call('POST', '/oidc/token', { body: form({ grant_type: 'refresh_token', refresh_token: state.refresh, client_id: 'svc' }), type: 'application/x-www-form-urlencoded' });
  if (res.status !== 200) throw new Error(`refresh failed: ${res.text}`);
  state.refresh = JSON.parse(res.text).refresh_token;
});
const accessToken = (await login()).access_token;
agent.destroy();
process.stdout.write(JSON.stringify({ refreshes, accessToken }));
