/**
 * `svc edge enroll FILE.jwt`: enrolls as a client SDK does. The JWT names the controller (`iss`); the controller is
 * trusted because the certificate it presents over TLS (whose key the handshake proves it holds) verifies the JWT's
 * signature (the enrollment JWT is signed with the server certificate's key, reference facts §9).
 *
 * - `ott` (`-o identity.json`): the key pair is made here and never leaves: only a CSR is sent, and the certificate
 *   chain comes back. The controller's well-known CA bundle is read from that same certificate, and the identity
 *   file public SDKs read is written: `{ztAPI, ztAPIs, id: {key, cert, ca}}` with `pem:` inline values, the client
 *   API URL as `ztAPI` (as the reference's own enroller writes it), read unchanged by the Go, C, JS and Python SDKs.
 * - `updb` (`-p`, `--password-stdin` or a prompt): sets the password of the enrollment's username; there is no
 *   file to write, the identity then logs in with its username and password.
 */
import { createPublicKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeJwt, jwtVerify } from 'jose';
import { x509 } from '../../pki/index.js';
import type { Output } from '../output.js';
import { refusedError, usageError } from '../cli-error.js';
import { describeAnswer, presentedChain, send } from './http.js';
import { certificatesOfPkcs7 } from './login.js';
import { readPassword } from './terminal.js';

export const CLIENT_PREFIX = '/edge/client/v1';

export interface EnrollArgs {
  jwtFile: string;
  /** The identity file to write (ott only). */
  output?: string;
  /** The password to set (updb only): `-p`, else `--password-stdin`, else a prompt on a terminal. */
  password?: string;
  passwordStdin: boolean;
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

/** Refuses options that do not fit the JWT's method before anything is sent (a token works only once). */
function checkOptions(args: EnrollArgs, method: string): void {
  if (method !== 'ott' && method !== 'updb') {
    throw usageError(`FILE.jwt: enrollment method '${method}' is not enrolled by this command (only 'ott', with a certificate, and 'updb', with a password)`);
  }
  const givesPassword = args.password !== undefined || args.passwordStdin;
  if (method === 'ott') {
    if (args.output === undefined) throw usageError('-o: an ott enrollment writes an identity file: give -o FILE.json');
    if (givesPassword) throw usageError('-p/--password-stdin: an ott enrollment takes no password (only updb enrollments do)');
  }
  // Refused rather than ignored: whoever asked for a file would otherwise look for one that was never written.
  if (method === 'updb' && args.output !== undefined) throw usageError('-o: a updb enrollment writes no identity file (the identity logs in with its username and password); leave out -o');
  if (method === 'updb' && !givesPassword && !process.stdin.isTTY) throw usageError('a password is needed: -p PASSWORD or --password-stdin');
}

export async function enrollCommand(args: EnrollArgs, out: Output): Promise<number> {
  const { jwt, claims } = readClaims(args.jwtFile);
  checkOptions(args, claims.em);
  let origin: string;
  try {
    origin = new URL(claims.iss).origin;
  } catch {
    throw usageError(`FILE.jwt: the JWT's issuer '${claims.iss}' is not a URL`);
  }
  const leaf = await verifiedServer(jwt, origin);
  if (claims.em === 'updb') return enrollUpdb(args, claims, origin, leaf.fingerprint256, out);
  return enrollOtt(args.output as string, claims, origin, leaf, out);
}

async function enrollOtt(output: string, claims: EnrollmentClaims, origin: string, leaf: X509Certificate, out: Output): Promise<number> {
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
  writeFileSync(output, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  out.print(`enrolled identity ${claims.sub} with ${origin}; identity file written to ${output}`);
  return 0;
}

async function enrollUpdb(args: EnrollArgs, claims: EnrollmentClaims, origin: string, pin: string, out: Output): Promise<number> {
  const password = await readPassword({ password: args.password, passwordStdin: args.passwordStdin }, `new password for identity ${claims.sub}: `);
  const url = new URL(`${CLIENT_PREFIX}/enroll/updb`, origin);
  url.searchParams.set('token', claims.jti);
  const answer = await send(url, { method: 'POST', ca: false, pin, body: { password } });
  if (answer.status < 200 || answer.status >= 300) throw refusedError(`the controller refused the enrollment: ${describeAnswer(answer)}`);
  const username = answer.body?.data?.username;
  const who = typeof username === 'string' ? username : undefined;
  out.print(`enrolled identity ${claims.sub} with ${origin} by password; no identity file is written for a password enrollment`);
  out.print(`log in as ${who ?? 'its username'} at ${origin}: svc edge login ${origin} -u ${who ?? 'USERNAME'}`);
  return 0;
}
