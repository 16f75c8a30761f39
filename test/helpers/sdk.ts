/**
 * Helpers for SDK tests (issue 42): an identity with a certificate authenticator and the identity file an ott
 * enrollment would have written for it (pem: values), services with Dial/Bind policies for named identities, the
 * edge router policies that let them use every router, routers SDKs can reach on loopback, and a reader of a whole
 * connection. Builders return values and never assert.
 */
import type { Readable } from 'node:stream';
import type { SdkIdentityFile } from '../../src/sdk/index.js';
import { startTestController, type TestController } from './controller.js';
import { addCertAuthenticator, createIdentity, issueClientCertificate } from './fixtures.js';
import { createdId, type ManagementClient } from './management.js';
import { enrolledRouter, writeRouterFile, type EnrolledRouter } from './routers.js';

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

/** A service with a Dial policy for `dialers` and a Bind policy for `hosts` (identity ids), and `configs` (ids); its id. */
export async function sdkService(admin: ManagementClient, name: string, access: { dialers: string[]; hosts: string[]; encryptionRequired?: boolean; configs?: string[] }): Promise<string> {
  const id = await createdId(admin, '/services', { name, encryptionRequired: access.encryptionRequired ?? true, ...(access.configs ? { configs: access.configs } : {}) });
  if (access.dialers.length > 0) await createdId(admin, '/service-policies', { name: `${name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: access.dialers.map((i) => `@${i}`), serviceRoles: [`@${id}`] });
  if (access.hosts.length > 0) await createdId(admin, '/service-policies', { name: `${name}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: access.hosts.map((i) => `@${i}`), serviceRoles: [`@${id}`] });
  return id;
}

/** Every identity may use every router, for every service. */
export async function openRouterPolicies(admin: ManagementClient): Promise<void> {
  await createdId(admin, '/edge-router-policies', { name: 'all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await createdId(admin, '/service-edge-router-policies', { name: 'all-services-all-routers', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
}

/**
 * Everything a connection gives until its end. Events, not `for await`: the async iterator destroys the stream when
 * it ends, which would also end the writing half a half-closed connection still needs.
 */
export function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
    // A 'data' listener does not restart a stream paused by pause(); resume() does.
    stream.resume();
  });
}

/**
 * A router enrolled for SDK tests, its config written: its server certificate also names 127.0.0.1 and it advertises
 * `127.0.0.1:<its edge port>`, the address SDKs connect to (the controller must allow local names).
 */
export async function sdkRouter(ctl: TestController, admin: ManagementClient, name: string): Promise<EnrolledRouter> {
  const router = await enrolledRouter(admin, (token, body) => ctl.fetch(`/edge/client/v1/enroll?method=erott&token=${token}`, { method: 'POST', body }), name, undefined, { serverSans: ['IP:127.0.0.1'] });
  writeRouterFile(router, { endpoints: [`tls:127.0.0.1:${ctl.ports[1]}`], advertise: `127.0.0.1:${router.edgePort}` });
  return router;
}

/**
 * A controller for SDK tests: a control listener for routers (on its second port) and local names allowed in router
 * certificates, so test routers can name 127.0.0.1, the address they advertise.
 */
export function sdkTestController(): Promise<TestController> {
  return startTestController({
    extraPorts: 1,
    modify: (config, ports) => {
      config.ctrl = { listener: `tls:127.0.0.1:${ports[1]}` };
      config.edge.enrollment.edgeRouter = { allowLocalNames: true };
    },
  });
}
