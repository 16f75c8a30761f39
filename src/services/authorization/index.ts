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

/** Everything the domain offers; one member per resource service, and the engine. */
export interface AuthorizationDomain extends PolicyMembers {
  readonly configTypes: ConfigTypeService;
  readonly configs: ConfigService;
  readonly services: ServiceService;
  readonly edgeRouters: EdgeRouterService;
  readonly postureChecks: PostureCheckService;
  readonly terminators: TerminatorService;
}

export interface AuthorizationDeps {
  clock: Clock;
  log: EventLog;
  /** Signs edge router enrollment JWTs; absent without an edge section. */
  enrollmentJwt: EnrollmentJwtSigner | undefined;
  /** How long a router's one-time enrollment lasts (edge.enrollment.edgeRouterDurationMs, or the identity one). */
  routerEnrollmentDurationMs: number;
}

export function buildAuthorizationDomain(database: Database, deps: AuthorizationDeps): AuthorizationDomain {
  const { clock } = deps;
  const configTypes = createConfigTypeRepository(database);
  const configs = createConfigRepository(database);
  const services = createServiceRepository(database);
  return {
    configTypes: createConfigTypeService({ configTypes, configs, changes: auditedChanges(database, clock, createConfigTypeRepository), clock }),
    configs: createConfigService({ configs, configTypes, services, changes: auditedChanges(database, clock, createConfigRepository), clock }),
    services: createServiceService({ services, configs, changes: auditedChanges(database, clock, createServiceRepository), clock }),
    edgeRouters: createEdgeRouterService({
      routers: createEdgeRouterRepository(database),
      changes: auditedChanges(database, clock, createEdgeRouterRepository),
      enrollment: routerEnrollmentIssuer(deps.enrollmentJwt, deps.routerEnrollmentDurationMs),
      clock,
    }),
    postureChecks: createPostureCheckService({ checks: createPostureCheckRepository(database), changes: auditedChanges(database, clock, createPostureCheckRepository), clock }),
    terminators: createTerminatorService({ terminators: createTerminatorRepository(database), changes: auditedChanges(database, clock, createTerminatorRepository), clock }),
    ...buildPolicyMembers(database, { clock }),
  };
}
