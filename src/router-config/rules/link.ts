/**
 * `link`: listeners other routers dial and dialers that dial them, with the backoff policies of the dialers
 * (spec "Router configuration file", `link`). A listener's `advertise` may carry the `tls:` protocol, as the
 * reference router writes it; the effective configuration holds the spec's `<host>:<port>` either way.
 */
import { hasPath } from '../../shared/yaml-source.js';
import type { KeyPath } from '../../shared/yaml-source.js';
import { reportError } from '../../config/rule-context.js';
import { BACKOFF_BOUNDS } from '../schema.js';
import type { LinkDialerFile, RouterFile } from '../schema.js';
import { checkDuration, checkValue, isMapping } from './check.js';
import type { RuleContext } from './check.js';
import { addressProblem, interfaceProblem, linkAdvertiseProblem, parseLinkAdvertise } from './values.js';

export function linkRules(context: RuleContext, link: RouterFile['link']): void {
  if (!isMapping(link)) return;
  if (Array.isArray(link.listeners)) {
    link.listeners.forEach((listener, index) => {
      if (!isMapping(listener)) return;
      const path = ['link', 'listeners', index];
      checkValue(context, [...path, 'bind'], listener.bind, addressProblem);
      const advertise = [...path, 'advertise'];
      checkValue(context, advertise, listener.advertise, linkAdvertiseProblem);
      if (typeof listener.advertise === 'string' && context.clean(advertise)) {
        // One spelling in the effective configuration, so a reader of it never strips a protocol itself.
        const parsed = parseLinkAdvertise(listener.advertise);
        if (parsed.ok) listener.advertise = parsed.value;
      }
    });
  }
  if (Array.isArray(link.dialers)) {
    link.dialers.forEach((dialer, index) => {
      if (!isMapping(dialer)) return;
      const path = ['link', 'dialers', index];
      checkValue(context, [...path, 'bind'], dialer.bind, interfaceProblem);
      backoffRules(context, [...path, 'healthyDialBackoff'], dialer.healthyDialBackoff);
      backoffRules(context, [...path, 'unhealthyDialBackoff'], dialer.unhealthyDialBackoff);
    });
  }
}

/**
 * Both intervals within 10ms..24h, and the first not above the second (the factor is bounded by the schema). Also
 * used for the control channel's reconnect backoff, which has the same shape.
 */
export function backoffRules(context: RuleContext, path: KeyPath, backoff: LinkDialerFile['healthyDialBackoff']): void {
  if (!isMapping(backoff)) return;
  const { minIntervalMs, maxIntervalMs } = BACKOFF_BOUNDS;
  const min = checkDuration(context, [...path, 'minRetryInterval'], backoff.minRetryInterval, minIntervalMs, maxIntervalMs);
  const max = checkDuration(context, [...path, 'maxRetryInterval'], backoff.maxRetryInterval, minIntervalMs, maxIntervalMs);
  if (min === undefined || max === undefined || min <= max) return;
  // Defaults are filled in by now, so ask the file which of the two the user actually wrote.
  const at = hasPath(context.source, [...path, 'maxRetryInterval']) ? 'maxRetryInterval' : 'minRetryInterval';
  reportError(context, [...path, at], `minRetryInterval ${backoff.minRetryInterval} is above maxRetryInterval ${backoff.maxRetryInterval}`);
}
