/**
 * Who did what: every mutation through the management API carries its actor and lands in the audit trail.
 */
export interface Actor {
  /** The identity that made the change; null for the controller itself (e.g. bootstrap). */
  id: string | null;
  name: string;
}

export const SYSTEM_ACTOR: Actor = { id: null, name: 'system' };

export interface AuditEntry {
  id: string;
  actor: Actor;
  /** `create`, `update`, `delete`, `enable`, `disable`, `refresh`, ... */
  action: string;
  /** `identity`, `enrollment`, `authenticator`, `auth-policy`, ... */
  entityType: string;
  entityId: string;
  /** What changed; never secrets (no passwords, tokens or keys). */
  details: Record<string, unknown>;
  createdAt: Date;
}

/** An entry as the trail holds it: with its place, which orders entries of the same instant. */
export interface RecordedAuditEntry extends AuditEntry {
  /** Numbered by the store as entries are written: a later entry has a higher number. */
  sequence: number;
}
