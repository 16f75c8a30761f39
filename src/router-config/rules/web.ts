/**
 * `web`: listeners shaped as the controller's (the schema is shared), serving the `health-checks` API (spec
 * "Router configuration file", `web`) and svc's `metrics` API (Prometheus text, decision 0065); neither takes options.
 */
import { parseHostPort } from '../../config/host-port.js';
import { reportError } from '../../config/rule-context.js';
import { closestMatch } from '../../shared/text-distance.js';
import { formatKeyPath, hasPath } from '../../shared/yaml-source.js';
import type { KeyPath } from '../../shared/yaml-source.js';
import type { RouterFile } from '../schema.js';
import { checkDuration, checkValue, isMapping } from './check.js';
import type { RuleContext } from './check.js';

/** The APIs a router's web listeners serve. */
export const ROUTER_APIS = ['health-checks', 'metrics'] as const;

type WebListener = NonNullable<RouterFile['web']>[number];

export function webRules(context: RuleContext, web: RouterFile['web']): void {
  if (!Array.isArray(web)) return;
  const names = new Map<string, number>();
  web.forEach((listener, index) => {
    if (!isMapping(listener)) return;
    const path = ['web', index];
    if (typeof listener.name === 'string') {
      const first = names.get(listener.name);
      if (first === undefined) names.set(listener.name, index);
      else reportError(context, [...path, 'name'], `listener name '${listener.name}' is already used by ${formatKeyPath(['web', first])}`);
    }
    oneListener(context, path, listener);
  });
}

function oneListener(context: RuleContext, path: KeyPath, listener: WebListener): void {
  const hostPort = (text: string) => {
    const parsed = parseHostPort(text);
    return parsed.ok ? undefined : parsed.problem;
  };
  if (Array.isArray(listener.bindPoints)) {
    listener.bindPoints.forEach((point, index) => {
      if (!isMapping(point)) return;
      checkValue(context, [...path, 'bindPoints', index, 'interface'], point.interface, hostPort);
      checkValue(context, [...path, 'bindPoints', index, 'address'], point.address, hostPort);
    });
  }
  if (Array.isArray(listener.apis) && context.clean([...path, 'apis'])) {
    listener.apis.forEach((api, index) => {
      const apiPath = [...path, 'apis', index];
      if (!(ROUTER_APIS as readonly string[]).includes(api.binding)) {
        const guess = closestMatch(api.binding, ROUTER_APIS);
        const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
        reportError(context, [...apiPath, 'binding'], `binding '${api.binding}' is not served by a router${hint}; router APIs are ${ROUTER_APIS.join(', ')}`);
      } else if (api.options !== undefined && Object.keys(api.options).length > 0) {
        reportError(context, [...apiPath, 'options'], `'${api.binding}' takes no options`, 'key');
      }
    });
  }
  const options = listener.options;
  if (!isMapping(options)) return;
  const optionsPath = [...path, 'options'];
  for (const key of ['idleTimeout', 'readTimeout', 'writeTimeout'] as const) checkDuration(context, [...optionsPath, key], options[key]);
  const { minTLSVersion: min, maxTLSVersion: max } = options;
  if (min === undefined || max === undefined || !context.clean([...optionsPath, 'minTLSVersion']) || !context.clean([...optionsPath, 'maxTLSVersion'])) return;
  // The names sort in version order, so text comparison is version comparison.
  if (min > max) {
    const at = hasPath(context.source, [...optionsPath, 'minTLSVersion']) ? 'minTLSVersion' : 'maxTLSVersion';
    reportError(context, [...optionsPath, at], `minTLSVersion ${min} is above maxTLSVersion ${max}`);
  }
}
