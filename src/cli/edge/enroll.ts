/**
 * `svc edge enroll FILE.jwt -o identity.json`: enrolls as a client SDK does, and writes the identity file public SDKs
 * read. The JWT names the controller (`iss`); the controller is trusted because the certificate it presents over TLS
 * (whose key the handshake proves it holds) verifies the JWT's signature (the enrollment JWT is signed with the
 * server certificate's key, reference facts §9); its well-known CA bundle is then read from that same certificate.
 * The key pair is made here and never leaves: only a CSR is sent, and the certificate chain comes back.
 *
 * The file: `{ztAPI, ztAPIs, id: {key, cert, ca}}` with `pem:` inline values, the client API URL as `ztAPI` (as the
 * reference's own enroller writes it), read unchanged by the Go, C, JS and Python SDKs.
 */
import { createPublicKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeJwt, jwtVerify } from 'jose';
import { x509 } from '../../pki/index.js';
import type { Output } from '../output.js';
import { refusedError, usageError } from '../cli-error.js';
import { describeAnswer, presentedChain, send } from './http.js';
import { certificatesOfPkcs7 } from './login.js';

export const CLIENT_PREFIX = '/edge/client/v1';

export interface EnrollArgs {
  jwtFile: string;
  output: string;
}

interface EnrollmentClaims {
  iss: string;
  sub: string;
  jti: string;
  em: string;
  exp?: number;
}

function readClaims(file: string): { jwt: string; claims: EnrollmentClaims } {
  let jwt: string;
  try {
    jwt = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw usageError(`FILE.jwt: cannot read '${file}': ${(error as Error).message}`);
  }
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(jwt);
  } catch {
    throw usageError(`FILE.jwt: '${file}' does not hold a JWT (three base64url parts separated by dots)`);
  }
  for (const name of ['iss', 'sub', 'jti', 'em'] as const) {
    if (typeof claims[name] !== 'string' || claims[name] === '') throw usageError(`FILE.jwt: the JWT in '${file}' has no '${name}' claim: it is not an enrollment JWT`);
  }
  return { jwt, claims: claims as unknown as EnrollmentClaims };
}

/** A P-256 key (SEC 1 PEM, which every SDK reads) and a CSR for it. */
async function keyAndCsr(commonName: string): Promise<{ keyPem: string; csrPem: string }> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyPem = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const signing = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', createPublicKey(privateKey).export({ type: 'spki', format: 'der' }), algorithm, true, ['verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${commonName}`,
    keys: { privateKey: signing, publicKey },
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return { keyPem, csrPem: csr.toString('pem') };
}

/** The controller's certificate, if it verifies the JWT; refused otherwise. */
async function verifiedServer(jwt: string, origin: string): Promise<X509Certificate> {
  const chain = await presentedChain(new URL(origin));
  if (!chain.raw) throw refusedError(`${origin} presented no certificate`);
  const leaf = new X509Certificate(chain.raw);
  try {
    await jwtVerify(jwt, leaf.publicKey);
  } catch (error) {
    const reason = (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'the enrollment JWT has expired' : `its signature does not verify with the certificate ${origin} presents`;
    throw refusedError(`will not enroll with ${origin}: ${reason}`);
  }
  return leaf;
}

export async function enrollCommand(args: EnrollArgs, out: Output): Promise<number> {
  const { jwt, claims } = readClaims(args.jwtFile);
  if (claims.em !== 'ott') throw usageError(`FILE.jwt: enrollment method '${claims.em}' is not enrolled with a certificate by this command (only 'ott')`);
  let origin: string;
  try {
    origin = new URL(claims.iss).origin;
  } catch {
    throw usageError(`FILE.jwt: the JWT's issuer '${claims.iss}' is not a URL`);
  }
  const leaf = await verifiedServer(jwt, origin);
  const pin = leaf.fingerprint256;
  const bundle = await send(new URL('/.well-known/est/cacerts', origin), { ca: false, pin, headers: { accept: 'application/pkcs7-mime' } });
  if (bundle.status !== 200) throw refusedError(`could not read ${origin}/.well-known/est/cacerts: ${describeAnswer(bundle)}`);
  const cas = certificatesOfPkcs7(bundle.text);
  if (!cas.some((pem) => leaf.checkIssued(new X509Certificate(pem)))) {
    // The server's own CA must be in what it tells SDKs to trust, or the identity file could not reach it.
    throw refusedError(`${origin}'s certificate is not issued by any CA of its well-known bundle`);
  }
  const { keyPem, csrPem } = await keyAndCsr(claims.sub);
  const url = new URL(`${CLIENT_PREFIX}/enroll/ott`, origin);
  url.searchParams.set('token', claims.jti);
  const answer = await send(url, { method: 'POST', ca: false, pin, headers: { 'content-type': 'application/x-pem-file' }, body: csrPem });
  const cert = answer.body?.data?.cert;
  if (answer.status < 200 || answer.status >= 300 || typeof cert !== 'string') throw refusedError(`the controller refused the enrollment: ${describeAnswer(answer)}`);
  const ztAPI = `${origin}${CLIENT_PREFIX}`;
  const identity = { ztAPI, ztAPIs: [ztAPI], id: { key: `pem:${keyPem}`, cert: `pem:${cert}`, ca: `pem:${cas.join('')}` } };
  writeFileSync(args.output, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  out.print(`enrolled identity ${claims.sub} with ${origin}; identity file written to ${args.output}`);
  return 0;
}
