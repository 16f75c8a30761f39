/**
 * Reading an enrollment CSR costs time linear in the 1 MiB body whatever it holds (issue 12, point 1): the PEM scan,
 * then the DER decoder, which is held to MAX_CSR_DER_BYTES so that its few microseconds per ASN.1 element stay a
 * bounded cost. The worst bodies are timed as a ratio to an ordinary one of the same size (a router's CSR with many
 * names, after the text `openssl req -text` prints) measured in the same run. Also the new size limit itself.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { describe, it } from 'node:test';
import { isApiError } from '../../src/errors/api-error.js';
import { x509 } from '../../src/pki/index.js';
import { MAX_CSR_DER_BYTES, parseCsr } from '../../src/services/enrollment/csr.js';
import { fill, LINEAR_BOUND, ratioSummary, timeRatios, tooSlow } from '../helpers/timing.js';

const MIB = 1024 * 1024;
const BOUND = LINEAR_BOUND;

/** A DER element: tag, definite length, body. */
function tlv(tag: number, body: Buffer): Buffer {
  const length = body.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), body]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), body]);
}

/** A SEQUENCE of copies of `item`, as many as keep it within `size` bytes. */
function sequenceOf(item: Buffer, size: number): Buffer {
  return tlv(0x30, Buffer.concat(Array.from({ length: Math.floor((size - 4) / item.length) }, () => item)));
}

/** SEQUENCEs nested inside each other to about `size` bytes. */
function nested(size: number): Buffer {
  let der: Buffer = Buffer.alloc(0);
  while (der.length + 4 < size) der = tlv(0x30, der);
  return der;
}

const pem = (der: Uint8Array) => `-----BEGIN CERTIFICATE REQUEST-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE REQUEST-----\n`;

/** `block` after as much of the text `openssl req -text` prints as makes the body 1 MiB. */
const inBody = (block: string) => `${fill('Certificate Request:\n    Data:\n        Version: 1 (0x0)\n', MIB - block.length)}${block}`;

/** A router's CSR: an EC key and DNS and IP names alternating, as many as fit in MAX_CSR_DER_BYTES. */
async function routerCsr(): Promise<x509.Pkcs10CertificateRequest> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const create = (count: number) => {
    const names = Array.from({ length: count }, (_, i) =>
      i % 2 ? { type: 'ip' as const, value: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } : { type: 'dns' as const, value: `router-${i}.example.com` },
    );
    const extensions = [new x509.SubjectAlternativeNameExtension(names)];
    return x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=router', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' }, extensions });
  };
  // About 12 bytes of DER per name; the last few are trimmed off until the request fits.
  let count = Math.floor(MAX_CSR_DER_BYTES / 12);
  let csr = await create(count);
  while (csr.rawData.byteLength > MAX_CSR_DER_BYTES) csr = await create((count -= 16));
  return csr;
}

async function refusal(body: string): Promise<string> {
  try {
    await parseCsr(body);
  } catch (error) {
    if (isApiError(error) && error.code === 'MISSING_OR_INVALID_CSR') return String(error.cause?.reason);
    throw error;
  }
  throw new Error('parseCsr accepted the input');
}

describe('linear time: enrollment CSRs', () => {
  it('reads a 1 MiB body of any shape in a small multiple of an ordinary CSR of the largest size', async (t) => {
    const csr = await routerCsr();
    const normal = inBody(csr.toString('pem'));
    assert.ok(await parseCsr(normal), 'the ordinary body is accepted');
    const read = (body: string) => () => parseCsr(body);
    const limit = MAX_CSR_DER_BYTES;
    const ratios = await timeRatios(read(normal), {
      'BEGIN lines without END': read(fill('-----BEGIN CERTIFICATE REQUEST-----\n', MIB)),
      'one block holding 1 MiB': read(pem(sequenceOf(tlv(0x30, Buffer.alloc(0)), (MIB * 3) / 4 - 64))),
      'many small blocks': read(fill(pem(tlv(0x30, Buffer.alloc(0))), MIB)),
      'empty SEQUENCEs at the limit': read(inBody(pem(sequenceOf(tlv(0x30, Buffer.alloc(0)), limit)))),
      'small INTEGERs at the limit': read(inBody(pem(sequenceOf(tlv(0x02, Buffer.from([1])), limit)))),
      'elements inside a BIT STRING': read(inBody(pem(tlv(0x30, tlv(0x03, Buffer.concat([Buffer.from([0]), sequenceOf(tlv(0x30, Buffer.alloc(0)), limit - 16)])))))),
      'nested SEQUENCEs': read(inBody(pem(nested(limit)))),
      'indefinite lengths nested': read(inBody(pem(Buffer.alloc(limit).fill(Buffer.from([0x30, 0x80]))))),
    }, 5);
    t.diagnostic(ratioSummary(ratios));
    assert.equal(tooSlow(ratios, BOUND), '', 'worst-case CSR bodies took longer than allowed');
  });

  it(`refuses a CSR over ${MAX_CSR_DER_BYTES} bytes of DER, saying how large it is`, async () => {
    const der = sequenceOf(tlv(0x30, Buffer.alloc(0)), MAX_CSR_DER_BYTES + 8);
    assert.equal(await refusal(pem(der)), `the CERTIFICATE REQUEST block holds ${der.length} bytes of DER; at most ${MAX_CSR_DER_BYTES} are accepted`);
  });

  it('refuses deeply nested DER as not a CSR rather than running out of stack', async () => {
    assert.match(await refusal(pem(nested(MAX_CSR_DER_BYTES))), /not a DER-encoded PKCS#10/);
  });
});
