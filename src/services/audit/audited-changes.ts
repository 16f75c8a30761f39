/**
 * The unit of work of a resource's change and its audit entry (issue 13, points 2 and 3): a service writes through
 * `records` and records through `audit`, both bound to one transaction, so no change lands without its entry and no
 * entry without its change. A resource's service needs only say how its repository is built on a store.
 */
import type { Database } from '../../persistence/database.js';
import { createAuditLogRepository } from '../../persistence/repositories/audit-log.js';
import { unitOfWork, type UnitOfWork } from '../../persistence/unit-of-work.js';
import type { Clock } from '../../shared/clock.js';
import { createAuditService, type AuditService } from './audit.js';

export interface AuditedScope<Records> {
  records: Records;
  audit: Pick<AuditService, 'record'>;
}

export type AuditedChanges<Records> = UnitOfWork<AuditedScope<Records>>;

export function auditedChanges<Records>(database: Database, clock: Clock, recordsOf: (store: Database) => Records): AuditedChanges<Records> {
  return unitOfWork(database, (store) => ({ records: recordsOf(store), audit: createAuditService({ auditLog: createAuditLogRepository(store), clock }) }));
}
