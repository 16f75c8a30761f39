/**
 * The `apis` list of one web listener: which binding names this controller serves, no binding twice,
 * Edge bindings only with an `edge` section, and each binding's own options (shape-checked against the
 * schema for that binding, since JSON Schema cannot switch on `binding` with readable errors). `metrics` is kept
 * apart from the Edge APIs in the result: it needs no `edge` section and is no API of `/version`.
 */
import { closestMatch } from '../shared/text-distance.js';
import { checkAgainstSchema, isClean } from '../shared/schema-check.js';
import { formatKeyPath } from '../shared/yaml-source.js';
import type { KeyPath } from '../shared/yaml-source.js';
import { DEFAULT_REDIRECT_PATTERNS, parseRedirectUri } from './redirect-uri.js';
import { errorCount, reportError } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import { EdgeOidcOptionsSchema, NoOptionsSchema } from './schema.js';
import type { EdgeOidcOptionsFile, ListenerFile } from './schema.js';
import type { ApiBinding, BindingName, RedirectUriPattern } from './types.js';

const SUPPORTED: readonly BindingName[] = ['edge-client', 'edge-management', 'edge-oidc', 'metrics'];
/** Bindings other controllers of this network serve; named so the error says why rather than "unknown". */
const NOT_SUPPORTED = new Set(['fabric', 'health-checks', 'zac', 'spa']);

/** A listener's explicit bindings: its Edge APIs, and whether it serves `/metrics`. */
export interface ListenerBindings {
  apis: ApiBinding[];
  metrics: boolean;
}

/**
 * The explicit bindings of one listener, or undefined when any is wrong. `hasEdge` is whether the file has
 * an `edge` section; every Edge binding needs it (`metrics` does not).
 */
export function bindingRules(
  context: RuleContext,
  path: KeyPath,
  apis: ListenerFile['apis'],
  hasEdge: boolean,
): ListenerBindings | undefined {
  const before = errorCount(context);
  const seen = new Map<string, number>();
  const bindings: ApiBinding[] = [];
  let metrics = false;
  apis.forEach((api, index) => {
    const apiPath = [...path, index];
    const name = api.binding;
    if (!isSupported(name)) {
      reportError(context, [...apiPath, 'binding'], unsupportedMessage(name));
      return;
    }
    const first = seen.get(name);
    if (first !== undefined) {
      const firstAt = formatKeyPath([...path, first]);
      reportError(context, [...apiPath, 'binding'], `binding '${name}' is listed twice on this listener (first at ${firstAt})`);
      return;
    }
    seen.set(name, index);
    if (name === 'metrics') {
      metrics = withoutOptions(context, apiPath, api.options ?? {});
      return;
    }
    if (!hasEdge) {
      reportError(context, [...apiPath, 'binding'], `binding '${name}' needs the 'edge' section, which this file does not have`);
      return;
    }
    const binding = withOptions(context, apiPath, name, api.options ?? {});
    if (binding !== undefined) bindings.push(binding);
  });
  return errorCount(context) > before ? undefined : { apis: bindings, metrics };
}

function isSupported(name: string): name is BindingName {
  return (SUPPORTED as readonly string[]).includes(name);
}

function unsupportedMessage(name: string): string {
  if (NOT_SUPPORTED.has(name)) return `binding '${name}' is not supported by this controller`;
  const guess = closestMatch(name, SUPPORTED);
  const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
  return `unknown binding '${name}'${hint}; expected one of ${SUPPORTED.join(', ')}`;
}

/** True when a binding that takes no options was given none; each one given is reported with where it is. */
function withoutOptions(context: RuleContext, apiPath: KeyPath, options: Record<string, unknown>): boolean {
  const checked = checkAgainstSchema(options, NoOptionsSchema, context.source, [...apiPath, 'options']);
  context.diagnostics.push(...checked.diagnostics);
  return checked.diagnostics.length === 0;
}

/** Checks the binding's options against its own schema and maps them. */
function withOptions(
  context: RuleContext,
  apiPath: KeyPath,
  name: ApiBinding['binding'],
  options: Record<string, unknown>,
): ApiBinding | undefined {
  const optionsPath = [...apiPath, 'options'];
  const schema = name === 'edge-oidc' ? EdgeOidcOptionsSchema : NoOptionsSchema;
  const checked = checkAgainstSchema(options, schema, context.source, optionsPath);
  context.diagnostics.push(...checked.diagnostics);
  const failed = checked.diagnostics.length > 0;
  if (name !== 'edge-oidc') return failed ? undefined : { binding: name, options: {} };
  // Checked even when another option is wrong, so all problems come out in one run.
  const urisPath = [...optionsPath, 'redirectURIs'];
  if (!isClean(checked, urisPath)) return undefined;
  const redirectURIs = redirectUris(context, urisPath, (options as EdgeOidcOptionsFile).redirectURIs);
  return failed || redirectURIs === undefined ? undefined : { binding: 'edge-oidc', options: { redirectURIs }, auto: false };
}

/** Parses the patterns, each error naming its index; the defaults when none are written. */
function redirectUris(context: RuleContext, path: KeyPath, written: readonly string[] | undefined): RedirectUriPattern[] | undefined {
  if (written === undefined) return [...DEFAULT_REDIRECT_PATTERNS];
  const patterns: RedirectUriPattern[] = [];
  let failed = false;
  written.forEach((text, index) => {
    const parsed = parseRedirectUri(text);
    if (parsed.ok) patterns.push(parsed.value);
    else {
      failed = true;
      reportError(context, [...path, index], parsed.problem);
    }
  });
  return failed ? undefined : patterns;
}
