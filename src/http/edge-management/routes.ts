/**
 * The Edge Management API route table (`/edge/management/v1`): every operation of the binding, one line each.
 * The identity, enrollment and policy operations an operator needs arrive with roadmap step 2.
 */
import { listControllersForAdminsRoute } from '../common/controllers.js';
import { authenticateMfaRoute, authenticateRoute } from '../common/authenticate.js';
import { currentIdentityRoutes } from '../common/current-identity.js';
import { currentApiSessionRoutes } from '../common/current-api-session.js';
import { informationalRoutes } from '../common/informational.js';
import { wellKnownCaCertsRoute } from '../common/well-known.js';
import type { RouteDef } from '../kit/route.js';
import { enrollmentRoutes } from './enrollments.js';
import { auditLogRoutes } from './audit-log.js';
import { authPolicyRoutes } from './auth-policies.js';
import { authenticatorRoutes } from './authenticators.js';
import { authenticatorExtensionRoutes, requestExtendRoute } from '../common/authenticator-extension.js';
import { networkJwtsRoute } from '../common/network-jwts.js';
import { externalJwtSignerRoutes } from './external-jwt-signers.js';
import { caRoutes } from './cas.js';
import { identityRoutes } from './identities.js';
import { identityTypeRoutes } from './identity-types.js';
import { apiSessionRoutes } from './api-sessions.js';
import { managementSessionRoutes } from './sessions.js';
import { fabricRoutes } from './fabric.js';
import { configTypeRoutes } from './config-types.js';
import { configRoutes } from './configs.js';
import { serviceRoutes } from './services.js';
import { edgeRouterRoutes } from './edge-routers.js';
import { postureCheckRoutes } from './posture-checks.js';
import { terminatorRoutes } from './terminators.js';
import { servicePolicyRoutes } from './service-policies.js';
import { edgeRouterPolicyRoutes } from './edge-router-policies.js';
import { serviceEdgeRouterPolicyRoutes } from './service-edge-router-policies.js';
import { relatedListRoutes } from './related-lists.js';
import { policyAdviceRoute } from './policy-advice.js';
import { identityReachRoute } from './identity-reach.js';
import { statusEventsRoute } from './status-events.js';
import { expiriesRoute } from './expiries.js';
import { changePreviewRoute } from './change-previews.js';

export const EDGE_MANAGEMENT_PREFIX = '/edge/management/v1';

export const edgeManagementRoutes: readonly RouteDef[] = [
  ...informationalRoutes(),
  wellKnownCaCertsRoute,
  authenticateRoute,
  authenticateMfaRoute,
  listControllersForAdminsRoute,
  ...currentApiSessionRoutes,
  ...currentIdentityRoutes,
  ...enrollmentRoutes,
  ...identityRoutes,
  ...identityTypeRoutes,
  ...apiSessionRoutes,
  ...managementSessionRoutes,
  ...fabricRoutes,
  ...authenticatorRoutes,
  requestExtendRoute,
  ...authenticatorExtensionRoutes,
  networkJwtsRoute,
  ...authPolicyRoutes,
  ...externalJwtSignerRoutes,
  ...caRoutes,
  ...auditLogRoutes,
  ...configTypeRoutes,
  ...configRoutes,
  ...serviceRoutes,
  ...edgeRouterRoutes,
  ...postureCheckRoutes,
  ...terminatorRoutes,
  ...servicePolicyRoutes,
  ...edgeRouterPolicyRoutes,
  ...serviceEdgeRouterPolicyRoutes,
  ...relatedListRoutes,
  policyAdviceRoute,
  identityReachRoute,
  statusEventsRoute,
  expiriesRoute,
  changePreviewRoute,
];
