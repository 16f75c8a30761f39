/**
 * `listeners`: the on-ramps of the router. Each needs a listen address (`bind` or `address`) and an
 * `advertise` host:port, except a `tunnel` listener: it intercepts and hosts services itself, so nothing dials
 * it (the reference router ignores both; see docs/decisions/0007-router-config.md). A `tunnel` listener's
 * options decide its mode (spec "Router configuration file", `listeners`: host by default, tproxy with a
 * resolver, proxy with a list of service:port pairs).
 */
import { checkAgainstSchema, isClean } from '../../shared/schema-check.js';
import type { KeyPath } from '../../shared/yaml-source.js';
import { reportError, reportWarning } from '../../config/rule-context.js';
import { EDGE_BINDING, EdgeOptionsSchema, TUNNEL_BINDING, TunnelOptionsSchema } from '../schema.js';
import type { ListenerEntryFile, RouterFile, TunnelOptionsFile } from '../schema.js';
import { checkDuration, checkEach, checkValue, isMapping } from './check.js';
import type { RuleContext } from './check.js';
import { addressProblem, advertiseProblem, cidrProblem, resolverProblem, servicePortProblem } from './values.js';

export function listenerRules(context: RuleContext, listeners: RouterFile['listeners']): void {
  if (!Array.isArray(listeners)) return;
  listeners.forEach((listener, index) => {
    if (isMapping(listener)) oneListener(context, ['listeners', index], listener);
  });
}

function oneListener(context: RuleContext, path: KeyPath, listener: ListenerEntryFile): void {
  const tunnel = listener.binding === TUNNEL_BINDING;
  // Worded, and ordered, as when the schema required advertise of every listener.
  if (listener.advertise === undefined && !tunnel) reportError(context, [...path, 'advertise'], 'missing required key', 'key');
  if (listener.bind === undefined && listener.address === undefined) {
    if (!tunnel) reportError(context, [...path, 'bind'], 'missing listen address: give bind or address', 'key');
  } else if (listener.bind !== undefined && listener.address !== undefined) {
    reportError(context, [...path, 'address'], 'give either bind or address, not both', 'key');
  }
  checkValue(context, [...path, 'bind'], listener.bind, addressProblem);
  checkValue(context, [...path, 'address'], listener.address, addressProblem);
  checkValue(context, [...path, 'advertise'], listener.advertise, advertiseProblem);
  if (tunnel && context.clean([...path, 'options'])) {
    listener.options ??= {};
    tunnelOptions(context, [...path, 'options'], listener.options);
  }
  if (listener.binding === EDGE_BINDING && listener.options !== undefined && context.clean([...path, 'options'])) {
    edgeOptions(context, [...path, 'options'], listener.options);
  }
}

const EDGE_OPTION_KEYS = Object.keys(EdgeOptionsSchema.properties);

/** The edge listener's limits and timeouts; keys it does not know (upstream's) are reported as ignored. */
function edgeOptions(context: RuleContext, path: KeyPath, options: Record<string, unknown>): void {
  const checked = checkAgainstSchema(options, EdgeOptionsSchema, context.source, path);
  context.diagnostics.push(...checked.diagnostics);
  for (const key of Object.keys(options)) {
    if (!EDGE_OPTION_KEYS.includes(key)) reportWarning(context, [...path, key], `ignored: the edge listener's options are ${EDGE_OPTION_KEYS.join(', ')}`, 'key');
  }
  for (const key of ['handshakeTimeout', 'dialTimeout']) {
    if (isClean(checked, [...path, key]) && typeof options[key] === 'string') checkDuration(context, [...path, key], options[key]);
  }
}

/** The tunnel's options against their own schema (defaults filled in place), then the mode's needs. */
function tunnelOptions(context: RuleContext, path: KeyPath, options: Record<string, unknown>): void {
  const checked = checkAgainstSchema(options, TunnelOptionsSchema, context.source, path);
  context.diagnostics.push(...checked.diagnostics);
  const clean = (key: string) => isClean(checked, [...path, key]);
  const tunnel = options as TunnelOptionsFile;
  if (clean('mode')) {
    const mode = tunnel.mode ?? 'host';
    if (mode === 'tproxy' && tunnel.resolver === undefined) {
      reportError(context, [...path, 'resolver'], "missing required key: mode 'tproxy' needs a resolver, e.g. udp:127.0.0.1:53", 'key');
    }
    if (mode === 'proxy' && tunnel.services === undefined) {
      reportError(context, [...path, 'services'], "missing required key: mode 'proxy' needs services as <service name>:<port>", 'key');
    }
    for (const key of ['resolver', 'dnsSvcIpRange'] as const) {
      if (mode !== 'tproxy' && tunnel[key] !== undefined) reportWarning(context, [...path, key], `ignored: only mode 'tproxy' uses ${key}`, 'key');
    }
    if (mode !== 'proxy' && tunnel.services !== undefined) reportWarning(context, [...path, 'services'], "ignored: only mode 'proxy' uses services", 'key');
  }
  if (clean('resolver')) checkValue(context, [...path, 'resolver'], tunnel.resolver, resolverProblem);
  if (clean('dnsSvcIpRange')) checkValue(context, [...path, 'dnsSvcIpRange'], tunnel.dnsSvcIpRange, cidrProblem);
  if (clean('services')) checkEach(context, [...path, 'services'], tunnel.services, servicePortProblem);
}
