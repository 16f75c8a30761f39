/**
 * The routers domain's builder: an edge router's own certificate operations (enrollment with its one-time token,
 * certificate extension), over the store. Router administration stays in ../authorization (edge-routers.ts).
 */
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
 * `serverCertificates`: the controller's own server certificates (every listener's), whose names no router may
 * hold; `extraHosts`: further names of the controller (its advertised API address); `allowLocalNames`:
 * `edge.enrollment.edgeRouter.allowLocalNames` (decision 0056).
 */
export function buildRouterEnrollment(
  database: Database,
  settings: {
    clock: Clock;
    signingCa: LoadedCertificateAuthority | undefined;
    caPems: readonly string[];
    serverCertificates: readonly x509.X509Certificate[];
    extraHosts: readonly string[];
    allowLocalNames: boolean;
  },
): RouterEnrollmentService {
  const names = [...settings.extraHosts, ...settings.serverCertificates.flatMap((cert) => {
    const { dns, ip } = certificateAltNames(cert);
    return [...dns, ...ip];
  })];
  return createRouterEnrollmentService({
    routers: createRouterCertificateRepository(database),
    changes: auditedChanges(database, settings.clock, createRouterCertificateRepository),
    signingCa: settings.signingCa,
    caPems: settings.caPems,
    serverNames: { controllerHosts: new Set(names.map(hostKey)), allowLocalNames: settings.allowLocalNames },
    clock: settings.clock,
  });
}
