/**
 * Fixture builders for enrollment tests: CSRs of every key kind the controller accepts or refuses (made with
 * WebCrypto and @peculiar/x509, as a client would), a CSR with a broken signature, and enrollments created
 * through the management API. They return values and never assert.
 */
import { webcrypto } from 'node:crypto';
import { privateKeyToPem, x509 } from '../../src/pki/index.js';
import type { TestController } from './controller.js';

export type CsrKeyKind = 'p256' | 'p384' | 'p521' | 'rsa2048' | 'rsa1024' | 'ed25519';

const KEY_ALGORITHMS: Record<CsrKeyKind, { generate: any; sign: any }> = {
  p256: { generate: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  p384: { generate: { name: 'ECDSA', namedCurve: 'P-384' }, sign: { name: 'ECDSA', hash: 'SHA-384' } },
  p521: { generate: { name: 'ECDSA', namedCurve: 'P-521' }, sign: { name: 'ECDSA', hash: 'SHA-512' } },
  rsa2048: {
    generate: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    sign: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  },
  rsa1024: {
    generate: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    sign: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  },
  ed25519: { generate: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
};

/** A CSR (PEM) for a fresh key of `kind`, with the subject an SDK would send, and the key (PKCS#8 PEM). */
export async function makeCsr(kind: CsrKeyKind = 'p256', commonName = 'device'): Promise<{ pem: string; keyPem: string }> {
  const { generate, sign } = KEY_ALGORITHMS[kind];
  const keys = (await webcrypto.subtle.generateKey(generate, true, ['sign', 'verify'])) as any;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `C=US, O=NetFoundry, CN=${commonName}`, keys, signingAlgorithm: sign });
  return { pem: csr.toString('pem'), keyPem: await privateKeyToPem(keys.privateKey) };
}

/** The same CSR with the last byte of its signature flipped: well-formed DER that no longer verifies. */
export function withBrokenSignature(pem: string): string {
  const der = Buffer.from(new x509.Pkcs10CertificateRequest(pem).rawData);
  der[der.length - 1] = (der[der.length - 1] ?? 0) ^ 0x01;
  return new x509.Pkcs10CertificateRequest(der).toString('pem');
}

/** POST /enrollments as the default admin; the response as it came. */
export async function postEnrollment(ctl: TestController, body: Record<string, unknown>) {
  return ctl.fetch('/edge/management/v1/enrollments', { method: 'POST', headers: { 'svc-session': await ctl.adminToken() }, body });
}

/** Creates an enrollment through the management API and returns its detail (token, jwt, ...). */
export async function createEnrollment(
  ctl: TestController,
  input: { identityId: string; method: 'ott' | 'updb'; username?: string; expiresAt?: Date },
): Promise<{ id: string; token: string; jwt: string; expiresAt: string; username?: string }> {
  const expiresAt = (input.expiresAt ?? new Date(Date.now() + 60 * 60_000)).toISOString();
  const created = await postEnrollment(ctl, { ...input, expiresAt });
  if (created.status !== 201) throw new Error(`could not create enrollment: ${created.status} ${created.text}`);
  const detail = await ctl.fetch(`/edge/management/v1/enrollments/${created.json().data.id}`, { headers: { 'svc-session': await ctl.adminToken() } });
  return detail.json().data;
}

/** The stored authenticators of an identity (method and what identifies them). */
export async function authenticatorsOf(ctl: TestController, identityId: string) {
  return ctl.running.database.db
    .selectFrom('authenticators')
    .select(['id', 'method', 'username', 'cert_fingerprint', 'cert_pem', 'password_hash', 'is_issued_by_network'])
    .where('identity_id', '=', identityId)
    .execute();
}

/** Whether the enrollment with `id` is still pending in the store. */
export async function isPending(ctl: TestController, id: string): Promise<boolean> {
  return (await ctl.running.database.db.selectFrom('enrollments').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
