/**
 * Name constraints and critical extensions in third-party chains (pki/chain.ts, pki/name-constraints.ts; RFC 5280
 * sections 4.2 and 4.2.1.10; decision 0037), on chains made by the `openssl` command: a CA's permitted and excluded
 * subtrees bind every certificate below it (DNS, email, URI, IP, directory names), a constraint that cannot be
 * checked refuses rather than accepts, and a certificate with a critical extension nothing here processes is refused.
 * A nameConstraints extension crafted byte by byte (openssl's `DER:` value) that is not exactly DER is refused, never
 * read leniently: a skipped or reordered exclusion would widen what the CA allows.
 * Then the same refusals at a running controller: a constrained CA's certificate outside its names neither enrolls
 * nor logs in.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyChain } from '../../src/pki/chain.js';
import { nameConstraintProblem } from '../../src/pki/name-constraints.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { addCertAuthenticator, createIdentity } from '../helpers/fixtures.js';
import { managementClient } from '../helpers/management.js';
import { makeOpensslPki, type Issued, type OpensslPki } from '../helpers/openssl-pki.js';

const read = (...issued: Issued[]) => issued.map((one) => new X509Certificate(one.certPem));
const verdictOf = (chain: Issued[], anchors: Issued[]) => verifyChain(read(...chain), read(...anchors), (cert) => cert, new Date());
const CA = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
const CLIENT = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth'];
/** The failure of a verdict as `code: reason`, or 'ok'. */
const outcome = (verdict: ReturnType<typeof verdictOf>) => (verdict.ok ? 'ok' : `${verdict.code}: ${verdict.reason}`);
/** A DER element as hex: `tag` (hex), a short-form length, then `parts` (hex); every element here is under 128 octets. */
const tlv = (tag: string, ...parts: string[]) => {
  const body = parts.join('');
  assert.ok(body.length / 2 < 128, 'a short-form length');
  return `${tag}${(body.length / 2).toString(16).padStart(2, '0')}${body}`;
};
/** A GeneralSubtree holding the dNSName `name` (its UTF-8 bytes, whatever they are). */
const dnsSubtree = (name: string) => tlv('30', tlv('82', Buffer.from(name, 'utf8').toString('hex')));
/** NameConstraints permitting acme.example: well-formed, the base the crafted values below spoil one way each. */
const PERMIT_ACME = tlv('30', tlv('a0', dnsSubtree('acme.example')));

