/**
 * The Edge Management API route table (`/edge/management/v1`): every operation of the binding, one line each.
 * The identity, enrollment and policy operations an operator needs arrive with roadmap step 2.
 */
import { listControllersRoute } from '../common/controllers.js';
import { authenticateRoute } from '../common/authenticate.js';
import { currentApiSessionRoutes } from '../common/current-api-session.js';
import { informationalRoutes } from '../common/informational.js';
import { wellKnownCaCertsRoute } from '../common/well-known.js';
import type { RouteDef } from '../kit/route.js';

export const EDGE_MANAGEMENT_PREFIX = '/edge/management/v1';

export const edgeManagementRoutes: readonly RouteDef[] = [
  ...informationalRoutes(),
  wellKnownCaCertsRoute,
  authenticateRoute,
  { ...listControllersRoute, access: 'admin' },
  ...currentApiSessionRoutes,
];
