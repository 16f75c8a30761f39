/**
 * The policy half of the authorization domain, built in one place so the domain's builder (index.ts) adds it with
 * one line: the three kinds of policy (each change with its audit entry and its role index rows in one unit of work,
 * decision 0020), the policy engine every related list asks, and the policy advice worded from it.
 */
import type { Database } from '../../persistence/database.js';
import { createEdgeRouterPolicyRepository } from '../../persistence/repositories/edge-router-policies.js';
import { createPolicyEngineStore } from '../../persistence/repositories/policy-engine.js';
import { createServiceReachSource } from '../../persistence/repositories/service-reach-source.js';
import { createServiceEdgeRouterPolicyRepository } from '../../persistence/repositories/service-edge-router-policies.js';
import { createServicePolicyRepository } from '../../persistence/repositories/service-policies.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import { createEdgeRouterPolicyService, type EdgeRouterPolicyService } from './edge-router-policies.js';
import { createPolicyEngine, type PolicyEngine } from './engine.js';
import { createPolicyAdviceService, type PolicyAdviceService } from './policy-advice.js';
import { createServiceEdgeRouterPolicyService, type ServiceEdgeRouterPolicyService } from './service-edge-router-policies.js';
import { createServicePolicyService, type ServicePolicyService } from './service-policies.js';
import { createServiceReach } from './service-reach.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import type { RouterStatusReader } from '../routers/presence.js';

export interface PolicyMembers {
  readonly servicePolicies: ServicePolicyService;
  readonly edgeRouterPolicies: EdgeRouterPolicyService;
  readonly serviceEdgeRouterPolicies: ServiceEdgeRouterPolicyService;
  /** The one policy engine: every answer about who may reach what. */
  readonly engine: PolicyEngine;
  readonly policyAdvice: PolicyAdviceService;
}

export function buildPolicyMembers(database: Database, deps: { clock: Clock; feed?: ChangeFeed; routerStatus?: RouterStatusReader }): PolicyMembers {
  const { clock } = deps;
  const store = createPolicyEngineStore(database);
  const reach = createServiceReach({ source: createServiceReachSource(database), ...(deps.feed ? { feed: deps.feed } : {}) });
  // Only PostgreSQL is shared by several controllers; a SQLite store has one, which sees its own changes at commit.
  const engine = createPolicyEngine({ store, reach, sharedStore: database.dialect === 'postgres' });
  return {
    servicePolicies: createServicePolicyService({
      policies: createServicePolicyRepository(database),
      store,
      changes: auditedChanges(database, clock, createServicePolicyRepository),
      engine,
      clock,
    }),
    edgeRouterPolicies: createEdgeRouterPolicyService({
      policies: createEdgeRouterPolicyRepository(database),
      store,
      changes: auditedChanges(database, clock, createEdgeRouterPolicyRepository),
      engine,
      clock,
    }),
    serviceEdgeRouterPolicies: createServiceEdgeRouterPolicyService({
      policies: createServiceEdgeRouterPolicyRepository(database),
      store,
      changes: auditedChanges(database, clock, createServiceEdgeRouterPolicyRepository),
      engine,
      clock,
    }),
    engine,
    policyAdvice: createPolicyAdviceService({ engine, ...(deps.routerStatus ? { status: deps.routerStatus } : {}) }),
  };
}
