/**
 * Reading the router's config file for the router's own commands (enroll, renew, run): the text through the shared
 * validator (router-config/), with `${VAR}` taken from the environment the caller passes. Errors refuse; warnings
 * are returned for the caller to print.
 */
import { readFile } from 'node:fs/promises';
import { validateRouterConfig } from '../router-config/validate.js';
import type { RouterFile } from '../router-config/schema.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { reasonOf } from '../shared/system-errors.js';
import { RouterSetupError } from './errors.js';

export interface RouterConfigRead {
  /** The effective configuration; undefined when a diagnostic is an error. */
  readonly config: RouterFile | undefined;
  readonly diagnostics: Diagnostic[];
}

/** Reads and validates `path`; RouterSetupError when the file cannot be read at all. */
export async function readRouterConfig(path: string, env: Readonly<Record<string, string | undefined>>): Promise<RouterConfigRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RouterSetupError(`${path}: cannot read the router config (${reasonOf(error)})`);
  }
  return validateRouterConfig(text, path, { env });
}
