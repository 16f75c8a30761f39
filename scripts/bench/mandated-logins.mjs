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
// at all.
const TABLES = [
  'create table if not exists bench_mandated_sessions (id text primary key, identity_id text not null, issuer text not null, scope text not null, amr text not null, auth_time text not null, created_at text not null)',
  'create table if not exists bench_mandated_tokens (id text primary key, session_id text not null references bench_mandated_sessions (id) on delete cascade, token_hash text not null unique, created_at text not null, expires_at text not null)',
  'create table if not exists bench_mandated_api_sessions (id text primary key, token_hash text not null unique, identity_id text not null, created_at text not null, last_activity_at text not null)',
];
const API_SESSION_INSERT = 'insert into bench_mandated_api_sessions values ($1, $2, $3, $4, $5)';
/** Stores an OIDC session and its refresh token in one transaction (`redeem`), and a legacy API session (`startApiSession`). */
async function openStore() {
  if (store.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: store, max: 10 });
    for (const statement of TABLES) await pool.query(statement);
    const text = `with s as (insert into bench_mandated_sessions values ($1, $2, $3, $4, $5, $6, $7) returning id)
      insert into bench_mandated_tokens select $8, id, $9, $7, $10 from s`;
    return {
      redeem: (session, token) => pool.query({ name: 'bench_mandated_redeem', text, values: [...session, ...token] }),
      startApiSession: (row) => pool.query({ name: 'bench_mandated_api_session', text: API_SESSION_INSERT, values: row }),
    };
  }
  const db = new Database(store);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  for (const statement of TABLES) db.exec(statement);
  const insertSession = db.prepare('insert into bench_mandated_sessions values (?, ?, ?, ?, ?, ?, ?)');
  const insertToken = db.prepare('insert into bench_mandated_tokens values (?, ?, ?, ?, ?)');
  const redeem = db.transaction((session, [id, hash, expiresAt]) => {
    insertSession.run(...session);
    insertToken.run(id, session[0], hash, session[6], expiresAt);
  });
  const insertApiSession = db.prepare(API_SESSION_INSERT.replace(/\$\d/g, '?'));
  return { redeem: async (session, token) => redeem(session, token), startApiSession: async (row) => insertApiSession.run(...row) };
}
const { redeem, startApiSession } = await openStore();

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
app.post('/oidc/token', async (request, reply) => {
  const code = open(request.body.code);
  if (createHash('sha256').update(String(request.body.code_verifier)).digest('base64url') !== code.cc) return reply.code(400).send({ error: 'invalid_grant' });
  const iat = Math.floor(Date.now() / 1000);
  const createdAt = new Date().toISOString();
  const refresh = randomBytes(32).toString('base64url');
  const session = [code.sid, code.sub, code.i, code.s, JSON.stringify(code.amr), String(code.t), createdAt];
  await redeem(session, [randomUUID(), createHash('sha256').update(refresh).digest('hex'), new Date(Date.now() + 86_400_000).toISOString()]);
  const common = { amr: code.amr, iss: code.i, sub: code.sub, aud: ['svc'], iat };
  const access = jws({ alg: 'ES256', kid: KID, typ: 'at+jwt' }, { ...common, client_id: 'svc', z_asid: code.sid, z_ia: true, z_ct: [], z_t: 'a', nbf: iat, exp: iat + 1800, jti: randomUUID() });
  const id = jws({ alg: 'ES256', kid: KID, typ: 'JWT' }, { ...common, auth_time: Math.floor(code.t / 1000), nonce: code.n, azp: 'svc', name: 'admin', sid: code.sid, exp: iat + 1800 });
  return reply.header('cache-control', 'no-store').send({ access_token: access, id_token: id, token_type: 'Bearer', expires_in: 1800, scope: code.s, refresh_token: refresh });
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
