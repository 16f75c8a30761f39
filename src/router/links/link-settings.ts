/**
 * What the router file's `link` section and `forwarder.latencyProbeInterval` mean for the link manager: listen and
 * advertise addresses, link groups (default `[default]`), each dialer's healthy backoff (spec: min 5s, max 5m, ×1.5),
 * and the probe interval (default 10 s; 0 turns probes off). `split` is read and has no effect: one TLS connection
 * carries a link's payloads and acknowledgements alike (decision 0069).
 */
import type { RouterHello } from '../../control-protocol/bodies.js';
import { ROUTER_DEFAULTS, type RouterFile } from '../../router-config/schema.js';
import { parseDuration } from '../../shared/durations.js';
import type { LinkSettings } from './link-manager.js';

export const DEFAULT_PROBE_INTERVAL_MS = 10_000;

const ms = (value: string | undefined, fallback: string) => parseDuration(value ?? fallback) ?? parseDuration(fallback)!;

function bindAddress(address: string): { host: string; port: number } {
  const match = /^[a-z]+:(.*):(\d+)$/.exec(address)!;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

/** The link settings, or undefined when the file has no `link` section (the router neither dials nor accepts links). */
export function linkSettings(config: RouterFile): LinkSettings | undefined {
  if (!config.link) return undefined;
  const groups = (named: string[] | undefined) => named ?? [...ROUTER_DEFAULTS.groups];
  const probe = config.forwarder?.latencyProbeInterval;
  return {
    listeners: (config.link.listeners ?? []).map((listener) => ({
      ...bindAddress(listener.bind),
      advertise: listener.advertise.startsWith('tls:') ? listener.advertise : `tls:${listener.advertise}`,
      groups: groups(listener.groups),
    })),
    dialers: (config.link.dialers ?? []).map((dialer) => {
      const backoff = { ...ROUTER_DEFAULTS.healthyDialBackoff, ...(dialer.healthyDialBackoff ?? {}) };
      return {
        groups: groups(dialer.groups),
        ...(dialer.bind ? { bind: dialer.bind } : {}),
        backoff: {
          minMs: ms(backoff.minRetryInterval, ROUTER_DEFAULTS.healthyDialBackoff.minRetryInterval),
          maxMs: ms(backoff.maxRetryInterval, ROUTER_DEFAULTS.healthyDialBackoff.maxRetryInterval),
          factor: backoff.retryBackoffFactor ?? ROUTER_DEFAULTS.healthyDialBackoff.retryBackoffFactor,
        },
      };
    }),
    probeIntervalMs: probe === undefined ? DEFAULT_PROBE_INTERVAL_MS : probe,
  };
}

/** The link listeners as the Hello lists them for the controller's Peers push. */
export function advertisedLinkListeners(settings: LinkSettings | undefined): RouterHello['listeners'] {
  return (settings?.listeners ?? []).map((listener) => ({ binding: 'link', advertise: listener.advertise, groups: listener.groups }));
}
