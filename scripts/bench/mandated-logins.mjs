// Second baselines for the login figures of `npm run bench` (decisions 0047, 0049): the requests of bare-logins.mjs, plus
// only the work the spec leaves a controller no way around, done the plainest way. No checks beyond those, no lookups,
// no hooks, no metrics. Between the bare logins and svc, they say how much of svc's gap to the raw argon2id rate any
// controller would pay on this machine, and how much is svc's own.
// - The PKCE flow seals the authorization request into its id and the login into its code (AES-256-GCM), opens them
//   again, and verifies the password with argon2id at svc's parameters. It checks the PKCE verifier, signs an ES256
//   access token and ID token of svc's shape, and writes the session and its refresh token in one transaction on the
//   same kind of store.
// - The legacy password login (POST /edge/client/v1/authenticate) verifies the password the same way, draws a random
//   session token, stores its SHA-256 with the session in one insert, and answers the token in an envelope of svc's
//   size.
// - The refresh grant (POST /oidc/token, grant_type=refresh_token; decision 0050) reads the token by its SHA-256 with
//   its session, rotates it and stores its successor in one transaction (one statement on PostgreSQL), and signs the
//   two tokens as the code exchange does.
// Prints "ready <port>".
//
// Usage: node scripts/bench/mandated-logins.mjs CERT KEY STORE, where STORE is a postgres:// URL or a SQLite file path.
import { verify } from '@node-rs/argon2';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, randomBytes, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { hashPassword } from '../../dist/crypto/passwords.js';

const [certFile, keyFile, store] = process.argv.slice(2);
const encoded = await hashPassword('bench-password');
const sealKey = randomBytes(32);
const signingKey = createPrivateKey(readFileSync(keyFile));

// The session and its first refresh token, in tables of their own (named for this script), written together or not
// at all. A refresh token is keyed by its hash, the one way it is ever found or rotated (as svc's, migration 0023).
const TABLES = [
  'create table if not exists bench_mandated_sessions (id text primary key, identity_id text not null, issuer text not null, scope text not null, amr text not null, auth_time text not null, created_at text not null)',
  "create table if not exists bench_mandated_tokens (token_hash text primary key, id text not null, session_id text not null references bench_mandated_sessions (id) on delete cascade, created_at text not null, expires_at text not null, status text not null default 'active')",
  'create index if not exists bench_mandated_tokens_session on bench_mandated_tokens (session_id)',
  'create table if not exists bench_mandated_api_sessions (id text primary key, token_hash text not null unique, identity_id text not null, created_at text not null, last_activity_at text not null)',
];
const API_SESSION_INSERT = 'insert into bench_mandated_api_sessions values ($1, $2, $3, $4, $5)';
const TOKEN_COLUMNS = 'id, session_id, token_hash, created_at, expires_at';
const FIND_REFRESH = `select t.id, t.status, t.expires_at, s.id as session_id, s.identity_id, s.issuer, s.scope, s.amr
  from bench_mandated_tokens t join bench_mandated_sessions s on s.id = t.session_id where t.token_hash = $1`;
/**
 * Stores an OIDC session and its refresh token in one transaction (`redeem`), a legacy API session
 * (`startApiSession`); reads a refresh token with its session (`findRefresh`) and rotates it (`rotate`: true when this
 * call rotated it, its successor stored with it).
 */
