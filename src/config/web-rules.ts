/**
 * The `web` list as a whole: unique listener names, no interface bound twice, OIDC auto-binding, and the
 * Edge API address matching a listener that serves `edge-client`. Each listener's own rules are in
 * listener-rules.ts.
 */
import { formatKeyPath } from '../shared/yaml-source.js';
import { hostPortKey, sameHostPort, parseHostPort } from './host-port.js';
import { listenerRules } from './listener-rules.js';
import { DEFAULT_REDIRECT_PATTERNS } from './redirect-uri.js';
import { errorCount, reportError } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import type { ListenerFile } from './schema.js';
import type { ApiBinding, EdgeConfig, HostPort, IdentityFiles, WebListener } from './types.js';

export interface WebRuleInputs {
  /** Whether the file has an `edge` section at all (even a faulty one). */
  readonly hasEdge: boolean;
  /** The edge section when it came out whole; cross checks against it are skipped otherwise. */
  readonly edge: EdgeConfig | undefined;
  readonly rootIdentity: IdentityFiles | undefined;
}

/** The listeners with auto-binding applied, or undefined after reporting their problems. */
export function webRules(
  context: RuleContext,
  listeners: readonly ListenerFile[],
  inputs: WebRuleInputs,
): WebListener[] | undefined {
  const before = errorCount(context);
  uniqueNames(context, listeners);
  uniqueInterfaces(context, listeners);
  const checked = listeners.map((listener, index) =>
    listenerRules(context, ['web', index], listener, inputs.hasEdge, inputs.rootIdentity),
  );
  if (errorCount(context) > before || checked.some((l) => l === undefined)) return undefined;
  const bound = autoBind(checked as WebListener[], inputs.edge);
  if (inputs.edge !== undefined) edgeAddressIsServed(context, inputs.edge.api.address, bound);
  return errorCount(context) > before ? undefined : bound;
}

function uniqueNames(context: RuleContext, listeners: readonly ListenerFile[]): void {
  const first = new Map<string, number>();
  listeners.forEach((listener, index) => {
    if (typeof listener?.name !== 'string') return;
    const earlier = first.get(listener.name);
    if (earlier === undefined) first.set(listener.name, index);
    else {
      const message = `listener name '${listener.name}' is already used by ${formatKeyPath(['web', earlier])}`;
      reportError(context, ['web', index, 'name'], message);
    }
  });
}

/** Two listeners cannot both listen on one host and port; the second would fail to bind at start-up. */
function uniqueInterfaces(context: RuleContext, listeners: readonly ListenerFile[]): void {
  // Where each interface was first bound, by hostPortKey (a map, so that many bind points are not compared pairwise).
  const taken = new Map<string, string>();
  listeners.forEach((listener, index) => {
    if (!Array.isArray(listener?.bindPoints)) return;
    listener.bindPoints.forEach((point, pointIndex) => {
      const parsed = typeof point?.interface === 'string' ? parseHostPort(point.interface) : undefined;
      if (parsed === undefined || !parsed.ok) return;
      const path = ['web', index, 'bindPoints', pointIndex];
      const key = hostPortKey(parsed.value);
      const clash = taken.get(key);
      if (clash === undefined) taken.set(key, formatKeyPath(path));
      else reportError(context, [...path, 'interface'], `interface '${point.interface}' is already used by ${clash}`);
    });
  });
}

/**
 * Spec "Web listener rules": with an edge section and auto-binding on, `edge-oidc` joins every listener
 * that hosts `edge-client`, unless some listener lists `edge-oidc` itself; then only explicit ones count.
 */
function autoBind(listeners: WebListener[], edge: EdgeConfig | undefined): WebListener[] {
  const explicit = listeners.some((l) => l.apis.some((api) => api.binding === 'edge-oidc'));
  if (edge === undefined || edge.api.disableOidcAutoBinding || explicit) return listeners;
  const auto: ApiBinding = { binding: 'edge-oidc', options: { redirectURIs: [...DEFAULT_REDIRECT_PATTERNS] }, auto: true };
  return listeners.map((l) => (l.apis.some((api) => api.binding === 'edge-client') ? { ...l, apis: [...l.apis, auto] } : l));
}

/** edge.api.address is what clients are told to use, so some listener serving edge-client must answer there. */
function edgeAddressIsServed(context: RuleContext, address: HostPort, listeners: readonly WebListener[]): void {
  const candidates = listeners
    .filter((l) => l.apis.some((api) => api.binding === 'edge-client'))
    .flatMap((l) => l.bindPoints.map((point) => point.address));
  if (candidates.some((candidate) => sameHostPort(candidate, address))) return;
  const path = ['edge', 'api', 'address'];
  if (candidates.length === 0) {
    const why = 'but no listener hosts edge-client';
    reportError(context, path, `'${address.text}' must be the address of a bind point of a listener hosting edge-client, ${why}`);
    return;
  }
  const list = candidates.map((c) => c.text).join(', ');
  const message = `'${address.text}' must equal the address of a bind point of a listener hosting edge-client`;
  reportError(context, path, `${message} (candidates: ${list})`);
}
