/**
 * Helpers for SDK tests (issue 42): an identity with a certificate authenticator and the identity file an ott
 * enrollment would have written for it (pem: values), services with Dial/Bind policies for named identities, and the
 * edge router policies that let them use every router. Builders return values and never assert.
 */
import type { SdkIdentityFile } from '../../src/sdk/index.js';
import type { TestController } from './controller.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from './fixtures.js';
import { createdId, type ManagementClient } from './management.js';

export interface SdkTestIdentity {
  id: string;
  name: string;
  file: SdkIdentityFile;
  fingerprint: string;
}

/** An identity with a certificate authenticator and its identity file for the controller `ctl`. */
export async function sdkIdentity(ctl: TestController, name: string): Promise<SdkTestIdentity> {
  const { id } = await createIdentity(ctl.running.database, { name });
  const issued = await issueClientCertificate(ctl.pki, name);
  await addCertAuthenticator(ctl.running.database, id, issued.leafPem);
  const ztAPI = `${ctl.baseUrl}/edge/client/v1`;
  return { id, name, fingerprint: issued.fingerprint.toLowerCase(), file: { ztAPI, ztAPIs: [ztAPI], id: { key: `pem:${issued.keyPem}`, cert: `pem:${issued.certPem}`, ca: `pem:${ctl.ca}` } } };
}

/** A service with a Dial policy for `dialers` and a Bind policy for `hosts` (identity ids); its id. */
export async function sdkService(admin: ManagementClient, name: string, access: { dialers: string[]; hosts: string[]; encryptionRequired?: boolean }): Promise<string> {
  const id = await createdId(admin, '/services', { name, encryptionRequired: access.encryptionRequired ?? true });
  if (access.dialers.length > 0) await createdId(admin, '/service-policies', { name: `${name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: access.dialers.map((i) => `@${i}`), serviceRoles: [`@${id}`] });
  if (access.hosts.length > 0) await createdId(admin, '/service-policies', { name: `${name}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: access.hosts.map((i) => `@${i}`), serviceRoles: [`@${id}`] });
  return id;
}

/** Every identity may use every router, for every service. */
export async function openRouterPolicies(admin: ManagementClient): Promise<void> {
  await createdId(admin, '/edge-router-policies', { name: 'all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await createdId(admin, '/service-edge-router-policies', { name: 'all-services-all-routers', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
}
