// What the low-S rule (decision 0060) costs against an ES256 signature: nanoseconds per call of canonicalSignature
// (the signer's fix-up), isCanonicalSignature (the verifier's check) and a raw ES256 signature, each after a
// warm-up, 20,000 calls each. Needs `npm run build` first. Prints JSON.
import { generateKeyPairSync, sign } from 'node:crypto';
import { canonicalSignature, compactSigner, isCanonicalSignature } from '../../dist/crypto/jws.js';

const CALLS = 20_000;
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const data = Buffer.alloc(300, 'x');
const signRaw = () => sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
const signatures = Array.from({ length: CALLS }, signRaw);
const signer = compactSigner(privateKey, 'ES256');
const tokens = await Promise.all(Array.from({ length: CALLS }, (_, at) => signer({ alg: 'ES256' }, { sub: `s${at}` })));

/** Nanoseconds per call of `run` over `inputs`, after three warm-up passes. */
function perCall(inputs, run) {
  for (let pass = 0; pass < 3; pass++) for (const input of inputs) run(input);
  const start = process.hrtime.bigint();
  for (const input of inputs) run(input);
  return Math.round(Number(process.hrtime.bigint() - start) / inputs.length);
}

console.log(JSON.stringify({
  canonicalSignatureNs: perCall(signatures, (signature) => canonicalSignature('ES256', signature)),
  isCanonicalSignatureNs: perCall(tokens, (token) => isCanonicalSignature(token, 'ES256')),
  rawEs256SignNs: perCall(signatures.slice(0, 2_000), () => signRaw()),
}));