describe(`name constraints and critical extensions in third-party chains (${testDialect})`, () => {
  let pki: OpensslPki;
  /** A CA under the root constrained by `constraints` (openssl nameConstraints values, plus sections after them). */
  const constrainedCa = (name: string, constraints: string, sections: string[] = []) =>
    pki.issue(name, { signer: pki.root, extensions: [...CA, `nameConstraints=critical,${constraints}`, ...sections] });
  /** A client certificate of `signer` with `san` as its subjectAltName (none when empty). */
  const leafOf = (signer: Issued, san: string, commonName = 'leaf') => pki.issue(commonName, { signer, extensions: [...CLIENT, ...(san ? [`subjectAltName=${san}`] : [])] });
  const judge = (ca: Issued, san: string) => outcome(verdictOf([leafOf(ca, san), ca], [pki.root]));

  before(() => {
    pki = makeOpensslPki('Acme');
  });
  after(() => pki.dispose());

  it('accepts names inside a permitted DNS subtree and refuses one outside, naming the certificate, the name and the subtree', () => {
    const ca = constrainedCa('dns-ca', 'permitted;DNS:acme.example');
    assert.equal(judge(ca, 'DNS:acme.example'), 'ok');
    assert.equal(judge(ca, 'DNS:host.eu.acme.example'), 'ok', 'any number of labels to the left');
    assert.equal(judge(ca, 'DNS:*.acme.example'), 'ok');
    assert.equal(
      judge(ca, 'DNS:host.acme.example,DNS:host.evil.example'),
      'NAME_CONSTRAINTS_VIOLATION: the certificate O=Acme, CN=leaf has the DNS name host.evil.example, outside every permitted DNS subtree (acme.example) of the CA O=Acme, CN=dns-ca',
    );
    assert.match(judge(ca, 'DNS:notacme.example'), /NAME_CONSTRAINTS_VIOLATION: .*notacme\.example, outside/, 'a label boundary, not a string suffix');
    assert.equal(judge(ca, 'email:someone@elsewhere.example'), 'ok', 'a DNS constraint does not bind email names');
    assert.equal(judge(ca, ''), 'ok', 'no DNS name: nothing for the DNS constraint to judge');
  });

  it('refuses a name within an excluded subtree, and a wildcard that stands for an excluded name', () => {
    const ca = constrainedCa('excluding-ca', 'permitted;DNS:acme.example,excluded;DNS:secret.acme.example');
    assert.equal(judge(ca, 'DNS:www.acme.example'), 'ok');
    assert.match(judge(ca, 'DNS:db.secret.acme.example'), /has the DNS name db\.secret\.acme\.example, within the excluded DNS subtree secret\.acme\.example of the CA O=Acme, CN=excluding-ca/);
    assert.match(judge(ca, 'DNS:*.acme.example'), /\*\.acme\.example, within the excluded DNS subtree secret\.acme\.example/);
  });

  it('keeps IP names inside permitted address ranges and out of excluded ones, IPv4 and IPv6', () => {
    const ca = constrainedCa('ip-ca', 'permitted;IP:10.0.0.0/255.0.0.0,permitted;IP:fd00:0:0:0:0:0:0:0/ffff:0:0:0:0:0:0:0,excluded;IP:10.9.0.0/255.255.0.0');
    assert.equal(judge(ca, 'IP:10.1.2.3'), 'ok');
    assert.equal(judge(ca, 'IP:fd00::7'), 'ok');
    assert.match(judge(ca, 'IP:11.1.2.3'), /has the IP name 11\.1\.2\.3, outside every permitted IP subtree \(10\.0\.0\.0\/8, fd00:0:0:0:0:0:0:0\/16\)/);
    assert.match(judge(ca, 'IP:10.9.8.7'), /has the IP name 10\.9\.8\.7, within the excluded IP subtree 10\.9\.0\.0\/16/);
    assert.match(judge(ca, 'IP:fe80::1'), /NAME_CONSTRAINTS_VIOLATION: .*IP name fe80:/);
  });

  it('judges email names (also the subject emailAddress) by host or mailbox, and URI names by their host', () => {
    const mail = constrainedCa('mail-ca', 'permitted;email:.acme.example,permitted;email:boss@partner.example');
    assert.equal(judge(mail, 'email:ann@eu.acme.example'), 'ok');
    assert.equal(judge(mail, 'email:boss@partner.example'), 'ok');
    assert.match(judge(mail, 'email:ann@acme.example'), /email name ann@acme\.example, outside every permitted email subtree/, '.acme.example: hosts below it only');
    assert.match(judge(mail, 'email:intern@partner.example'), /outside every permitted email subtree/);
    const withSubjectEmail = pki.issue('mailer/emailAddress=ann@elsewhere.example', { signer: mail, extensions: CLIENT });
    assert.match(outcome(verdictOf([withSubjectEmail, mail], [pki.root])), /email name ann@elsewhere\.example/);

    const uri = constrainedCa('uri-ca', 'permitted;URI:.acme.example');
    assert.equal(judge(uri, 'URI:spiffe://eu.acme.example/device/7'), 'ok');
    assert.match(judge(uri, 'URI:spiffe://evil.example/device/7'), /URI name spiffe:\/\/evil\.example\/device\/7, outside every permitted URI subtree \(\.acme\.example\)/);
    assert.match(judge(uri, 'URI:urn:uuid:5f0c7a52-1b1e-4f7e-9d7e-0c0a3b5d2f11'), /has no host name to check against the URI name constraints/, 'a URI constraint that cannot be judged refuses');
  });

  it('binds the subject of every certificate below a CA with a directory name constraint, intermediates included', () => {
    const sections = ['[acme_dn]', 'O=Acme', '[other_dn]', 'O=Other'];
    const acmeOnly = constrainedCa('dn-ca', 'permitted;dirName:acme_dn', sections);
    assert.equal(judge(acmeOnly, ''), 'ok', 'O=Acme, CN=leaf lies below O=Acme');
    // The root constrains everything below it: the intermediate's own subject (O=Acme) lies outside O=Other.
    const otherOnly = constrainedCa('other-ca', 'permitted;dirName:other_dn', sections);
    const sub = pki.issue('sub-ca', { signer: otherOnly, extensions: CA });
    assert.match(outcome(verdictOf([leafOf(sub, ''), sub, otherOnly], [pki.root])), /the certificate O=Acme, CN=sub-ca has the directory name O=Acme, CN=sub-ca, outside every permitted directory subtree \(O=Other\)/);
  });

  it("binds by the registered anchor's own constraints, and refuses a constraint of a kind it cannot check", () => {
    const anchor = constrainedCa('anchor-ca', 'permitted;DNS:acme.example');
    assert.equal(outcome(verdictOf([leafOf(anchor, 'DNS:a.acme.example')], [anchor])), 'ok');
    assert.match(outcome(verdictOf([leafOf(anchor, 'DNS:a.evil.example')], [anchor])), /NAME_CONSTRAINTS_VIOLATION: .*outside every permitted DNS subtree \(acme\.example\) of the CA O=Acme, CN=anchor-ca/);
    const unknownKind = constrainedCa('rid-ca', 'permitted;RID:1.2.3.4');
    assert.equal(judge(unknownKind, 'DNS:a.acme.example'), 'NAME_CONSTRAINTS_VIOLATION: the CA O=Acme, CN=rid-ca constrains registeredID names, which this controller cannot check');
  });

  it('refuses a leaf or an intermediate with a critical extension nothing here processes, and accepts the same extension not critical', () => {
    const strange = pki.issue('strange', { extensions: [...CLIENT, '1.3.6.1.4.1.55555.1=critical,ASN1:UTF8String:must-understand'] });
    assert.equal(outcome(verdictOf([strange, pki.intermediate], [pki.root])), 'UNHANDLED_CRITICAL_EXTENSION: the certificate O=Acme, CN=strange has the critical extension 1.3.6.1.4.1.55555.1, which is not processed here');
    const mild = pki.issue('mild', { extensions: [...CLIENT, '1.3.6.1.4.1.55555.1=ASN1:UTF8String:may-ignore'] });
    assert.equal(outcome(verdictOf([mild, pki.intermediate], [pki.root])), 'ok');
    const strictCa = pki.issue('strict-ca', { signer: pki.root, extensions: [...CA, 'policyConstraints=critical,requireExplicitPolicy:0'] });
    assert.match(outcome(verdictOf([leafOf(strictCa, ''), strictCa], [pki.root])), /UNHANDLED_CRITICAL_EXTENSION: the certificate O=Acme, CN=strict-ca has the critical extension 2\.5\.29\.36/);
    const policies = pki.issue('policies', { extensions: [...CLIENT, 'certificatePolicies=critical,1.3.6.1.4.1.55555.2'] });
    assert.equal(outcome(verdictOf([policies, pki.intermediate], [pki.root])), 'ok', 'certificate policies never refuse when any policy is acceptable');
  });

  describe('a nameConstraints extension crafted byte by byte', () => {
    /** A CA under the root whose nameConstraints extension value is exactly `der` (hex). */
    const craftedCa = (name: string, der: string) => pki.issue(name, { signer: pki.root, extensions: [...CA, `nameConstraints=critical,DER:${der}`] });
    const unreadable = (ca: string) => `NAME_CONSTRAINTS_VIOLATION: the name constraints of the CA O=Acme, CN=${ca} could not be read`;

    it('refuses a value that is not exactly DER (a trailing byte, a long-form length, a non-ASCII dNSName), as the CA on the path and as the anchor', () => {
      assert.equal(judge(craftedCa('plain-ca', PERMIT_ACME), 'DNS:a.acme.example'), 'ok', 'the well-formed value: the name is permitted');
      const crafted = {
        'trailing-ca': `${PERMIT_ACME}00`,
        // 30 81 12 says what 30 12 says, in the long form DER forbids for lengths under 128; likewise one level down.
        'long-length-ca': `3081${PERMIT_ACME.slice(2)}`,
        'long-inner-length-ca': tlv('30', `a081${tlv('a0', dnsSubtree('acme.example')).slice(2)}`),
        // An IA5String holds ASCII only; read as Latin-1 text, bücher.acme.example would become a name no certificate can match.
        'non-ascii-ca': tlv('30', tlv('a0', dnsSubtree('bücher.acme.example'))),
      };
      for (const [name, der] of Object.entries(crafted)) {
        const ca = craftedCa(name, der);
        assert.equal(judge(ca, 'DNS:a.acme.example'), unreadable(name), `${name}, below the root`);
        assert.equal(outcome(verdictOf([leafOf(ca, 'DNS:a.acme.example')], [ca])), unreadable(name), `${name}, registered as the anchor`);
      }
    });

    it('refuses two excludedSubtrees lists, and permitted and excluded in the wrong order, whose CA is then no CA at all', () => {
      const crafted = {
        'two-excluded-ca': tlv('30', tlv('a0', dnsSubtree('acme.example')), tlv('a1', dnsSubtree('secret.acme.example')), tlv('a1', dnsSubtree('a.acme.example'))),
        'reversed-ca': tlv('30', tlv('a1', dnsSubtree('a.acme.example')), tlv('a0', dnsSubtree('acme.example'))),
      };
      for (const [name, der] of Object.entries(crafted)) {
        const issued = craftedCa(name, der);
        // OpenSSL (under node:crypto) finds the extension malformed and so does not take the certificate for a CA:
        // nothing it signed leads anywhere, and the refusal comes before the name constraints are read.
        assert.equal(judge(issued, 'DNS:a.acme.example'), 'UNTRUSTED: the certificate chain does not lead to a trusted CA', `${name}, below the root`);
        assert.equal(outcome(verdictOf([leafOf(issued, 'DNS:a.acme.example')], [issued])), 'UNTRUSTED: the certificate chain does not lead to a trusted CA', `${name}, as the anchor`);
        // The name constraints reader refuses them on its own too: a lenient read would skip the second exclusion.
        const [leaf, ca, root] = read(leafOf(issued, 'DNS:a.acme.example'), issued, pki.root) as [X509Certificate, X509Certificate, X509Certificate];
        assert.equal(nameConstraintProblem([leaf, ca, root]), unreadable(name).replace('NAME_CONSTRAINTS_VIOLATION: ', ''), name);
      }
    });

    it('applies an iPAddress constraint whose mask is not a prefix by its exact bytes, not as the prefix its bit count suggests', () => {
      // 10.0.0.0 masked by 0.255.0.0: the second octet must be 0, the others are free. Counting the mask's bits would
      // read it as 10.0.0.0/8 instead, which holds 10.1.2.3 and not 99.0.5.6.
      const ca = craftedCa('odd-mask-ca', tlv('30', tlv('a0', tlv('30', tlv('87', '0a000000', '00ff0000')))));
      assert.equal(judge(ca, 'IP:99.0.5.6'), 'ok');
      assert.equal(judge(ca, 'IP:10.0.200.1'), 'ok');
      assert.equal(
        judge(ca, 'IP:10.1.2.3'),
        'NAME_CONSTRAINTS_VIOLATION: the certificate O=Acme, CN=leaf has the IP name 10.1.2.3, outside every permitted IP subtree (10.0.0.0/0.255.0.0) of the CA O=Acme, CN=odd-mask-ca',
      );
      assert.equal(judge(ca, 'DNS:a.acme.example'), 'ok', 'an IP constraint does not bind DNS names');
    });
  });
});

