/**
 * `svc router validate|explain|schema|run`: check router configuration files offline, print the effective
 * configuration of one, print the JSON Schema for editors, or run the router. The validator itself is pure
 * (router-config/); this file reads the files and the environment and words the results.
 */
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { routerJsonSchema } from '../router-config/json-schema.js';
import { validateRouterConfig } from '../router-config/validate.js';
import { formatDiagnostic, hasErrors } from '../shared/diagnostics.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { reasonOf } from '../shared/system-errors.js';
import type { Output } from './output.js';
import { createLogger } from './logger.js';
import { watchForStop } from './stop-signals.js';
import { startRouter, type RunningRouter, type VersionInfo } from '../router/run.js';
import { RouterSetupError } from '../router/errors.js';

export interface ValidateFlags {
  readonly format: 'text' | 'json';
  /** Warnings count as errors (for CI). */
  readonly strict: boolean;
}

const style = { style: 'severity-first' } as const;

/** Exit 0 when no file has an error, 1 when any has, 2 when any file cannot be read (all files are checked). */
export async function validateCommand(files: readonly string[], flags: ValidateFlags, out: Output): Promise<number> {
  let unreadable = false;
  const results: { file: string; diagnostics: Diagnostic[] }[] = [];
  for (const file of files) {
    const text = await readText(file);
    if (typeof text !== 'string') {
      unreadable = true;
      results.push({ file, diagnostics: [text] });
      continue;
    }
    const { diagnostics } = validateRouterConfig(text, file, { env: process.env });
    results.push({ file, diagnostics: flags.strict ? diagnostics.map(asError) : diagnostics });
  }
  const failed = results.some((r) => hasErrors(r.diagnostics));
  if (flags.format === 'json') {
    const summary = results.map(({ file, diagnostics }) => ({
      file,
      valid: !hasErrors(diagnostics),
      errors: diagnostics.filter((d) => d.severity === 'error').length,
      warnings: diagnostics.filter((d) => d.severity === 'warning').length,
    }));
    out.print(JSON.stringify({ files: summary, diagnostics: results.flatMap((r) => r.diagnostics) }, null, 2));
  } else {
    for (const { file, diagnostics } of results) {
      for (const diagnostic of diagnostics) out.error(formatDiagnostic(diagnostic, style));
      const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
      if (!hasErrors(diagnostics)) out.print(`${file}: valid${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`);
    }
  }
  return unreadable ? 2 : failed ? 1 : 0;
}

/** Prints the effective configuration (defaults filled in) as YAML; problems go to stderr. */
export async function explainCommand(file: string, out: Output): Promise<number> {
  const text = await readText(file);
  if (typeof text !== 'string') {
    out.error(formatDiagnostic(text, style));
    return 2;
  }
  const { config, diagnostics } = validateRouterConfig(text, file, { env: process.env });
  for (const diagnostic of diagnostics) out.error(formatDiagnostic(diagnostic, style));
  if (config === undefined) return 1;
  out.print(`# effective configuration of ${file} (defaults filled in)\n${stringify(config).trimEnd()}`);
  return 0;
}

export function schemaCommand(out: Output): number {
  out.print(JSON.stringify(routerJsonSchema(), null, 2));
  return 0;
}

/** The file's text, or the error diagnostic saying why it cannot be read. */
async function readText(file: string): Promise<string | Diagnostic> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    // Node's message ends with the syscall and path ("..., open 'x'"); the file is named once, up front.
    const reason = reasonOf(error);
    return { severity: 'error', file, line: 1, column: 1, path: '', message: `cannot read the file: ${reason}` };
  }
}

function asError(diagnostic: Diagnostic): Diagnostic {
  return diagnostic.severity === 'error' ? diagnostic : { ...diagnostic, severity: 'error', message: `${diagnostic.message} (--strict)` };
}

/**
 * `svc router run --config FILE`: runs the router until SIGINT or SIGTERM, then stops it cleanly (exit 0). A file with
 * errors, or a router that is not enrolled or whose identity cannot be read, exits 1 with the reason, before anything
 * starts.
 */
export async function runRouterCommand(configPath: string, out: Output, build: VersionInfo): Promise<number> {
  const log = createLogger();
  const stop = watchForStop({ onForcedExit: () => out.error('svc: second signal while stopping; exiting now') });
  try {
    let router: RunningRouter;
    try {
      router = await startRouter(configPath, { log, env: process.env, build });
    } catch (error) {
      if (!(error instanceof RouterSetupError)) throw error;
      out.error(`svc: ${error.message}`);
      return 1;
    }
    out.print(`svc router running from ${configPath}${router.web ? `; health checks at ${router.web.urls.join(', ')}` : ''}`);
    const reason = await stop.stopped;
    out.print(reason === 'parent-exited' ? 'stopping (the npm process that started svc has exited)...' : `stopping (${reason})...`);
    await router.stop();
    out.print('stopped');
    return 0;
  } finally {
    stop.dispose();
  }
}
