/**
 * The tuning sections whose values are durations or related numbers: `healthChecks`, `metrics` and
 * `transport.westworld3` (integer bounds of `forwarder` and `profile` are in the schema itself).
 */
import { hasPath } from '../../shared/yaml-source.js';
import { reportError } from '../../config/rule-context.js';
import type { RouterFile } from '../schema.js';
import { checkDuration, isMapping } from './check.js';
import type { RuleContext } from './check.js';

export function healthCheckRules(context: RuleContext, healthChecks: RouterFile['healthChecks']): void {
  if (!isMapping(healthChecks)) return;
  const ping = healthChecks.ctrlPingCheck;
  if (isMapping(ping)) {
    checkDuration(context, ['healthChecks', 'ctrlPingCheck', 'interval'], ping.interval);
    checkDuration(context, ['healthChecks', 'ctrlPingCheck', 'timeout'], ping.timeout);
    checkDuration(context, ['healthChecks', 'ctrlPingCheck', 'initialDelay'], ping.initialDelay, 0);
  }
  const link = healthChecks.linkCheck;
  if (isMapping(link)) {
    checkDuration(context, ['healthChecks', 'linkCheck', 'interval'], link.interval);
    checkDuration(context, ['healthChecks', 'linkCheck', 'initialDelay'], link.initialDelay, 0);
  }
}

export function metricsRules(context: RuleContext, metrics: RouterFile['metrics']): void {
  if (!isMapping(metrics)) return;
  checkDuration(context, ['metrics', 'reportInterval'], metrics.reportInterval);
  checkDuration(context, ['metrics', 'intervalAgeThreshold'], metrics.intervalAgeThreshold);
}

/** The smallest transmit portal cannot be larger than the largest. */
export function transportRules(context: RuleContext, transport: RouterFile['transport']): void {
  const ww = isMapping(transport) ? transport.westworld3 : undefined;
  if (!isMapping(ww)) return;
  const path = ['transport', 'westworld3'];
  const { tx_portal_min_sz: min, tx_portal_max_sz: max } = ww;
  if (min === undefined || max === undefined || min <= max) return;
  if (!context.clean([...path, 'tx_portal_min_sz']) || !context.clean([...path, 'tx_portal_max_sz'])) return;
  const at = hasPath(context.source, [...path, 'tx_portal_max_sz']) ? 'tx_portal_max_sz' : 'tx_portal_min_sz';
  reportError(context, [...path, at], `tx_portal_min_sz ${min} is above tx_portal_max_sz ${max}`);
}
