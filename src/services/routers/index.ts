/**
 * The routers domain's builder: an edge router's own certificate operations (enrollment with its one-time token,
 * certificate extension), over the store. Router administration stays in ../authorization (edge-routers.ts).
 */
import { isIP } from 'node:net';
import type { Database } from '../../persistence/database.js';
import { createRouterCertificateRepository } from '../../persistence/repositories/router-certificates.js';
import { certificateAltNames } from '../../pki/csr-names.js';
import type { LoadedCertificateAuthority, x509 } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import { hostKey } from './router-csrs.js';
import { createRouterEnrollmentService, type RouterEnrollmentService } from './router-enrollment.js';

export type { RouterEnrollmentService } from './router-enrollment.js';

/**
 * Loopback names are not reserved: a router on the controller's machine names them too (the quickstart's routers
 * ask for localhost and 127.0.0.1), and only a client on that machine could be misled by them.
 */
function isLoopback(host: string): boolean {
  const key = hostKey(host);
  return key === 'localhost' || key.endsWith('.localhost') || key === '::1' || (isIP(key) === 4 && key.startsWith('127.'));
}

/**
 * `serverCertificates`: the controller's own server certificates (every listener's), whose names no router may
 * hold; `extraHosts`: further names of the controller (its advertised API address).
 */
export function buildRouterEnrollment(
  database: Database,
  settings: { clock: Clock; signingCa: LoadedCertificateAuthority | undefined; caPems: readonly string[]; serverCertificates: readonly x509.X509Certificate[]; extraHosts: readonly string[] },
): RouterEnrollmentService {
  const reserved = new Set<string>();
  const names = [...settings.extraHosts, ...settings.serverCertificates.flatMap((cert) => {
    const { dns, ip } = certificateAltNames(cert);
    return [...dns, ...ip];
  })];
  for (const name of names) if (!isLoopback(name)) reserved.add(hostKey(name));
  return createRouterEnrollmentService({
    routers: createRouterCertificateRepository(database),
    changes: auditedChanges(database, settings.clock, createRouterCertificateRepository),
    signingCa: settings.signingCa,
    caPems: settings.caPems,
    reservedHosts: reserved,
    clock: settings.clock,
  });
}
