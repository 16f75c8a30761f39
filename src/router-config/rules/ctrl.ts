/**
 * `ctrl`: the controller address(es), the local bind interface, the request timeout, the heartbeats, the
 * channel options (connect timeout, reconnect backoff) and the endpoints file (spec "Router configuration
 * file", `ctrl` table; the names of heartbeats and options are svc's, decision 0065).
 */
import { hasPath } from '../../shared/yaml-source.js';
import { reportError, reportWarning } from '../../config/rule-context.js';
import type { RouterFile } from '../schema.js';
import { checkDuration, checkEach, checkValue, isMapping } from './check.js';
import type { RuleContext } from './check.js';
import { backoffRules } from './link.js';
import { addressProblem, interfaceProblem } from './values.js';

/** The `ctrl.options` names svc reads; others are warned about, not refused (reference router files carry more). */
export const CTRL_OPTIONS = ['connectTimeout', 'reconnect'] as const;

/**
 * Checks `ctrl`; drops from the effective value what is ignored: endpoints when endpoint is given, unknown options.
 */
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
  heartbeatRules(context, ctrl.heartbeats);
  optionRules(context, ctrl.options);
  checkValue(context, ['ctrl', 'endpointsFile'], ctrl.endpointsFile, endpointsFileProblem);
}

/** A controller answering every heartbeat must never be closed: the timeout has to outlast one send interval. */
function heartbeatRules(context: RuleContext, heartbeats: RouterFile['ctrl']['heartbeats']): void {
  if (!isMapping(heartbeats)) return;
  const path = ['ctrl', 'heartbeats'];
  const send = checkDuration(context, [...path, 'sendInterval'], heartbeats.sendInterval);
  const check = checkDuration(context, [...path, 'checkInterval'], heartbeats.checkInterval);
  const close = checkDuration(context, [...path, 'closeUnresponsiveTimeout'], heartbeats.closeUnresponsiveTimeout);
  if (send === undefined || close === undefined || check === undefined) return;
  // Defaults are filled in by now, so point at the key the user wrote.
  const at = (key: string, other: string) => (hasPath(context.source, [...path, key]) ? key : other);
  if (close <= send) {
    const key = at('closeUnresponsiveTimeout', 'sendInterval');
    reportError(
      context,
      [...path, key],
      `closeUnresponsiveTimeout ${heartbeats.closeUnresponsiveTimeout} must be longer than sendInterval ${heartbeats.sendInterval}: a healthy controller would be dropped between two heartbeats`,
    );
  } else if (check > close) {
    const key = at('checkInterval', 'closeUnresponsiveTimeout');
    reportError(context, [...path, key], `checkInterval ${heartbeats.checkInterval} is above closeUnresponsiveTimeout ${heartbeats.closeUnresponsiveTimeout}`);
  }
}

function optionRules(context: RuleContext, options: RouterFile['ctrl']['options']): void {
  if (!isMapping(options)) return;
  for (const key of Object.keys(options)) {
    if ((CTRL_OPTIONS as readonly string[]).includes(key)) continue;
    reportWarning(context, ['ctrl', 'options', key], `option '${key}' is not used by svc and is ignored; the known options are ${CTRL_OPTIONS.join(', ')}`, 'key');
    // Out of the effective configuration too, so `svc router explain` shows what the router uses.
    delete (options as Record<string, unknown>)[key];
  }
  checkDuration(context, ['ctrl', 'options', 'connectTimeout'], options.connectTimeout);
  backoffRules(context, ['ctrl', 'options', 'reconnect'], options.reconnect);
}

/** A file name, not a folder: the router replaces it by renaming a temporary file onto it. */
function endpointsFileProblem(text: string): string | undefined {
  if (/[/\\]$/.test(text)) return `'${text}' names a folder; give the file the router writes, e.g. endpoints.yml`;
  if (text.includes('\0')) return `'${text}' is not a file path`;
  return undefined;
}
