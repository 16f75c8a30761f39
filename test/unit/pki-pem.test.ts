/**
 * Finding PEM blocks (pki/pem.ts): what counts as a block, and that the time grows linearly with the text whatever
 * it holds. A body full of BEGIN lines with no END once took 14 s for 1 MiB (issue 12, point 1); the bound here is a
 * ratio to a well-formed text of the same size, measured in the same run, never a wall-clock constant.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pemBlocks } from '../../src/pki/pem.js';

const MIB = 1024 * 1024;
const block = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;

/** `text` repeated to about `size` characters. */
const fill = (text: string, size: number) => text.repeat(Math.max(1, Math.floor(size / text.length)));

/** The median time of a few runs of `pemBlocks(text)`, in ms. */
function medianMs(text: string): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    pemBlocks(text);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b)[2] as number;
}

describe('PEM blocks', () => {
  it('finds blocks in order, skipping text between them and blocks whose END does not match', () => {
    const text = `subject=CN=x\n${block('CERTIFICATE', 'AAEC')}junk\n-----BEGIN KEY-----\nAAEC\n-----END OTHER-----\n${block('EC PRIVATE KEY', 'AwQF')}`;
    assert.deepEqual(
      pemBlocks(text).map((b) => [b.label, b.der.toString('hex')]),
      [
        ['CERTIFICATE', '000102'],
        ['EC PRIVATE KEY', '030405'],
      ],
    );
  });

  it('takes the first END of the same label, with other BEGIN lines inside the body, as one block', () => {
    const text = '-----BEGIN A-----\n-----BEGIN B-----\n-----END A-----\n-----END B-----\n';
    assert.deepEqual(pemBlocks(text).map((b) => b.label), ['A']);
  });

  it('reports a block with RFC 1421 headers (a legacy encrypted key) with an empty body', () => {
    const [found] = pemBlocks(block('RSA PRIVATE KEY', 'Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAEC'));
    assert.equal(found?.label, 'RSA PRIVATE KEY');
    assert.equal(found?.der.length, 0);
  });

  it('ignores lowercase, overlong and unterminated labels', () => {
    assert.deepEqual(pemBlocks(`-----BEGIN cert-----\nAA\n-----END cert-----\n${block('X'.repeat(65), 'AA')}-----BEGIN CERTIFICATE`), []);
  });

  it('takes time linear in the text: 1 MiB of worst-case input costs a small multiple of 1 MiB of certificates', () => {
    const normal = fill(block('CERTIFICATE', 'A'.repeat(64)), MIB);
    const worst = [
      fill('-----BEGIN CERTIFICATE-----\n', MIB),
      fill('-----BEGIN A-----\n-----BEGIN B-----\n', MIB),
      fill('-----BEGIN ', MIB),
      fill(`-----BEGIN ${'A'.repeat(60)}`, MIB),
      `${fill('-----BEGIN CERTIFICATE-----\n', MIB / 2)}${fill(block('CERTIFICATE', 'AA'), MIB / 2)}`,
    ];
    const baseline = medianMs(normal);
    for (const text of worst) {
      const ratio = medianMs(text) / baseline;
      assert.ok(ratio < 10, `worst-case input took ${ratio.toFixed(1)}x a normal one of the same size (${text.slice(0, 40)}…)`);
    }
  });
});
