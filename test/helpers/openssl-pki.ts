/**
 * A third-party PKI made by the `openssl` command, not by svc's own PKI code (issue 16, must-have 7): a root and an
 * intermediate CA, leaves for clients, verification certificates, and the bad certificates of the CA tests (not a
 * CA, expired). Every key is EC P-256. Builders return PEM text and never assert.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Issued {
  certPem: string;
  keyPem: string;
}

export interface OpensslPki {
  root: Issued;
  intermediate: Issued;
  /** A certificate signed by `signer` (default the intermediate), with `extensions` (openssl x509v3 config lines). */
  issue(commonName: string, options?: { signer?: Issued; extensions?: string[]; days?: number }): Issued;
  /** A client certificate (clientAuth) from the intermediate. */
  client(commonName: string, options?: { days?: number; extensions?: string[] }): Issued;
  /** A self-signed certificate: a CA unless `ca` is false; `days` -1 makes it expired. */
  selfSigned(commonName: string, options?: { ca?: boolean; days?: number }): Issued;
  dispose(): void;
}

const CA_EXTENSIONS = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash'];
const CLIENT_EXTENSIONS = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth', 'authorityKeyIdentifier=keyid'];

/** @example const pki = makeOpensslPki('Acme'); const { certPem, keyPem } = pki.client('laptop-1'); */
export function makeOpensslPki(name = 'Third Party'): OpensslPki {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openssl-'));
  let serial = 1;
  const file = (base: string) => join(dir, base);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const read = (base: string) => readFileSync(file(base), 'utf8');

  function newKey(base: string): void {
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file(`${base}.key`)]);
  }

  function sign(commonName: string, signer: Issued | undefined, extensions: string[], days: number): Issued {
    const base = `c${serial++}`;
    newKey(base);
    openssl(['req', '-new', '-key', file(`${base}.key`), '-subj', `/O=${name}/CN=${commonName}`, '-out', file(`${base}.csr`)]);
    writeFileSync(file(`${base}.ext`), `${extensions.join('\n')}\n`);
    const signing = signer
      ? (() => {
          writeFileSync(file(`${base}.ca.pem`), signer.certPem);
          writeFileSync(file(`${base}.ca.key`), signer.keyPem);
          return ['-CA', file(`${base}.ca.pem`), '-CAkey', file(`${base}.ca.key`), '-set_serial', String(1000 + serial)];
        })()
      : ['-signkey', file(`${base}.key`)];
    openssl(['x509', '-req', '-in', file(`${base}.csr`), ...signing, '-days', String(days), '-sha256', '-extfile', file(`${base}.ext`), '-out', file(`${base}.pem`)]);
    return { certPem: read(`${base}.pem`), keyPem: read(`${base}.key`) };
  }

  const root = sign(`${name} Root CA`, undefined, CA_EXTENSIONS, 3650);
  const intermediate = sign(`${name} Intermediate CA`, root, [...CA_EXTENSIONS, 'authorityKeyIdentifier=keyid'], 1825);
  return {
    root,
    intermediate,
    issue: (commonName, options = {}) => sign(commonName, options.signer ?? intermediate, options.extensions ?? CLIENT_EXTENSIONS, options.days ?? 365),
    client: (commonName, options = {}) => sign(commonName, intermediate, options.extensions ?? CLIENT_EXTENSIONS, options.days ?? 365),
    selfSigned: (commonName, options = {}) =>
      sign(commonName, undefined, options.ca === false ? ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature'] : CA_EXTENSIONS, options.days ?? 365),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
