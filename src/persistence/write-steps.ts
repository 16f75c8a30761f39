/**
 * A write as data: the statements of one transaction, compiled, each run after the one before unless a step that
 * must change a row changed none. Being data, the same write runs on the writer thread (sqlite-writer.ts) or, where
 * there is none, on the controller's own connection, through the one function below; the statements' SQL is what
 * Kysely compiled for SQLite (prepared-query.ts), so both run exactly the same text.
 */

/** One statement of a write: its SQL and parameters; `stopUnlessChanged` ends the write when it changed no row. */
export interface WriteStep {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly stopUnlessChanged?: boolean;
}

/** What a step did: the rows it returned (a select, or a statement with `returning`), else the rows it changed. */
export interface StepOutcome {
  readonly rows: unknown[];
  readonly changes: number;
  /** How long the statement took, in milliseconds (the store query histogram). */
  readonly durationMs: number;
}

/** The part of a better-sqlite3 statement a step needs. */
export interface StepStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number };
}

/**
 * Runs `steps` in order with statements from `prepare`, inside a transaction the caller opened; the outcomes of the
 * steps that ran (a step that stopped the write is the last one).
 */
export function runWriteSteps(prepare: (sql: string) => StepStatement, steps: readonly WriteStep[]): StepOutcome[] {
  const outcomes: StepOutcome[] = [];
  for (const step of steps) {
    const started = performance.now();
    const statement = prepare(step.sql);
    const outcome = statement.reader
      ? (() => {
          const rows = statement.all(step.parameters);
          return { rows, changes: rows.length };
        })()
      : { rows: [], changes: statement.run(step.parameters).changes };
    outcomes.push({ ...outcome, durationMs: performance.now() - started });
    if (step.stopUnlessChanged && outcome.changes === 0) break;
  }
  return outcomes;
}
