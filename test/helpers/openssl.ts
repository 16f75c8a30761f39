/**
 * Keys and CSRs made by the `openssl` command, as a router or an SDK built on OpenSSL would make them, so the
 * controller's parsing is tested against what it did not write itself. Fixture builders: they return values and
 * never assert.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type OpensslKeyKind = 'p256' | 'p384' | 'rsa2048' | 'rsa1024' | 'p224' | 'ed25519';

const KEY_ARGS: Record<OpensslKeyKind, string[]> = {
  p256: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  p384: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  p224: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-224'],
  rsa2048: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  rsa1024: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'],
  ed25519: ['-algorithm', 'ED25519'],
};

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openssl-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new private key (PKCS#8 PEM) of `kind`. */
export function opensslKey(kind: OpensslKeyKind = 'p256'): string {
  return inTempDir((dir) => {
    const file = join(dir, 'key.pem');
    execFileSync('openssl', ['genpkey', ...KEY_ARGS[kind], '-out', file], { stdio: 'pipe' });
    return readFileSync(file, 'utf8');
  });
}

/**
 * A CSR (PEM) for `keyPem` with subject `/CN=<commonName>` and, when given, subjectAltName entries in openssl's
 * syntax (`DNS:router.example.test`, `IP:10.0.0.1`, `URI:spiffe://x`).
 */
export function opensslCsr(keyPem: string, commonName: string, altNames: string[] = []): string {
  return inTempDir((dir) => {
    const keyFile = join(dir, 'key.pem');
    const csrFile = join(dir, 'req.csr');
    writeFileSync(keyFile, keyPem, { mode: 0o600 });
    const extension = altNames.length > 0 ? ['-addext', `subjectAltName=${altNames.join(',')}`] : [];
    execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', `/CN=${commonName}`, ...extension, '-out', csrFile], { stdio: 'pipe' });
    return readFileSync(csrFile, 'utf8');
  });
}

/** A key of `kind` and its CSR. */
export function opensslKeyAndCsr(commonName: string, altNames: string[] = [], kind: OpensslKeyKind = 'p256'): { keyPem: string; csrPem: string } {
  const keyPem = opensslKey(kind);
  return { keyPem, csrPem: opensslCsr(keyPem, commonName, altNames) };
}

/** The same CSR with one byte of its signature flipped: well-formed DER that no longer verifies. */
export function brokenSignature(csrPem: string): string {
  const body = csrPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const der = Buffer.from(body, 'base64');
  der[der.length - 1] = (der[der.length - 1] ?? 0) ^ 0x01;
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** The SHA-1 fingerprint (lowercase hex, no colons) of the first certificate of a PEM text, as openssl prints it. */
export function opensslFingerprint(certPem: string): string {
  return inTempDir((dir) => {
    const file = join(dir, 'cert.pem');
    writeFileSync(file, certPem);
    const out = execFileSync('openssl', ['x509', '-in', file, '-noout', '-fingerprint', '-sha1'], { encoding: 'utf8' });
    return (out.split('=')[1] ?? '').trim().replace(/:/g, '').toLowerCase();
  });
}
