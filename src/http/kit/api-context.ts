/**
 * What a route needs to know about where it is served: the binding, its URL prefix, the bind point the client
 * connected to (issuer and base URLs are derived from it) and the services of the composition root.
 */
import type { ApiBindingName, BindPoint } from '../../config/types.js';
import type { Services } from '../../services/services.js';
import type { SpecRegistry } from './spec-registry.js';

export interface ApiContext {
  readonly binding: ApiBindingName;
  readonly prefix: string;
  readonly bindPoint: BindPoint;
  readonly services: Services;
  readonly specs: SpecRegistry;
}

/** What a route handler sees of its context: everything but the services (it receives its own domains instead). */
export type RouteApi = Omit<ApiContext, 'services'>;
