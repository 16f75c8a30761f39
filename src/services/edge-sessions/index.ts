/**
 * The edge-sessions domain's builder (issue 15, items 2 and 3; docs/decisions/0031-edge-sessions.md): client API
 * sessions, their tokens signed with the controller's OIDC key, and what a client may read of a service's edge
 * routers and terminators. Knows nothing of HTTP. It stands on the authorization domain (the policy engine, the
 * terminators) and the posture domain (the one evaluator), passed in by the composition root. Routes reach it as
 * `edgeSessions`.
 */
import type { Database } from '../../persistence/database.js';
import { createEdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import { createEdgeSessionRepository } from '../../persistence/repositories/edge-sessions.js';
import type { Clock } from '../../shared/clock.js';
import type { AuthorizationDomain } from '../authorization/index.js';
import type { OidcTokenSigner } from '../oidc-provider/oidc-tokens.js';
import type { PostureService } from '../posture/index.js';
import type { RouterStatusReader } from '../routers/presence.js';
import type { AuditService } from '../audit/audit.js';
import { createEdgeSessionService, type EdgeSessionService } from './edge-sessions.js';
import { createEdgeSessionAdministration, type EdgeSessionAdministration } from './session-admin.js';
import { createSessionAccess } from './session-access.js';
import { createSessionTokens } from './session-tokens.js';

export type { EdgeSessionInput, EdgeSessionService, EdgeSessionView } from './edge-sessions.js';
export { SESSION_EDGE_ROUTER_LIMIT } from './edge-sessions.js';
export type { EdgeSessionAdministration } from './session-admin.js';
export type { ListedEdgeSession } from '../../persistence/repositories/edge-sessions.js';

/** Every API session's sessions for administrators (the Management API's `/sessions`). */
export function buildEdgeSessionAdministration(database: Database, deps: { audit: Pick<AuditService, 'record'> }): EdgeSessionAdministration {
  return createEdgeSessionAdministration({ sessions: createEdgeSessionRepository(database), audit: deps.audit });
}
export { SESSION_TOKEN_AUDIENCE, SESSION_TOKEN_TYPE, type SessionTokenClaims } from './session-tokens.js';

export function buildEdgeSessionsDomain(
  database: Database,
  deps: {
    clock: Clock;
    authorization: Pick<AuthorizationDomain, 'engine' | 'terminators'>;
    posture: Pick<PostureService, 'stateOf'>;
    /** The OIDC provider's signer and the edge API's https origin (the tokens' issuer); absent without an edge section. */
    signing: { signer: Pick<OidcTokenSigner, 'signOther' | 'verifyOther'>; issuer: string } | undefined;
    /** How long a session token is valid: the access token lifetime, for which retired keys stay published. */
    tokenLifetimeMs: number;
    /** Routers' online status, shown with a session's routers. */
    routerStatus?: RouterStatusReader;
  },
): EdgeSessionService {
  const { clock } = deps;
  return createEdgeSessionService({
    sessions: createEdgeSessionRepository(database),
    access: createSessionAccess({
      engine: deps.authorization.engine,
      routers: createEdgeRouterRepository(database),
      clock,
      ...(deps.routerStatus ? { status: deps.routerStatus } : {}),
    }),
    posture: deps.posture,
    terminators: deps.authorization.terminators,
    tokens: deps.signing ? createSessionTokens(deps.signing) : undefined,
    tokenLifetimeMs: deps.tokenLifetimeMs,
    clock,
  });
}
