/**
 * An external identity provider for tests: signing keys and tokens made with `jose`, a certificate for a certPem
 * signer issued by the test PKI, and a real HTTPS server (certificate from the test PKI) that publishes the JWKS and
 * can misbehave on other paths. Builders return values and never assert.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair as generateJoseKeyPair, SignJWT, type CryptoKey as JoseKey, type JWK, type JWTPayload } from 'jose';
import { generateKeyPair, issueCertificate, loadCertificateAuthority, privateKeyToPem, type PkiPaths } from '../../src/pki/index.js';
import { readFileSync } from 'node:fs';

export const ISSUER = 'https://idp.example.test';
export const AUDIENCE = 'svc-test';
/** A name only injected resolvers know; the JWKS server's certificate carries it. */
export const JWKS_TEST_HOST = 'jwks.svc.test';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: JoseKey;
  publicJwk: JWK;
}

/** A fresh signing key (ES256 unless `alg` says otherwise) with its public JWK carrying `kid` and `alg`. */
export async function signingKey(kid: string, alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateJoseKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface TokenOptions {
  key: SigningKey;
  /** Header kid; default the key's, `null` for none. */
  kid?: string | null;
  issuer?: string;
  audience?: string | string[];
  /** Seconds since the epoch. */
  exp?: number;
  nbf?: number;
  /** Default: `now` (seconds) for the defaults of exp/iat. */
  now?: Date;
}

/** A token signed by `options.key`: `iss` ISSUER, `aud` AUDIENCE, `exp` 10 minutes after now, plus `claims`. */
export async function signToken(claims: JWTPayload, options: TokenOptions): Promise<string> {
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const kid = options.kid === undefined ? options.key.kid : options.kid;
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.key.alg, ...(kid === null ? {} : { kid }) })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(options.exp ?? now + 600);
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(options.key.privateKey);
}

/** A certificate (issued by the PKI's intermediate) whose P-256 key signs ES256 tokens: a certPem signer's key. */
export async function signingCertificate(pki: PkiPaths, kid = 'cert-kid'): Promise<{ certPem: string; key: SigningKey }> {
  const issuer = await loadCertificateAuthority({ cert: pki.intermediateCert, key: pki.intermediateKey });
  const keys = await generateKeyPair();
  const cert = await issueCertificate({ profile: 'client', publicKey: keys.publicKey, subject: { commonName: 'idp-signing' }, validityMs: 3_600_000, issuer });
  return { certPem: cert.toString('pem'), key: { kid, alg: 'ES256', privateKey: keys.privateKey as unknown as JoseKey, publicJwk: {} } };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface JwksServer {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  /** The key set served at `/jwks`; change it to rotate keys. */
  jwks: { keys: JWK[] };
  /** Requests per path, to count fetches. */
  hits: Map<string, number>;
  /** Serves `handler` at `path` (exact, without query). */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with a server certificate from `pki` for 127.0.0.1, localhost and JWKS_TEST_HOST. */
export async function startJwksServer(pki: PkiPaths): Promise<JwksServer> {
  const issuer = await loadCertificateAuthority({ cert: pki.intermediateCert, key: pki.intermediateKey });
  const keys = await generateKeyPair();
  const leaf = await issueCertificate({
    profile: 'server',
    publicKey: keys.publicKey,
    subject: { commonName: 'jwks-test-server' },
    subjectAltNames: { dns: ['localhost', JWKS_TEST_HOST], ip: ['127.0.0.1'] },
    validityMs: 3_600_000,
    issuer,
  });
  const jwks: { keys: JWK[] } = { keys: [] };
  const hits = new Map<string, number>();
  const routes = new Map<string, Handler>([['/jwks', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks))]]);
  const server: Server = createServer(
    { cert: `${leaf.toString('pem')}\n${readFileSync(pki.intermediateCert, 'utf8')}`, key: await privateKeyToPem(keys.privateKey) },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0] as string;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const handler = routes.get(path);
      if (handler) handler(req, res);
      else res.writeHead(404).end();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    jwks,
    hits,
    route: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A valid signer create body (JWKS key source) with `fields` on top. */
export function signerBody(name: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, issuer: ISSUER, audience: AUDIENCE, enabled: true, jwksEndpoint: 'https://idp.example.test/jwks', ...fields };
}
