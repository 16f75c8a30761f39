/**
 * `ctrl`: the controller address(es), the local bind interface and the request timeout (spec "Router
 * configuration file", `ctrl` table).
 */
import { reportError, reportWarning } from '../../config/rule-context.js';
import type { RouterFile } from '../schema.js';
import { checkDuration, checkEach, checkValue, isMapping } from './check.js';
import type { RuleContext } from './check.js';
import { addressProblem, interfaceProblem } from './values.js';

/** Checks `ctrl` and, when both endpoint and endpoints are given, drops endpoints from the effective value. */
export function ctrlRules(context: RuleContext, ctrl: RouterFile['ctrl'] | undefined): void {
  if (!isMapping(ctrl)) return;
  const hasEndpoint = ctrl.endpoint !== undefined;
  const hasEndpoints = ctrl.endpoints !== undefined;
  if (!hasEndpoint && !hasEndpoints) {
    reportError(context, ['ctrl'], 'missing ctrl.endpoint or ctrl.endpoints: the router needs a controller address', 'key');
  }
  checkValue(context, ['ctrl', 'endpoint'], ctrl.endpoint, addressProblem);
  checkEach(context, ['ctrl', 'endpoints'], ctrl.endpoints, addressProblem);
  if (hasEndpoint && hasEndpoints) {
    reportWarning(context, ['ctrl', 'endpoints'], 'ignored because ctrl.endpoint is given', 'key');
    delete (ctrl as { endpoints?: unknown }).endpoints;
  }
  checkValue(context, ['ctrl', 'bind'], ctrl.bind, interfaceProblem);
  checkDuration(context, ['ctrl', 'defaultRequestTimeout'], ctrl.defaultRequestTimeout);
}
