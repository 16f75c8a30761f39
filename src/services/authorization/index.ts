/**
 * The authorization domain's builder (issue 14; docs/decisions/0025-authorization-model.md): the resources that say
 * who may reach what (config types and configs, services, edge routers, posture checks, terminators, service
 * policies, edge router policies, service edge router policies) and the one policy engine that answers from them.
 * Each resource is built on the resource kit (decision 0022) and each change runs in a unit of work with its audit
 * entry (decision 0020). The composition root builds this once; routes reach it as the `authorization` domain.
 */
import type { Database } from '../../persistence/database.js';
import type { Clock } from '../../shared/clock.js';
import type { EventLog } from '../audit/security-events.js';
import type { EnrollmentJwtSigner } from '../enrollment/enrollment-jwt.js';
import { createConfigTypeRepository } from '../../persistence/repositories/config-types.js';
import { createConfigRepository } from '../../persistence/repositories/configs.js';
import { createServiceRepository } from '../../persistence/repositories/services.js';
import { auditedChanges } from '../audit/audited-changes.js';
import { createConfigTypeService, type ConfigTypeService } from './config-types.js';
import { createConfigService, type ConfigService } from './configs.js';
import { createServiceService, type ServiceService } from './services.js';
import { createEdgeRouterRepository } from '../../persistence/repositories/edge-routers.js';
import { createPostureCheckRepository } from '../../persistence/repositories/posture-checks.js';
import { createTerminatorRepository } from '../../persistence/repositories/terminators.js';
import { createEdgeRouterService, type EdgeRouterService } from './edge-routers.js';
import { createPostureCheckService, type PostureCheckService } from './posture-checks.js';
import { routerEnrollmentIssuer } from './router-enrollment.js';
import { createTerminatorService, type TerminatorService } from './terminators.js';
import { buildPolicyMembers, type PolicyMembers } from './policies.js';
import { createIdentityEdgeRouterService, type IdentityEdgeRouterService } from './identity-edge-routers.js';
import { createClientServiceService, type ClientServiceService } from './client-services.js';
import { createServiceUpdatesService, type ServiceUpdatesService } from './service-updates.js';
import { createServiceUpdateMarkRepository } from '../../persistence/repositories/service-update-marks.js';
import type { PostureService } from '../posture/index.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import type { RouterStatusReader } from '../routers/presence.js';
import { withRouterStatus } from '../routers/with-router-status.js';
import { routerRecordsWithIdentity } from './router-identities.js';
import { createIdentityRepository } from '../../persistence/repositories/identities.js';

/** Everything the domain offers; one member per resource service, and the engine. */
export interface AuthorizationDomain extends PolicyMembers {
  readonly configTypes: ConfigTypeService;
  readonly configs: ConfigService;
  readonly services: ServiceService;
  readonly edgeRouters: EdgeRouterService;
  readonly postureChecks: PostureCheckService;
  readonly terminators: TerminatorService;
  /** The edge routers an identity may use (client API `/current-identity/edge-routers`). */
  readonly identityEdgeRouters: IdentityEdgeRouterService;
  /** The services a client may see, with its permissions, configs and posture (client API `/services`). */
  readonly clientServices: ClientServiceService;
  /** When an identity's service list last changed (client API `/current-api-session/service-updates`). */
  readonly serviceUpdates: ServiceUpdatesService;
}

export interface AuthorizationDeps {
  clock: Clock;
  log: EventLog;
  /** Signs edge router enrollment JWTs; absent without an edge section. */
  enrollmentJwt: EnrollmentJwtSigner | undefined;
  /** How long a router's one-time enrollment lasts (edge.enrollment.edgeRouterDurationMs, or the identity one). */
  routerEnrollmentDurationMs: number;
  /** Evaluates the posture checks of the policies that grant a client its services. */
  posture: Pick<PostureService, 'policyPostureQueries'>;
  /** Tells the service reach index of changes (decision 0035); without it the index reads the log before each answer. */
  feed?: ChangeFeed;
  /** Routers' online status (decision 0064), read with every router shown; without it routers read as never connected. */
  routerStatus?: RouterStatusReader;
}

export function buildAuthorizationDomain(database: Database, deps: AuthorizationDeps): AuthorizationDomain {
  const { clock } = deps;
  const configTypes = createConfigTypeRepository(database);
  const configs = createConfigRepository(database);
  const services = createServiceRepository(database);
  const policies = buildPolicyMembers(database, { clock, ...(deps.feed ? { feed: deps.feed } : {}), ...(deps.routerStatus ? { routerStatus: deps.routerStatus } : {}) });
  const routersWithStatus = () => withRouterStatus(createEdgeRouterRepository(database), deps.routerStatus);
  return {
    configTypes: createConfigTypeService({ configTypes, configs, changes: auditedChanges(database, clock, createConfigTypeRepository), clock }),
    configs: createConfigService({ configs, configTypes, services, changes: auditedChanges(database, clock, createConfigRepository), clock }),
    services: createServiceService({ services, configs, changes: auditedChanges(database, clock, createServiceRepository), clock }),
    edgeRouters: createEdgeRouterService({
      routers: routersWithStatus(),
      // A tunneler-enabled router's identity and system policy change with it, in its unit of work (decision 0070).
      changes: auditedChanges(database, clock, (store) => routerRecordsWithIdentity(store, clock)),
      identities: createIdentityRepository(database),
      enrollment: routerEnrollmentIssuer(deps.enrollmentJwt, deps.routerEnrollmentDurationMs),
      clock,
    }),
    postureChecks: createPostureCheckService({ checks: createPostureCheckRepository(database), changes: auditedChanges(database, clock, createPostureCheckRepository), clock }),
    terminators: createTerminatorService({ terminators: createTerminatorRepository(database), changes: auditedChanges(database, clock, createTerminatorRepository), clock }),
    identityEdgeRouters: createIdentityEdgeRouterService({ engine: policies.engine, routers: routersWithStatus() }),
    clientServices: createClientServiceService({
      engine: policies.engine,
      configs,
      configTypes,
      posture: deps.posture,
    }),
    serviceUpdates: createServiceUpdatesService({ engine: policies.engine, marks: createServiceUpdateMarkRepository(database), clock }),
    ...policies,
  };
}
