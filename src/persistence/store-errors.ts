/**
 * What a failed statement says, told the same way on both stores, for repositories that turn a constraint the store
 * enforces into an answer of their own (a row whose parent went away meanwhile).
 */

/** A foreign-key violation on either dialect (SQLite's extended code, PostgreSQL's SQLSTATE 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
