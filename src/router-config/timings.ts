/**
 * The router file's durations as the running router uses them: milliseconds, read once from a validated
 * configuration (validateRouterConfig's `config`, every default filled in), so no router module parses
 * duration text itself. Pure.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDuration } from '../shared/durations.js';
import { ROUTER_DEFAULTS } from './schema.js';
import type { RouterFile } from './schema.js';

export interface BackoffMs {
  readonly minRetryIntervalMs: number;
  readonly maxRetryIntervalMs: number;
  readonly retryBackoffFactor: number;
}

/** The `healthChecks` section in milliseconds: what createHealthChecks takes as its settings. */
export interface HealthCheckSettings {
  readonly ctrlPingCheck: { readonly intervalMs: number; readonly timeoutMs: number; readonly initialDelayMs: number };
  readonly linkCheck: { readonly intervalMs: number; readonly initialDelayMs: number; readonly minLinks: number };
}

export interface RouterTimings {
  readonly defaultRequestTimeoutMs: number;
  readonly heartbeats: { readonly sendIntervalMs: number; readonly checkIntervalMs: number; readonly closeUnresponsiveTimeoutMs: number };
  /** Dial, TLS handshake and hello of one control channel attempt. */
  readonly connectTimeoutMs: number;
  readonly reconnect: BackoffMs;
  readonly healthChecks: HealthCheckSettings;
}

/**
 * Every duration of a validated router file in milliseconds.
 *
 * @example
 * const { config } = validateRouterConfig(text, file);
 * if (config) setInterval(sendHeartbeat, routerTimings(config).heartbeats.sendIntervalMs);
 */
export function routerTimings(config: RouterFile): RouterTimings {
  const D = ROUTER_DEFAULTS;
  const heartbeats = config.ctrl.heartbeats ?? {};
  const options = config.ctrl.options ?? {};
  const reconnect = options.reconnect ?? {};
  const ping = config.healthChecks?.ctrlPingCheck ?? {};
  const link = config.healthChecks?.linkCheck ?? {};
  return {
    defaultRequestTimeoutMs: ms(config.ctrl.defaultRequestTimeout, D.defaultRequestTimeout),
    heartbeats: {
      sendIntervalMs: ms(heartbeats.sendInterval, D.heartbeats.sendInterval),
      checkIntervalMs: ms(heartbeats.checkInterval, D.heartbeats.checkInterval),
      closeUnresponsiveTimeoutMs: ms(heartbeats.closeUnresponsiveTimeout, D.heartbeats.closeUnresponsiveTimeout),
    },
    connectTimeoutMs: ms(options.connectTimeout, D.ctrlOptions.connectTimeout),
    reconnect: {
      minRetryIntervalMs: ms(reconnect.minRetryInterval, D.ctrlOptions.reconnect.minRetryInterval),
      maxRetryIntervalMs: ms(reconnect.maxRetryInterval, D.ctrlOptions.reconnect.maxRetryInterval),
      retryBackoffFactor: reconnect.retryBackoffFactor ?? D.ctrlOptions.reconnect.retryBackoffFactor,
    },
    healthChecks: {
      ctrlPingCheck: {
        intervalMs: ms(ping.interval, D.ctrlPingCheck.interval),
        timeoutMs: ms(ping.timeout, D.ctrlPingCheck.timeout),
        initialDelayMs: ms(ping.initialDelay, D.ctrlPingCheck.initialDelay),
      },
      linkCheck: {
        intervalMs: ms(link.interval, D.linkCheck.interval),
        initialDelayMs: ms(link.initialDelay, D.linkCheck.initialDelay),
        minLinks: link.minLinks ?? D.linkCheck.minLinks,
      },
    },
  };
}

/**
 * Where the endpoints file is: `ctrl.endpointsFile` (default endpoints.yml) from the config file's folder.
 *
 * @example endpointsFilePath(config, '/etc/svc/router.yml') // '/etc/svc/endpoints.yml'
 */
export function endpointsFilePath(config: RouterFile, configFile: string): string {
  const named = config.ctrl.endpointsFile ?? ROUTER_DEFAULTS.endpointsFile;
  return isAbsolute(named) ? named : resolve(dirname(resolve(configFile)), named);
}

/** A validated file holds only parseable durations; a value that is not one is a caller's bug, said loudly. */
function ms(text: string | undefined, fallback: string): number {
  const value = parseDuration(text ?? fallback);
  if (value === undefined) throw new Error(`routerTimings: '${text}' is not a duration; pass a validated router configuration`);
  return value;
}
