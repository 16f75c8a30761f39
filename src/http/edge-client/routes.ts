/**
 * The Edge Client API route table (`/edge/client/v1`): every operation of the binding, one line each.
 * Operations of later roadmap steps are added here as they land.
 */
import { listControllersRoute as controllersRoute } from '../common/controllers.js';
import { authenticateMfaRoute, authenticateRoute } from '../common/authenticate.js';
import { currentIdentityRoutes } from '../common/current-identity.js';
import { currentApiSessionRoutes } from '../common/current-api-session.js';
import { informationalRoutes } from '../common/informational.js';
import { wellKnownCaCertsRoute } from '../common/well-known.js';
import type { RouteDef } from '../kit/route.js';
import { currentIdentityEdgeRoutersRoute } from './current-identity-edge-routers.js';
import { enrollRoutes } from './enroll.js';
import { enrollRouterRoutes } from './enroll-router.js';
import { enrollChallengeRoute } from './enroll-challenge.js';
import { networkJwtsRoute } from '../common/network-jwts.js';
import { currentApiSessionCertificateRoutes } from './current-api-session-certificates.js';
import { authenticatorExtensionRoutes } from '../common/authenticator-extension.js';
import { listClientExternalJwtSignersRoute } from './external-jwt-signers.js';
import { mfaRoutes } from './mfa.js';
import { postureResponseRoutes } from './posture-responses.js';
import { clientServiceRoutes } from './services.js';
import { serviceUpdatesRoute } from './service-updates.js';
import { serviceEdgeRouterRoutes } from './service-edge-routers.js';
import { sessionRoutes } from './sessions.js';

export const EDGE_CLIENT_PREFIX = '/edge/client/v1';

export const edgeClientRoutes: readonly RouteDef[] = [
  ...informationalRoutes(),
  wellKnownCaCertsRoute,
  authenticateRoute,
  authenticateMfaRoute,
  controllersRoute,
  ...currentApiSessionRoutes,
  serviceUpdatesRoute,
  ...currentIdentityRoutes,
  currentIdentityEdgeRoutersRoute,
  ...mfaRoutes,
  ...enrollRoutes,
  ...enrollRouterRoutes,
  enrollChallengeRoute,
  networkJwtsRoute,
  ...currentApiSessionCertificateRoutes,
  ...authenticatorExtensionRoutes,
  listClientExternalJwtSignersRoute,
  ...postureResponseRoutes,
  ...clientServiceRoutes,
  ...serviceEdgeRouterRoutes,
  ...sessionRoutes,
];

/** Paths outside the prefix that the client API also answers (as the reference controller does). */
export const edgeClientAliases: Record<string, string[]> = {
  listRoot: ['/'],
  listVersion: ['/version'],
  listWellKnownCas: ['/.well-known/est/cacerts'],
};
