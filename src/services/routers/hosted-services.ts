/**
 * HostedServices (issue 43; docs/control-protocol.md): the services a tunneler-enabled router's own identity (id =
 * the router's id) may Bind and that carry a `host.v1` or `host.v2` config, a page of at most 500 by id at a time.
 * Bind access is the policy engine's, as for any identity; a service with both configs is sent with `host.v2`.
 */
import type { HostedServicesAnswer, HostedServicesRequest } from '../../control-protocol/bodies.js';
import type { HostConfigRepository } from '../../persistence/repositories/host-configs.js';
import type { PolicyEngine } from '../authorization/engine.js';
import { RouterRequestError } from './router-request-error.js';

/** Services per page. */
export const HOSTED_PAGE_SIZE = 500;
/** What an `after` may be: an id as the controller makes them (letters, digits, `.`, `_`, `-`). */
const ID_TEXT = /^[A-Za-z0-9._-]{1,64}$/;

export type HostedServices = (router: { id: string; name: string }, request: HostedServicesRequest) => Promise<HostedServicesAnswer>;

export function createHostedServices(deps: {
  engine: Pick<PolicyEngine, 'related'>;
  hostConfigs: HostConfigRepository;
  /** Whether the router is tunneler-enabled now. */
  tunnelerEnabled: (routerId: string) => Promise<boolean>;
}): HostedServices {
  return async (router, request) => {
    if (!(await deps.tunnelerEnabled(router.id))) throw new RouterRequestError('NOT_ALLOWED', `router ${router.name} is not tunneler-enabled: it has no identity to host services with`);
    if (request.after !== undefined && !ID_TEXT.test(request.after)) throw new RouterRequestError('BAD_MESSAGE', 'HostedServices body.after: must be a service id (letters, digits, ".", "_", "-")');
    // The id was checked above, so it can stand in the filter text quoted.
    const page = await deps.engine.related('identity', router.id, 'service', {
      limit: String(HOSTED_PAGE_SIZE),
      sort: 'id asc',
      ...(request.after !== undefined ? { filter: `id > "${request.after}"` } : {}),
    }, 'Bind');
    const ids = page.items.map((service) => service.id);
    const configs = await deps.hostConfigs.ofServices(ids);
    // One entry per service; host.v2 wins over host.v1 (sorted after it).
    const byService = new Map(configs.map((config) => [config.serviceId, config]));
    const services = ids.flatMap((id) => {
      const config = byService.get(id);
      return config ? [{ id, name: config.serviceName, encryptionRequired: config.encryptionRequired, configType: config.configType, config: config.config }] : [];
    });
    const last = ids[ids.length - 1];
    return { identityId: router.id, services, ...(ids.length === HOSTED_PAGE_SIZE && last !== undefined ? { next: last } : {}) };
  };
}
