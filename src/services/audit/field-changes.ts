/**
 * The before/after differences of an audited update (issue 45): field by field, from the audit details of the entity
 * before and after, which never hold secrets (each resource's `auditDetails` leaves them out), so neither does this.
 * Pure.
 */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The key under which an entry's details keep its differences; the API shows them as the entry's `changes`. */
export const FIELD_CHANGES = 'fieldChanges';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields whose values differ, in the order the after-details name them, then the ones only before had. */
export function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of Object.keys(after)) {
    if (!same(before[field], after[field])) changes.push({ field, before: before[field] ?? null, after: after[field] ?? null });
  }
  for (const field of Object.keys(before)) {
    if (!(field in after)) changes.push({ field, before: before[field], after: null });
  }
  return changes;
}