async function openStore() {
  if (store.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: store, max: 10 });
    for (const statement of TABLES) await pool.query(statement);
    const text = `with s as (insert into bench_mandated_sessions values ($1, $2, $3, $4, $5, $6, $7) returning id)
      insert into bench_mandated_tokens (${TOKEN_COLUMNS}) select $8, id, $9, $7, $10 from s`;
    const rotation = `with r as (update bench_mandated_tokens set status = 'rotated' where token_hash = $1 and status = 'active' returning session_id)
      insert into bench_mandated_tokens (${TOKEN_COLUMNS}) select $2, session_id, $3, $4, $5 from r`;
    return {
      redeem: (session, token) => pool.query({ name: 'bench_mandated_redeem', text, values: [...session, ...token] }),
      startApiSession: (row) => pool.query({ name: 'bench_mandated_api_session', text: API_SESSION_INSERT, values: row }),
      findRefresh: async (hash) => (await pool.query({ name: 'bench_mandated_find_refresh', text: FIND_REFRESH, values: [hash] })).rows[0],
      rotate: async (hash, next) => (await pool.query({ name: 'bench_mandated_rotate', text: rotation, values: [hash, ...next] })).rowCount === 1,
    };
  }
  const db = new Database(store);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  for (const statement of TABLES) db.exec(statement);
  const insertSession = db.prepare('insert into bench_mandated_sessions values (?, ?, ?, ?, ?, ?, ?)');
  const insertToken = db.prepare(`insert into bench_mandated_tokens (${TOKEN_COLUMNS}) values (?, ?, ?, ?, ?)`);
  const redeem = db.transaction((session, [id, hash, expiresAt]) => {
    insertSession.run(...session);
    insertToken.run(id, session[0], hash, session[6], expiresAt);
  });
  const insertApiSession = db.prepare(API_SESSION_INSERT.replace(/\$\d/g, '?'));
  const findRefresh = db.prepare(FIND_REFRESH.replace('$1', '?'));
  const rotateToken = db.prepare("update bench_mandated_tokens set status = 'rotated' where token_hash = ? and status = 'active'");
  const rotate = db.transaction((presented, [nextId, hash, createdAt, expiresAt], sessionId) => {
    if (rotateToken.run(presented).changes === 0) return false;
    insertToken.run(nextId, sessionId, hash, createdAt, expiresAt);
    return true;
  });
  return {
    redeem: async (session, token) => redeem(session, token),
    startApiSession: async (row) => insertApiSession.run(...row),
    findRefresh: async (hash) => findRefresh.get(hash),
    rotate: async (hash, next, sessionId) => rotate(hash, next, sessionId),
  };
}
const { redeem, startApiSession, findRefresh, rotate } = await openStore();

const seal = (fields) => {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, nonce);
  const body = Buffer.concat([cipher.update(JSON.stringify(fields)), cipher.final(), cipher.getAuthTag()]);
  return `${nonce.toString('base64url')}.${body.toString('base64url')}`;
};
const open = (value) => {
  const [nonce, body] = String(value).split('.');
  const bytes = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', sealKey, Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8'));
};
const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jws = (header, claims) => {
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: signingKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
};
const KID = createHash('sha1').update(readFileSync(certFile)).digest('hex');

const app = Fastify({ https: { cert: readFileSync(certFile), key: readFileSync(keyFile) } });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body))));
const origin = () => `https://${app.server.address().address}:${app.server.address().port}`;

