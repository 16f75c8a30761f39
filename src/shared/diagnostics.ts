/**
 * Problems found in a configuration file, with where they are, and how they are printed: one line per
 * problem in the `FILE:LINE:COLUMN: key.path: message` shape editors and terminals can jump to.
 * Shared by the controller config loader and the router config validator.
 */

/**
 * One problem found in a YAML file. Kept structurally identical to `Diagnostic` in config/types.ts,
 * so values pass between the two freely; it lives here too because shared/ imports nothing internal.
 */
export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  /** Dotted key path, e.g. `web[0].bindPoints[1].address`; empty when the problem belongs to no key. */
  readonly path: string;
  readonly message: string;
}

export interface FormatOptions {
  /**
   * `'path-first'` (default, the controller's): `FILE:LINE:COLUMN: key.path: warning: message`.
   * `'severity-first'` (the router validator's): `FILE:LINE:COLUMN: error|warning: key.path: message`,
   * the shape compilers print, with the severity always spelled.
   */
  readonly style?: 'path-first' | 'severity-first';
}

/**
 * One line for a diagnostic: `FILE:LINE:COLUMN: key.path: message`, with `warning: ` before the message
 * of a warning. The `key.path: ` part is left out when the diagnostic has no path (a YAML syntax error).
 *
 * @example formatDiagnostic(d) // 'ctrl.yml:12:5: edge.api.address: not a host:port'
 * @example formatDiagnostic(d, { style: 'severity-first' }) // 'router.yml:3:3: error: ctrl.endpoint: ...'
 */
export function formatDiagnostic(diagnostic: Diagnostic, options: FormatOptions = {}): string {
  const where = `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}:`;
  const path = diagnostic.path === '' ? '' : ` ${diagnostic.path}:`;
  if (options.style === 'severity-first') return `${where} ${diagnostic.severity}:${path} ${diagnostic.message}`;
  const kind = diagnostic.severity === 'warning' ? ' warning:' : '';
  return `${where}${path}${kind} ${diagnostic.message}`;
}

/** A new array in reading order: by file, then line, then column; ties keep their original order. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column,
  );
}

/** True when at least one diagnostic is an error (warnings alone do not stop a load). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
