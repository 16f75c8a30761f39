/**
 * The semantic rules of the controller file, run after the schema check: each part is checked only if
 * its shape was right (see RuleContext.clean), so one typo does not hide the other problems of the file.
 * Produces the typed config, or undefined when anything is wrong.
 */
import { isAbsolute, resolve } from 'node:path';
import { databaseTargetFromString } from '../persistence/database.js';
import type { DatabaseTarget } from '../persistence/database.js';
import { ctrlRules } from './ctrl-rules.js';
import { edgeRules } from './edge-rules.js';
import { identityFiles } from './listener-rules.js';
import { errorCount, reportError } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import type { ControllerFile } from './schema.js';
import type { ControllerConfig } from './types.js';
import { webRules } from './web-rules.js';

/**
 * Applies every rule to the file's value (defaults already filled in by the schema check) and maps it.
 * Problems go to `context.diagnostics`; files to check for readability go to `context.files`.
 */
export function controllerRules(context: RuleContext, file: ControllerFile): ControllerConfig | undefined {
  // The only shape problem that leaves nothing to read: the file is not a mapping at all.
  if (file === null || typeof file !== 'object' || Array.isArray(file)) return undefined;
  const before = errorCount(context);
  const { clean } = context;

  const db = clean(['db']) ? databaseTarget(context, file.db) : undefined;
  const identity = file.identity === undefined ? undefined : identityFiles(context, ['identity'], file.identity);
  const hasEdge = file.edge !== undefined;
  const edge = hasEdge ? edgeRules(context, file.edge as NonNullable<ControllerFile['edge']>) : undefined;
  const web = Array.isArray(file.web) ? webRules(context, file.web, { hasEdge, edge, rootIdentity: identity }) : undefined;
  const ctrl = file.ctrl === undefined ? undefined : ctrlRules(context, file.ctrl, { edge, web });

  if (errorCount(context) > before || db === undefined || identity === undefined || web === undefined) return undefined;
  if (hasEdge && edge === undefined) return undefined;
  return { source: resolve(context.source.file), db, identity, ...(ctrl === undefined ? {} : { ctrl }), edge, web };
}

/** `postgres://` URLs must name a host; anything else is a SQLite file, relative to the config file. */
function databaseTarget(context: RuleContext, text: string): DatabaseTarget | undefined {
  const target = databaseTargetFromString(text);
  if (target.kind === 'postgres') {
    let host = '';
    try {
      host = new URL(target.url).hostname;
    } catch {
      // Reported below together with the no-host case: both mean the URL cannot be used.
    }
    if (host === '') {
      reportError(context, ['db'], `'${text}' is not a usable PostgreSQL URL (expected postgres://user@host[:port]/database)`);
      return undefined;
    }
    return target;
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (scheme !== null) {
    // Without this, `mysql://...` would quietly become a SQLite file of that name.
    reportError(context, ['db'], `database URL scheme '${scheme[1]}' is not supported; use postgres:// or a SQLite file path`);
    return undefined;
  }
  if (target.path === ':memory:' || isAbsolute(target.path)) return target;
  return { kind: 'sqlite', path: resolve(context.baseDir, target.path) };
}