app.get('/oidc/authorization', async (request, reply) => {
  const { redirect_uri: r, scope: s, state: st, nonce: n, code_challenge: cc } = request.query;
  const now = Date.now();
  const id = seal({ r, s, st, n, cc, i: `${origin()}/oidc`, a: randomUUID(), c: now, e: now + 600_000 });
  return reply.redirect(`${origin()}/oidc/login/username?authRequestID=${encodeURIComponent(id)}`, 302);
});
app.post('/oidc/login/password', async (request, reply) => {
  const { authRequestId, password } = request.body;
  const started = open(authRequestId);
  if (!(await verify(encoded, String(password)))) return reply.code(401).send({ error: 'invalid credentials' });
  const code = seal({ ...started, sid: randomUUID(), sub: 'bench-identity', amr: ['pwd'], t: Date.now() });
  return reply.redirect(`${origin()}/oidc/authorize/callback?id=${encodeURIComponent(code)}`, 302);
});
app.get('/oidc/authorize/callback', async (request, reply) => {
  const code = open(request.query.id);
  const target = `${code.r}?code=${encodeURIComponent(request.query.id)}&state=${encodeURIComponent(code.st)}&iss=${encodeURIComponent(code.i)}`;
  return reply.header('cache-control', 'no-store').redirect(target, 302);
});
/** The token answer of both grants: an access token and an ID token of svc's shape, signed, and the refresh token. */
function tokenAnswer(reply, { sid, sub, iss, scope, amr, authTimeMs, nonce }, refresh) {
  const iat = Math.floor(Date.now() / 1000);
  const common = { amr, iss, sub, aud: ['svc'], iat };
  const access = jws({ alg: 'ES256', kid: KID, typ: 'at+jwt' }, { ...common, client_id: 'svc', z_asid: sid, z_ia: true, z_ct: [], z_t: 'a', nbf: iat, exp: iat + 1800, jti: randomUUID() });
  const id = jws({ alg: 'ES256', kid: KID, typ: 'JWT' }, { ...common, auth_time: Math.floor(authTimeMs / 1000), nonce, azp: 'svc', name: 'admin', sid, exp: iat + 1800 });
  return reply.header('cache-control', 'no-store').send({ access_token: access, id_token: id, token_type: 'Bearer', expires_in: 1800, scope, refresh_token: refresh });
}
/** A new refresh token: the value handed out, and the row values stored for it (id, SHA-256, created, expires). */
function newRefreshToken() {
  const value = randomBytes(32).toString('base64url');
  return { value, row: [randomUUID(), createHash('sha256').update(value).digest('hex'), new Date().toISOString(), new Date(Date.now() + 86_400_000).toISOString()] };
}
app.post('/oidc/token', async (request, reply) => {
  if (request.body.grant_type === 'refresh_token') {
    const presented = createHash('sha256').update(String(request.body.refresh_token)).digest('hex');
    const stored = await findRefresh(presented);
    if (!stored || stored.status !== 'active' || stored.expires_at <= new Date().toISOString()) return reply.code(400).send({ error: 'invalid_grant' });
    const next = newRefreshToken();
    if (!(await rotate(presented, next.row, stored.session_id))) return reply.code(400).send({ error: 'invalid_grant' });
    const session = { sid: stored.session_id, sub: stored.identity_id, iss: stored.issuer, scope: stored.scope, amr: JSON.parse(stored.amr), authTimeMs: Date.now(), nonce: undefined };
    return tokenAnswer(reply, session, next.value);
  }
  const code = open(request.body.code);
  if (createHash('sha256').update(String(request.body.code_verifier)).digest('base64url') !== code.cc) return reply.code(400).send({ error: 'invalid_grant' });
  const refresh = newRefreshToken();
  const [tokenId, tokenHash, createdAt, expiresAt] = refresh.row;
  await redeem([code.sid, code.sub, code.i, code.s, JSON.stringify(code.amr), String(code.t), createdAt], [tokenId, tokenHash, expiresAt]);
  return tokenAnswer(reply, { sid: code.sid, sub: code.sub, iss: code.i, scope: code.s, amr: code.amr, authTimeMs: code.t, nonce: code.n }, refresh.value);
});

// The legacy password login: its answer carries the token in an envelope about as long as svc's (890 bytes).
app.post('/edge/client/v1/authenticate', async (request, reply) => {
  if (!(await verify(encoded, String(request.body.password)))) return reply.code(401).send({ error: { code: 'INVALID_AUTH' } });
  const token = randomBytes(32).toString('base64url');
  const now = new Date().toISOString();
  const id = randomUUID();
  await startApiSession([id, createHash('sha256').update(token).digest('hex'), 'bench-identity', now, now]);
  const expiresAt = new Date(Date.now() + 1_800_000).toISOString();
  return reply
    .header('svc-session', token)
    .send({ data: { id, createdAt: now, updatedAt: now, token, identityId: 'bench-identity', authMethod: 'password', lastActivityAt: now, expiresAt, expirationSeconds: 1800, padding: 'x'.repeat(560) }, meta: {} });
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
