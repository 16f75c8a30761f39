/**
 * Third-party CA fixtures over the management API: a CA registered and verified as an administrator does it
 * (`POST /cas`, then `POST /cas/{id}/verify` with a certificate the CA signed for its verification token). Builders
 * return values and never assert.
 */
import type { TestController } from './controller.js';
import { managementClient } from './management.js';
import type { OpensslPki } from './openssl-pki.js';

/** Registers `pki`'s root as CA `name` (logins enabled) and verifies it; returns the CA id. */
export async function verifiedCa(ctl: TestController, pki: OpensslPki, name: string): Promise<string> {
  const token = await ctl.adminToken();
  const admin = managementClient(ctl, token);
  const created = await admin.post('/cas', {
    name,
    certPem: pki.root.certPem,
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: false,
    isOttCaEnrollmentEnabled: false,
    identityRoles: [],
  });
  if (created.status !== 201) throw new Error(`could not register CA ${name}: ${created.status} ${created.text}`);
  const id = created.json().data.id as string;
  const verificationToken = (await admin.get(`/cas/${id}`)).json().data.verificationToken as string;
  const proof = pki.issue(verificationToken, { signer: pki.root, extensions: ['basicConstraints=CA:FALSE'] }).certPem;
  const verified = await ctl.fetch(`/edge/management/v1/cas/${id}/verify`, { method: 'POST', headers: { 'svc-session': token, 'content-type': 'text/plain' }, body: proof });
  if (verified.status !== 200) throw new Error(`could not verify CA ${name}: ${verified.status} ${verified.text}`);
  return id;
}
