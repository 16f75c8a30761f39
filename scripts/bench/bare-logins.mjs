// Baselines for the login figures of `npm run bench`, on a bare Fastify 5 HTTPS server with the same certificate and
// one argon2id verification at each login (svc's parameters), nothing else: no store, no checks, no signing.
// - The four requests of a complete PKCE login (authorization request, password login, callback, code exchange),
//   whose redirects and answers have the sizes of svc's, so the same wrk script walks it.
// - The legacy password login (POST /edge/client/v1/authenticate), with an answer of svc's size.
// What they reach against the raw argon2id rate is what this machine allows the logins with none of svc's own work.
// Prints "ready <port>".
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../../dist/crypto/passwords.js';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
// The hash svc itself makes (src/crypto/passwords.ts), so the parameters are svc's.
const encoded = await hashPassword('bench-password');
/** A random base64url string of `chars` characters: ids, codes and tokens of svc's lengths. */
const random = (chars) => randomBytes(Math.ceil((chars * 3) / 4)).toString('base64url').slice(0, chars);

const app = Fastify({ https: { cert: readFileSync(certFile), key: readFileSync(keyFile) } });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body))));
const origin = () => `https://${app.server.address().address}:${app.server.address().port}`;

app.get('/oidc/authorization', async (_request, reply) => reply.redirect(`${origin()}/oidc/login/username?authRequestID=${random(390)}`, 302));
// svc's login redirects to the callback with the code (decision 0046, 500 characters for this login), and the
// callback to the client with the same code.
app.post('/oidc/login/password', async (request, reply) => {
  const { password } = request.body;
  if (!(await verify(encoded, String(password)))) return reply.code(401).send({ error: 'invalid credentials' });
  return reply.redirect(`${origin()}/oidc/authorize/callback?id=${random(500)}`, 302);
});
app.get('/oidc/authorize/callback', async (request, reply) =>
  reply.header('cache-control', 'no-store').redirect(`http://127.0.0.1:9/auth/callback?code=${request.query.id}&state=s&iss=${encodeURIComponent(`${origin()}/oidc`)}`, 302),
);
app.post('/oidc/token', async (_request, reply) =>
  reply.header('cache-control', 'no-store').send({
    access_token: random(678),
    id_token: random(506),
    token_type: 'Bearer',
    expires_in: 1800,
    scope: 'openid offline_access',
    refresh_token: random(43),
  }),
);
// The legacy password login: an answer as long as svc's (890 bytes for this login), with its token header.
app.post('/edge/client/v1/authenticate', async (request, reply) => {
  if (!(await verify(encoded, String(request.body.password)))) return reply.code(401).send({ error: { code: 'INVALID_AUTH' } });
  const token = random(43);
  return reply.header('svc-session', token).send({ data: { token, padding: random(800) }, meta: {} });
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
