/**
 * The checks a third-party chain passes before it logs in or enrolls (pki/chain.ts; decision 0037), and what CA
 * auto-enrollment reads from a certificate (services/cas/identity-from-certificate.ts), on certificates made by
 * openssl: each link signed by a CA that may sign, every certificate in its validity window, a leaf for client
 * authentication; a registered intermediate is an anchor as much as a root.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CertificateAuthority } from '../../src/domain/ca.js';
import { verifyChain } from '../../src/pki/chain.js';
import { commonNameOf, externalIdOf, identityName } from '../../src/services/cas/identity-from-certificate.js';
import { testDialect } from '../helpers/database.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

const read = (...issued: Issued[]) => issued.map((one) => new X509Certificate(one.certPem));
const anchorsOf = (...issued: Issued[]) => read(...issued);
const verdictOf = (chain: Issued[], anchors: Issued[], now = new Date()) => verifyChain(read(...chain), anchorsOf(...anchors), (cert) => cert, now);
const CLIENT = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth'];

describe(`third-party chain checks (${testDialect})`, () => {
  let pki: OpensslPki;
  before(() => {
    pki = makeOpensslPki('Chain');
  });
  after(() => pki.dispose());

  it('accepts a leaf of the intermediate sent with it, anchored at the root or at the intermediate itself', () => {
    const leaf = pki.client('ok');
    assert.equal(verdictOf([leaf, pki.intermediate], [pki.root]).ok, true);
    assert.equal(verdictOf([leaf], [pki.intermediate]).ok, true, 'a registered intermediate is an anchor');
    const missing = verdictOf([leaf], [pki.root]);
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.code, 'UNTRUSTED', 'without the intermediate there is no path');
  });

  it('refuses a path through a certificate that may not sign: not a CA, or a CA without keyCertSign', () => {
    const notCa = pki.issue('not-a-ca', { extensions: ['basicConstraints=critical,CA:FALSE'] });
    const underNotCa = pki.issue('victim', { signer: notCa, extensions: CLIENT });
    const viaNotCa = verdictOf([underNotCa, notCa, pki.intermediate], [pki.root]);
    assert.equal(!viaNotCa.ok && viaNotCa.code, 'UNTRUSTED');
    const noSign = pki.issue('no-sign-ca', { extensions: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,digitalSignature'] });
    const underNoSign = pki.issue('victim-2', { signer: noSign, extensions: CLIENT });
    const viaNoSign = verdictOf([underNoSign, noSign, pki.intermediate], [pki.root]);
    assert.equal(!viaNoSign.ok && viaNoSign.code, 'UNTRUSTED');
  });

  it("refuses a path longer than a CA's path length constraint allows, and accepts one within it", () => {
    const CA_PATHLEN_0 = ['basicConstraints=critical,CA:TRUE,pathlen:0', 'keyUsage=critical,keyCertSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
    const CA = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
    // root -> intermediate -> limited (pathlen 0) -> leaf: within; limited -> sub-CA -> leaf: one CA too many.
    const limited = pki.issue('limited-ca', { signer: pki.intermediate, extensions: CA_PATHLEN_0 });
    const within = pki.issue('within', { signer: limited, extensions: CLIENT });
    assert.equal(verdictOf([within, limited, pki.intermediate], [pki.root]).ok, true);
    const subCa = pki.issue('sub-ca', { signer: limited, extensions: CA });
    const beyond = pki.issue('beyond', { signer: subCa, extensions: CLIENT });
    const verdict = verdictOf([beyond, subCa, limited, pki.intermediate], [pki.root]);
    assert.equal(verdict.ok, false);
    assert.equal(!verdict.ok && verdict.code, 'UNTRUSTED');
    assert.match(!verdict.ok ? verdict.reason : '', /limited-ca allows 0 CA certificate\(s\) below it; the chain has 1/);
    // The same when the limited CA itself is the registered anchor.
    assert.equal(verdictOf([beyond, subCa], [limited]).ok, false);
    assert.equal(verdictOf([within], [limited]).ok, true);
  });

  it('refuses a leaf for servers only, and reports an expired or not yet valid certificate by its code', () => {
    const server = pki.issue('server-only', { extensions: ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=serverAuth'] });
    const serverVerdict = verdictOf([server, pki.intermediate], [pki.root]);
    assert.equal(!serverVerdict.ok && serverVerdict.code, 'NOT_CLIENT_AUTH');
    const expired = pki.client('expired', { days: -1 });
    const expiredVerdict = verdictOf([expired, pki.intermediate], [pki.root]);
    assert.equal(!expiredVerdict.ok && expiredVerdict.code, 'CERT_HAS_EXPIRED');
    const leaf = pki.client('early');
    const before_ = verdictOf([leaf, pki.intermediate], [pki.root], new Date(Date.now() - 7 * 86_400_000));
    assert.equal(!before_.ok && before_.code, 'CERT_NOT_YET_VALID');
  });

  it('refuses a CA certificate or a key that can neither sign nor agree as the leaf, and takes a leaf without keyUsage', () => {
    const asCa = pki.issue('leaf-as-ca', { extensions: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,digitalSignature', 'extendedKeyUsage=clientAuth'] });
    const caVerdict = verdictOf([asCa, pki.intermediate], [pki.root]);
    assert.equal(!caVerdict.ok && caVerdict.code, 'NOT_A_LEAF');
    assert.match(!caVerdict.ok ? caVerdict.reason : '', /basicConstraints CA:TRUE/);
    const encipher = pki.issue('encipher-only', { extensions: [...CLIENT, 'keyUsage=critical,keyEncipherment'] });
    const encipherVerdict = verdictOf([encipher, pki.intermediate], [pki.root]);
    assert.equal(!encipherVerdict.ok && encipherVerdict.code, 'NOT_A_LEAF');
    assert.match(!encipherVerdict.ok ? encipherVerdict.reason : '', /keyUsage lacks digitalSignature and keyAgreement/);
    assert.equal(verdictOf([pki.issue('agree', { extensions: [...CLIENT, 'keyUsage=critical,keyAgreement'] }), pki.intermediate], [pki.root]).ok, true);
    assert.equal(verdictOf([pki.issue('no-usage', { extensions: CLIENT }), pki.intermediate], [pki.root]).ok, true);
  });

  it('refuses a chain of another PKI, and a CA certificate presented as its own leaf', () => {
    const other = makeOpensslPki('Elsewhere');
    try {
      const foreign = verdictOf([other.client('x'), other.intermediate], [pki.root]);
      assert.equal(!foreign.ok && foreign.code, 'UNTRUSTED');
      const self = verdictOf([pki.root], [pki.root]);
      assert.equal(self.ok, false);
    } finally {
      other.dispose();
    }
  });

  it('names an auto-enrolled identity by the format and reads its externalId by the claim', () => {
    const leaf = new X509Certificate(
      pki.issue('laptop-7', { extensions: [...CLIENT, 'subjectAltName=URI:spiffe://acme/device/laptop-7,URI:https://acme.example/x,email:owner@acme.example'] }).certPem,
    );
    const ca = { id: 'ca1', name: 'acme', identityNameFormat: '[caName]/[commonName]/[requestedName]' } as CertificateAuthority;
    assert.equal(commonNameOf(leaf), 'laptop-7');
    assert.equal(identityName(ca, { commonName: 'laptop-7', requestedName: 'mine', identityId: 'i1' }), 'acme/laptop-7/mine');
    const claim = { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'SPLIT', parserCriteria: '/', index: 3 } as const;
    assert.equal(externalIdOf(leaf, claim), 'device', 'spiffe://acme/device/laptop-7 split on / is [spiffe:, "", acme, device, laptop-7]');
    assert.equal(externalIdOf(leaf, { ...claim, index: 4 }), 'laptop-7');
    assert.equal(externalIdOf(leaf, { location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@acme.example', parser: 'NONE', parserCriteria: '', index: 0 }), 'owner@acme.example');
    assert.equal(externalIdOf(leaf, { location: 'COMMON_NAME', matcher: 'PREFIX', matcherCriteria: 'desk', parser: 'NONE', parserCriteria: '', index: 0 }), undefined);
  });
});