describe(`a name-constrained third-party CA at a running controller (${testDialect})`, () => {
  const logLines: string[] = [];
  let ctl: TestController;
  let pki: OpensslPki;
  let constrained: Issued;

  before(async () => {
    ctl = await startTestController({ logLines });
    pki = makeOpensslPki('Acme');
    constrained = pki.issue('devices-ca', { signer: pki.root, extensions: [...CA, 'nameConstraints=critical,permitted;DNS:devices.acme.example'] });
    const admin = managementClient(ctl, await ctl.adminToken());
    const created = await admin.post('/cas', {
      name: 'devices',
      certPem: constrained.certPem,
      isAuthEnabled: true,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: false,
      identityRoles: [],
      identityNameFormat: '[commonName]',
    });
    assert.equal(created.status, 201, created.text);
    const caId = created.json().data.id;
    const token = (await admin.get(`/cas/${caId}`)).json().data.verificationToken;
    const proof = pki.issue(token, { signer: constrained, extensions: ['basicConstraints=CA:FALSE'] }).certPem;
    const verified = await ctl.fetch(`/edge/management/v1/cas/${caId}/verify`, { method: 'POST', headers: { 'svc-session': await ctl.adminToken(), 'content-type': 'text/plain' }, body: proof });
    assert.equal(verified.status, 200, verified.text);
  });
  after(async () => {
    pki.dispose();
    await ctl.close();
  });

  const post = (path: string, leaf: Issued, body?: object) => ctl.fetch(`/edge/client/v1${path}`, { method: 'POST', ...(body ? { body } : {}), cert: leaf.certPem, key: leaf.keyPem });

  it('enrolls and logs in a certificate inside the permitted names, and refuses one outside with 400 naming the name, creating nothing', async () => {
    const inside = pki.issue('sensor-1', { signer: constrained, extensions: [...CLIENT, 'subjectAltName=DNS:sensor-1.devices.acme.example'] });
    assert.equal((await post('/enroll/ca', inside)).status, 200);
    assert.equal((await post('/authenticate?method=cert', inside, {})).status, 200);

    const outside = pki.issue('sensor-2', { signer: constrained, extensions: [...CLIENT, 'subjectAltName=DNS:sensor-2.evil.example'] });
    const enrolled = await post('/enroll/ca', outside);
    assert.equal(enrolled.status, 400, enrolled.text);
    assert.equal(enrolled.json().error.code, 'CERT_FAILED_VALIDATION');
    assert.match(enrolled.json().error.cause.reason, /DNS name sensor-2\.evil\.example, outside every permitted DNS subtree \(devices\.acme\.example\)/);
    const named = await ctl.fetch(`/edge/management/v1/identities?filter=${encodeURIComponent('name="sensor-2"')}`, { headers: { 'svc-session': await ctl.adminToken() } });
    assert.equal(named.json().data.length, 0, 'no identity was created');
    // Even held by an authenticator (added directly to the store), the certificate outside does not log in.
    const holder = await createIdentity(ctl.running.database, { name: 'holder' });
    await addCertAuthenticator(ctl.running.database, holder.id, outside.certPem);
    const login = await post('/authenticate?method=cert', outside, {});
    assert.equal(login.status, 401);
    const refusal = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.securityEvent === 'login-refused').at(-1);
    assert.match(String(refusal?.reason), /NAME_CONSTRAINTS_VIOLATION: .*sensor-2\.evil\.example/);
  });
});
