/**
 * The routers domain's builders: an edge router's own certificate operations (enrollment with its one-time token,
 * certificate extension), and its presence (online status, what its hello reported), over the store. Router
 * administration stays in ../authorization (edge-routers.ts).
 */
import type { Database } from '../../persistence/database.js';
import { createRouterCertificateRepository } from '../../persistence/repositories/router-certificates.js';
import { createRouterPresenceRepository } from '../../persistence/repositories/router-presence.js';
import { certificateAltNames } from '../../pki/csr-names.js';
import type { LoadedCertificateAuthority, x509 } from '../../pki/index.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { ControllerMetrics } from '../metrics/controller-metrics.js';
import { createRouterPresence, type RegisteringRouterPresence } from './presence.js';
import { hostKey } from './router-csrs.js';
import { createRouterEnrollmentService, type RouterEnrollmentService } from './router-enrollment.js';

export type { RouterEnrollmentService } from './router-enrollment.js';
export type { RegisteringRouterPresence, RouterHello, RouterPresence, RouterStatusReader } from './presence.js';
export { UnknownRouterError } from './presence.js';
export { InvalidHelloError } from './hello-check.js';

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

/**
 * Router presence at this controller (seam 5): built before the controller registers, since the domains that show
 * routers read their status from it; `registerAs` (or `controllerId` here) names the registered controller before
 * the control plane reports channels. `metrics` hears how many are up here.
 */
export function buildRouterPresence(
  database: Database,
  deps: { clock: Clock; controllerId?: string; metrics?: Pick<ControllerMetrics, 'setRoutersOnline'> },
): RegisteringRouterPresence {
  const { metrics } = deps;
  const presence = createRouterPresence({
    presence: createRouterPresenceRepository(database),
    clock: deps.clock,
    ...(metrics ? { onChange: (count: number) => metrics.setRoutersOnline(count) } : {}),
  });
  if (deps.controllerId !== undefined) presence.registerAs(deps.controllerId);
  return presence;
}
