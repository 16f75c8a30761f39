/**
 * The meaning checks of the router file, run after the schema check. Each part is read only where its shape
 * was right (RuleContext.clean), so one typo does not hide the other problems of the file.
 */
import type { RouterFile } from '../schema.js';
import type { RuleContext } from './check.js';
import { csrRules } from './csr.js';
import type { CsrOutcome } from './csr.js';
import { ctrlRules } from './ctrl.js';
import { identityRules } from './identity.js';
import { linkRules } from './link.js';
import { listenerRules } from './listeners.js';
import { healthCheckRules, metricsRules, transportRules } from './sections.js';
import { webRules } from './web.js';

/**
 * Applies every rule to the file's value (defaults already filled in), reporting into the context. Adjusts
 * the value in place where the effective configuration differs from the text (ignored `ctrl.endpoints`,
 * tunnel option defaults). Returns what consequences.ts needs to know about the csr.
 */
export function routerRules(context: RuleContext, file: RouterFile): CsrOutcome {
  ctrlRules(context, file.ctrl);
  identityRules(context, file.identity);
  const csr = csrRules(context, file);
  linkRules(context, file.link);
  listenerRules(context, file.listeners);
  healthCheckRules(context, file.healthChecks);
  metricsRules(context, file.metrics);
  transportRules(context, file.transport);
  webRules(context, file.web);
  return csr;
}
