/**
 * Validates a router configuration file: YAML with positions -> `${VAR}` substitution -> schema check with
 * defaults -> meaning rules -> consequence warnings. Pure: the caller hands over the text, the file name
 * used in diagnostics and the environment; nothing is read here. Reusable by a router process and the
 * controller.
 */
import { createRuleContext } from '../config/rule-context.js';
import { hasErrors, sortDiagnostics } from '../shared/diagnostics.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { checkAgainstSchema } from '../shared/schema-check.js';
import { parseYaml } from '../shared/yaml-source.js';
import { consequenceWarnings } from './consequences.js';
import { isMapping } from './rules/check.js';
import { routerRules } from './rules/index.js';
import { RouterFileSchema } from './schema.js';
import type { RouterFile } from './schema.js';

export interface ValidateRouterOptions {
  /** Variables for `${NAME}` in values; substitution is off when not given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface RouterValidation {
  /** The effective configuration (every default filled in); undefined when any diagnostic is an error. */
  readonly config: RouterFile | undefined;
  /** Errors and warnings, in file order. */
  readonly diagnostics: Diagnostic[];
}

/**
 * Checks router configuration text and reports every problem of it in one run.
 *
 * @example
 * const { config, diagnostics } = validateRouterConfig(text, 'router.yml', { env: process.env });
 * for (const d of diagnostics) console.log(formatDiagnostic(d, { style: 'severity-first' }));
 */
export function validateRouterConfig(text: string, file: string, options: ValidateRouterOptions = {}): RouterValidation {
  const parsed = parseYaml(text, file, options.env === undefined ? {} : { env: options.env });
  if (parsed.value === undefined) return { config: undefined, diagnostics: sortDiagnostics(parsed.diagnostics) };

  const value = parsed.value;
  const schema = checkAgainstSchema(value, RouterFileSchema, parsed.source);
  // The base folder is unused: the router rules resolve no paths (that needs the router's own file system).
  const context = createRuleContext(parsed.source, '', schema);
  if (isMapping(value)) {
    const csr = routerRules(context, value as RouterFile);
    consequenceWarnings(context, value as RouterFile, csr);
  }

  // A value whose `${VAR}` failed would otherwise also be reported as malformed by the later checks.
  const unresolved = new Set(parsed.unresolved);
  const later = [...schema.diagnostics, ...context.diagnostics].filter((d) => !unresolved.has(d.path));
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...later]);
  return { config: hasErrors(diagnostics) ? undefined : (value as RouterFile), diagnostics };
}
