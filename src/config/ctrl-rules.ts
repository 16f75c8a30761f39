/**
 * `ctrl`: the control-plane listener routers connect to (`tls:<host>:<port>`, 6262 by convention) and the address
 * they are told to use. Checked like the web bind points: syntax, port range, and no port shared with a web bind
 * point on the same interface (the second listener would fail to bind at start-up). Decision 0065.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { formatKeyPath } from '../shared/yaml-source.js';
import { hostPortKey, parseHostPort } from './host-port.js';
import { reportError } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import type { CtrlFile } from './schema.js';
import type { CtrlConfig, EdgeConfig, HostPort, WebListener } from './types.js';

/** The one transport the control plane listens on: routers dial it with mutual TLS. */
export const CTRL_PROTOCOL = 'tls';

export interface CtrlRuleInputs {
  /** The edge section when it came out whole: its API host stands in for a wildcard listener's host. */
  readonly edge: EdgeConfig | undefined;
  /** The web listeners when they came out whole; the port clash check is skipped otherwise. */
  readonly web: readonly WebListener[] | undefined;
}

/** The typed `ctrl`, or undefined after reporting its problems. */
export function ctrlRules(context: RuleContext, ctrl: CtrlFile, inputs: CtrlRuleInputs): CtrlConfig | undefined {
  if (ctrl === null || typeof ctrl !== 'object') return undefined;
  const listener = context.clean(['ctrl', 'listener']) ? parseListener(context, ctrl.listener) : undefined;
  let advertise: HostPort | undefined;
  if (ctrl.advertise !== undefined) {
    if (!context.clean(['ctrl', 'advertise'])) return undefined;
    const parsed = parseHostPort(ctrl.advertise);
    if (!parsed.ok) reportError(context, ['ctrl', 'advertise'], parsed.problem);
    advertise = parsed.ok ? parsed.value : undefined;
    if (advertise === undefined) return undefined;
  }
  if (listener === undefined) return undefined;
  if (inputs.web !== undefined && sharesWebPort(context, listener, inputs.web)) return undefined;
  advertise ??= defaultAdvertise(context, listener, inputs.edge);
  return advertise === undefined ? undefined : { listener, advertise };
}

function parseListener(context: RuleContext, text: string): HostPort | undefined {
  const path = ['ctrl', 'listener'];
  const colon = text.indexOf(':');
  const protocol = colon < 0 ? '' : text.slice(0, colon);
  const example = `expected ${CTRL_PROTOCOL}:<host>:<port>, e.g. ${CTRL_PROTOCOL}:0.0.0.0:6262`;
  if (protocol !== CTRL_PROTOCOL) {
    const what = /^[a-z][a-z0-9]*$/i.test(protocol) && parseHostPort(text.slice(colon + 1)).ok ? `protocol '${protocol}' is not served` : 'not a listener address';
    reportError(context, path, `'${text}': ${what}; ${example}`);
    return undefined;
  }
  const parsed = parseHostPort(text.slice(colon + 1));
  if (!parsed.ok) {
    reportError(context, path, `'${text}': ${parsed.problem}; ${example}`);
    return undefined;
  }
  return { ...parsed.value, text };
}

const isWildcard = (host: string) => (isIPv4(host) && host === '0.0.0.0') || (isIPv6(host) && new URL(`http://[${host}]/`).hostname === '[::]');

/** One port cannot serve both: same port, and the same host or either listening on all interfaces. */
function sharesWebPort(context: RuleContext, listener: HostPort, web: readonly WebListener[]): boolean {
  const key = hostPortKey(listener);
  for (const [index, l] of web.entries()) {
    for (const [pointIndex, point] of l.bindPoints.entries()) {
      const other = point.interface;
      if (other.port !== listener.port) continue;
      if (hostPortKey(other) !== key && !isWildcard(other.host) && !isWildcard(listener.host)) continue;
      const where = formatKeyPath(['web', index, 'bindPoints', pointIndex, 'interface']);
      reportError(context, ['ctrl', 'listener'], `'${listener.text}' uses port ${listener.port} of ${where} ('${other.text}'); give the control plane a port of its own, e.g. 6262`);
      return true;
    }
  }
  return false;
}

/**
 * The listener's own host:port, unless it binds all interfaces: routers cannot dial 0.0.0.0, so the edge API's
 * host (the name clients already use for this controller) stands in, with the listener's port.
 */
function defaultAdvertise(context: RuleContext, listener: HostPort, edge: EdgeConfig | undefined): HostPort | undefined {
  const host = isWildcard(listener.host) ? edge?.api.address.host : listener.host;
  if (host === undefined) {
    reportError(context, ['ctrl', 'listener'], `'${listener.text}' listens on all interfaces: set ctrl.advertise to the host:port routers should dial`);
    return undefined;
  }
  const text = `${host.includes(':') ? `[${host}]` : host}:${listener.port}`;
  return { host, port: listener.port, text };
}
