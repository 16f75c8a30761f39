/**
 * `identity.renewal`: the backoff of failed certificate renewals (decision 0063). The share of the lifetime is
 * bounded by the schema; here the two intervals are read as durations and the smaller may not exceed the larger.
 */
import { reportError } from '../../config/rule-context.js';
import type { RouterFile } from '../schema.js';
import { checkDuration, isMapping } from './check.js';
import type { RuleContext } from './check.js';

/** Retries closer together than this would hammer the controller; the same floor as the link dial backoffs. */
const MIN_RETRY_MS = 10;

export function identityRules(context: RuleContext, identity: RouterFile['identity'] | undefined): void {
  const renewal = isMapping(identity) ? identity.renewal : undefined;
  if (!isMapping(renewal)) return;
  const path = ['identity', 'renewal'];
  const min = checkDuration(context, [...path, 'minRetryInterval'], renewal.minRetryInterval, MIN_RETRY_MS);
  const max = checkDuration(context, [...path, 'maxRetryInterval'], renewal.maxRetryInterval, MIN_RETRY_MS);
  if (min !== undefined && max !== undefined && min > max) {
    reportError(context, [...path, 'maxRetryInterval'], `${renewal.maxRetryInterval} is below minRetryInterval ${renewal.minRetryInterval}`);
  }
}
