/**
 * The audit domain's builder: the trail and the security events, over one store. Built once for the controller, and
 * again inside a unit of work so that an entry commits with the change it records.
 */
import type { Database } from '../../persistence/database.js';
import { createAuditLogRepository } from '../../persistence/repositories/audit-log.js';
import type { Clock } from '../../shared/clock.js';
import { createAuditService, type AuditService } from './audit.js';
import { createSecurityEvents, type EventLog, type SecurityEvents } from './security-events.js';
import type { ControllerMetrics } from '../metrics/index.js';

export interface AuditDomain {
  audit: AuditService;
  events: SecurityEvents;
}

export function buildAuditDomain(store: Database, deps: { clock: Clock; log: EventLog; metrics?: ControllerMetrics }): AuditDomain {
  const audit = createAuditService({ auditLog: createAuditLogRepository(store), clock: deps.clock });
  return { audit, events: createSecurityEvents({ log: deps.log, audit, ...(deps.metrics ? { metrics: deps.metrics } : {}) }) };
}
