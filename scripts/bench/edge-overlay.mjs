// The overlay `npm run bench -- edge-relay` measures (issue 42), built the way a user builds one, from the built dist
// (overlay-parts.mjs): a quickstart controller without its own router (a process), one edge router created through
// the management API, enrolled with `svc router enroll` and run with `svc router run` (a process of its own, so its
// RSS is its own), the policies that let every identity use it for every service, two identities enrolled with
// `svc edge enroll` (a hoster and a dialer, their SDK identity files), and services with Dial and Bind policies for them.
import { startController } from './overlay-parts.mjs';

/**
 * Starts the overlay in `dir` (a new empty folder). Resolves with its addresses, the router's process, the identity files and what to
 * stop. `services`: [{name, encryptionRequired}], each dialled by the dialer and hosted by the hoster.
 */
export async function startOverlay({ dir, store, services, password = 'bench-password' }) {
  const controller = await startController({ dir, store, password });
  const { mgmt } = controller;
  try {
    const router = await controller.enrollRouter('router', { roleAttributes: ['bench'] });
    await mgmt('POST', '/edge-router-policies', { name: 'bench-all-identities', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
    await mgmt('POST', '/service-edge-router-policies', { name: 'bench-all-services', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
    const hoster = await controller.enrollIdentity('bench-hoster');
    const dialer = await controller.enrollIdentity('bench-dialer');
    for (const service of services) {
      const created = await mgmt('POST', '/services', { name: service.name, encryptionRequired: service.encryptionRequired });
      await mgmt('POST', '/service-policies', { name: `${service.name}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${dialer.id}`], serviceRoles: [`@${created.id}`] });
      await mgmt('POST', '/service-policies', { name: `${service.name}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${hoster.id}`], serviceRoles: [`@${created.id}`] });
    }
    const routerChild = await router.run();
    const { base, ca, caFile, controllerPid } = controller;
    return { base, ca, caFile, edgePort: router.edgePort, controllerPid, routerPid: routerChild.pid, routerFile: router.routerFile, routerDir: router.routerDir, hoster, dialer, stop: controller.stop };
  } catch (error) {
    await controller.stop();
    throw error;
  }
}
