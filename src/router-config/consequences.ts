/**
 * What the router cannot do with the file as written: the sections standard operation needs but starting
 * does not (spec "Router configuration file (YAML)", "Requirements"). Each is a warning that says exactly
 * what is lost, in the spec's words, so an operator can decide whether that is intended.
 */
import { reportWarning } from '../config/rule-context.js';
import type { RuleContext } from '../config/rule-context.js';
import type { CsrOutcome } from './rules/csr.js';
import type { RouterFile } from './schema.js';

/** The sections whose absence (or an empty list) costs a capability, and that capability. */
export const CONSEQUENCES = {
  csr: 'no csr section: the router cannot enroll or renew enrollments',
  dialers: 'no dialers: the router cannot connect to services it terminates',
  edge: 'no edge section: the router starts in fabric-only mode with no edge functionality (no SDK connectivity)',
  link: 'no link section: the router cannot dial or accept other routers (no router links)',
  listeners: 'no listeners: the router accepts no external on-ramp connections',
} as const;

export const NO_VALID_SAN = 'no valid SAN (sans.dns, sans.ip, sans.uri or sans.email): the router cannot accept SDK or router connections';

export function consequenceWarnings(context: RuleContext, file: RouterFile, csr: CsrOutcome): void {
  if (csr.at === undefined) reportWarning(context, ['csr'], CONSEQUENCES.csr, 'key');
  else if (!csr.hasValidSan && context.clean(csr.at)) reportWarning(context, csr.at, NO_VALID_SAN, 'key');
  // In the spec's order, so the warnings read as its "Requirements" paragraph does.
  for (const key of ['dialers', 'edge', 'link', 'listeners'] as const) {
    const value = file[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) reportWarning(context, [key], CONSEQUENCES[key], 'key');
  }
}
