// Setup for the secondary external JWT figure of `npm run bench`: an external JWT signer with a self-signed P-256
// certificate made here, the `default` auth policy made to require it (so every later request of the admin needs
// the JWT), and a JWT of that signer for the admin. Returns the JWT.
import { SignJWT } from 'jose';
import { webcrypto, x509 } from '../../dist/pki/x509.js';
import { post } from './lib.mjs';

const ISSUER = 'https://bench-idp.example';
const AUDIENCE = 'svc-bench';

export async function requireSecondaryJwt(origin, ca, adminToken) {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name: 'CN=bench-idp', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: algorithm });
  const management = `${origin}/edge/management/v1`;
  const auth = { headers: { 'svc-session': adminToken } };
  const signer = await post(`${management}/external-jwt-signers`, ca, { name: 'bench-idp', issuer: ISSUER, audience: AUDIENCE, enabled: true, certPem: cert.toString('pem') }, auth);
  if (signer.status !== 201) throw new Error(`creating the bench signer failed: ${signer.text}`);
  const signerId = JSON.parse(signer.text).data.id;
  const me = JSON.parse((await post(`${origin}/edge/client/v1/current-api-session`, ca, undefined, { method: 'GET', ...auth })).text).data.identityId;
  const jwt = await new SignJWT({ sub: me }).setProtectedHeader({ alg: 'ES256' }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('1h').sign(keys.privateKey);
  const policy = await post(`${management}/auth-policies/default`, ca, { secondary: { requireExtJwt: signerId } }, { method: 'PATCH', headers: { 'svc-session': adminToken, authorization: `Bearer ${jwt}` } });
  if (policy.status !== 200) throw new Error(`requiring the bench signer failed: ${policy.text}`);
  return jwt;
}
