/**
 * Loads the controller configuration file: YAML with positions -> `${VAR}` substitution -> schema check
 * with defaults -> semantic rules -> file readability -> one frozen, typed config. Every problem found is
 * reported in one run, each with its line and column.
 */
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { hasErrors, sortDiagnostics } from '../shared/diagnostics.js';
import { checkAgainstSchema } from '../shared/schema-check.js';
import { reasonOf } from '../shared/system-errors.js';
import { diagnosticAt, parseYaml } from '../shared/yaml-source.js';
import type { YamlSource } from '../shared/yaml-source.js';
import { createRuleContext } from './rule-context.js';
import type { FileReference } from './rule-context.js';
import { controllerRules } from './rules.js';
import { ControllerFileSchema } from './schema.js';
import type { ControllerFile } from './schema.js';
import type { ControllerConfig, Diagnostic } from './types.js';

export interface LoadOptions {
  /** Variables for `${NAME}` in values; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface LoadResult {
  /** Undefined when any diagnostic is an error. Deep-frozen. */
  readonly config: ControllerConfig | undefined;
  /** Errors and warnings, in file order. */
  readonly diagnostics: Diagnostic[];
}

/**
 * Reads and checks the controller configuration file. A file that cannot be read gives one error at 1:1.
 *
 * @example
 * const { config, diagnostics } = await loadControllerConfig('/etc/svc/ctrl.yml');
 * for (const d of diagnostics) console.error(formatDiagnostic(d));
 * if (config === undefined) process.exit(1);
 */
export async function loadControllerConfig(file: string, options: LoadOptions = {}): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const message = `cannot read the configuration file: ${(error as Error).message}`;
    return { config: undefined, diagnostics: [{ severity: 'error', file, line: 1, column: 1, path: '', message }] };
  }
  return loadControllerConfigFromText(text, file, options);
}

/**
 * Checks configuration text as if read from `file` (relative paths in it start at `file`'s folder).
 * Still async: the certificate and key files it names are checked for readability.
 */
export async function loadControllerConfigFromText(text: string, file: string, options: LoadOptions = {}): Promise<LoadResult> {
  // Config loading is one of the two places allowed to read the environment (STYLE.md, "Direction of imports").
  const parsed = parseYaml(text, file, { env: options.env ?? process.env });
  if (parsed.value === undefined) return { config: undefined, diagnostics: sortDiagnostics(parsed.diagnostics) };

  const schema = checkAgainstSchema(parsed.value, ControllerFileSchema, parsed.source);
  const context = createRuleContext(parsed.source, dirname(resolve(file)), schema);
  const config = controllerRules(context, parsed.value as ControllerFile);
  const fileProblems = await unreadableFiles(parsed.source, context.files);

  // A value whose `${VAR}` failed would otherwise also be reported as malformed by the later checks.
  const unresolved = new Set(parsed.unresolved);
  const later = [...schema.diagnostics, ...context.diagnostics, ...fileProblems].filter((d) => !unresolved.has(d.path));
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...later]);
  if (hasErrors(diagnostics) || config === undefined) return { config: undefined, diagnostics };
  return { config: deepFreeze(config), diagnostics };
}

/** One error per named file that is missing, not a regular file, or not readable by this process. */
async function unreadableFiles(source: YamlSource, files: readonly FileReference[]): Promise<Diagnostic[]> {
  const problems = await Promise.all(
    files.map(async ({ path, absolute }) => {
      try {
        await access(absolute, constants.R_OK);
        if (!(await stat(absolute)).isFile()) return diagnosticAt(source, path, 'value', 'error', `'${absolute}' is not a file`);
        return undefined;
      } catch (error) {
        // Node's message ends with the syscall and path ("..., access '/x'"); the path is said once, up front.
        const reason = reasonOf(error);
        return diagnosticAt(source, path, 'value', 'error', `cannot read '${absolute}': ${reason}`);
      }
    }),
  );
  return problems.filter((d): d is Diagnostic => d !== undefined);
}

/** Freezes an object and everything reachable from it, so no caller can change the loaded config. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
