/**
 * One web listener on its own: bind point addresses, its server identity (or the controller's), timeouts
 * and TLS versions. Rules that compare listeners with each other live in web-rules.ts.
 */
import { hasPath } from '../shared/yaml-source.js';
import type { KeyPath } from '../shared/yaml-source.js';
import { bindingRules } from './binding-rules.js';
import { parseHostPort } from './host-port.js';
import { errorCount, readDuration, referToFile, reportError } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import { DEFAULTS } from './schema.js';
import type { IdentityFile, ListenerFile } from './schema.js';
import type { ApiBinding, BindPoint, IdentityFiles, WebListener, WebListenerOptions } from './types.js';

const TLS_NAMES = { 'TLS1.2': 'TLSv1.2', 'TLS1.3': 'TLSv1.3' } as const;

/**
 * The listener as configured (explicit bindings only; auto-binding is decided across listeners later),
 * or undefined after reporting its problems. `rootIdentity` is undefined when the root identity is wrong,
 * in which case a listener without its own identity cannot be completed but reports nothing about it.
 */
export function listenerRules(
  context: RuleContext,
  path: KeyPath,
  listener: ListenerFile,
  hasEdge: boolean,
  rootIdentity: IdentityFiles | undefined,
): WebListener | undefined {
  // Not a mapping at all: already reported by the schema check, and there is nothing to read.
  if (listener === null || typeof listener !== 'object') return undefined;
  const before = errorCount(context);
  const clean = (key: string) => context.clean([...path, key]);
  // Each part is read only when its shape is right, so a typo in one part leaves the others checked.
  const bindPoints = clean('bindPoints')
    ? listener.bindPoints.map((point, index) => bindPointRules(context, [...path, 'bindPoints', index], point))
    : [undefined];
  const bindings = clean('apis') ? bindingRules(context, [...path, 'apis'], listener.apis, hasEdge) : undefined;
  const identity = listener.identity === undefined ? rootIdentity : identityFiles(context, [...path, 'identity'], listener.identity);
  const options = optionRules(context, [...path, 'options'], listener.options ?? {});
  const parts = [bindings, identity, options, ...bindPoints];
  if (errorCount(context) > before || !clean('name') || parts.some((part) => part === undefined)) return undefined;
  return {
    name: listener.name,
    bindPoints: bindPoints as BindPoint[],
    apis: bindings?.apis as ApiBinding[],
    metrics: bindings?.metrics === true,
    identity: identity as IdentityFiles,
    options: options as WebListenerOptions,
  };
}

function bindPointRules(context: RuleContext, path: KeyPath, point: ListenerFile['bindPoints'][number]): BindPoint | undefined {
  const listenOn = parseHostPort(point.interface);
  const address = parseHostPort(point.address);
  if (!listenOn.ok) reportError(context, [...path, 'interface'], listenOn.problem);
  if (!address.ok) reportError(context, [...path, 'address'], address.problem);
  return listenOn.ok && address.ok ? { interface: listenOn.value, address: address.value } : undefined;
}

/**
 * Maps an identity block (root or listener) to absolute paths and queues each file for the readability
 * check; undefined when a key is missing or not a string (already reported), after queuing the others.
 */
export function identityFiles(context: RuleContext, path: KeyPath, identity: IdentityFile): IdentityFiles | undefined {
  if (identity === null || typeof identity !== 'object') return undefined;
  const file = (key: keyof IdentityFile): string | undefined => {
    const text = identity[key];
    return context.clean([...path, key]) && text !== undefined ? referToFile(context, [...path, key], text) : undefined;
  };
  const [cert, serverCert, key, ca] = [file('cert'), file('server_cert'), file('key'), file('ca')];
  const serverKey = identity.server_key === undefined ? undefined : file('server_key');
  if (cert === undefined || serverCert === undefined || key === undefined || ca === undefined) return undefined;
  if (identity.server_key !== undefined && serverKey === undefined) return undefined;
  return { cert, serverCert, key, ca, ...(serverKey === undefined ? {} : { serverKey }) };
}

type OptionsFile = NonNullable<ListenerFile['options']>;

/** The shortest deadline for a handshake, headers or a request: below it, ordinary clients on slow links fail. */
const CLIENT_DEADLINE_MIN = 100;

/** Timeouts, connection caps and TLS versions; each key is read only when its own shape is right. */
function optionRules(context: RuleContext, path: KeyPath, options: OptionsFile): WebListenerOptions | undefined {
  const clean = (key: keyof OptionsFile) => context.clean([...path, key]);
  const timeout = (key: 'idleTimeout' | 'readTimeout' | 'writeTimeout' | 'handshakeTimeout' | 'headerTimeout' | 'requestTimeout', min?: number) =>
    clean(key) ? readDuration(context, [...path, key], options[key] ?? DEFAULTS[key], min) : undefined;
  const idleTimeoutMs = timeout('idleTimeout');
  const readTimeoutMs = timeout('readTimeout');
  const writeTimeoutMs = timeout('writeTimeout');
  const handshakeTimeoutMs = timeout('handshakeTimeout', CLIENT_DEADLINE_MIN);
  const headerTimeoutMs = timeout('headerTimeout', CLIENT_DEADLINE_MIN);
  const requestTimeoutMs = timeout('requestTimeout', CLIENT_DEADLINE_MIN);
  if (headerTimeoutMs !== undefined && requestTimeoutMs !== undefined && headerTimeoutMs > requestTimeoutMs) {
    const at = hasPath(context.source, [...path, 'headerTimeout']) ? 'headerTimeout' : 'requestTimeout';
    reportError(context, [...path, at], `headerTimeout ${options.headerTimeout ?? DEFAULTS.headerTimeout} is longer than requestTimeout ${options.requestTimeout ?? DEFAULTS.requestTimeout}; the headers are part of the request`);
    return undefined;
  }
  if (!clean('minTLSVersion') || !clean('maxTLSVersion')) return undefined;
  const min = options.minTLSVersion ?? DEFAULTS.minTLSVersion;
  const max = options.maxTLSVersion ?? DEFAULTS.maxTLSVersion;
  // The names sort in version order, so text comparison is version comparison.
  if (min > max) {
    // Defaults are filled in by now, so ask the file which of the two the user actually wrote.
    const at = hasPath(context.source, [...path, 'minTLSVersion']) ? 'minTLSVersion' : 'maxTLSVersion';
    reportError(context, [...path, at], `minTLSVersion ${min} is above maxTLSVersion ${max}`);
    return undefined;
  }
  const maxConnections = options.maxConnections ?? DEFAULTS.maxConnections;
  const maxConnectionsPerClient = options.maxConnectionsPerClient ?? DEFAULTS.maxConnectionsPerClient;
  if (maxConnectionsPerClient > maxConnections) {
    reportError(context, [...path, 'maxConnectionsPerClient'], `maxConnectionsPerClient ${maxConnectionsPerClient} is above maxConnections ${maxConnections}`);
    return undefined;
  }
  if (
    idleTimeoutMs === undefined ||
    readTimeoutMs === undefined ||
    writeTimeoutMs === undefined ||
    handshakeTimeoutMs === undefined ||
    headerTimeoutMs === undefined ||
    requestTimeoutMs === undefined
  ) {
    return undefined;
  }
  return {
    idleTimeoutMs,
    readTimeoutMs,
    writeTimeoutMs,
    handshakeTimeoutMs,
    headerTimeoutMs,
    requestTimeoutMs,
    maxConnections,
    maxConnectionsPerClient,
    minTLSVersion: TLS_NAMES[min],
    maxTLSVersion: TLS_NAMES[max],
  };
}
