/**
 * What the router file's `binding: tunnel` listener asks of the router (spec "Router configuration file",
 * `listeners`; decision 0071): host mode (the default) hosts the services the router's identity may Bind; proxy mode
 * does that too and listens for its `services`; tproxy mode is refused at start, because intercepting traffic
 * transparently needs root and iptables rules this router does not manage. The validator accepts tproxy (the file
 * format has it); only this router refuses to run it.
 */
import { TUNNEL_BINDING, type RouterFile, type TunnelOptionsFile } from '../../router-config/schema.js';
import { RouterSetupError } from '../errors.js';
import type { ProxyService } from './proxy-listeners.js';

/** Where proxy mode listens unless the listener's `address` (or `bind`) names a host: this machine only. */
export const DEFAULT_PROXY_HOST = '127.0.0.1';

export interface TunnelSettings {
  mode: 'host' | 'proxy';
  /** Proxy mode's listeners (empty in host mode). */
  proxy: { host: string; services: ProxyService[] };
}

/** The tunnel's settings, undefined without a tunnel listener; RouterSetupError for tproxy. */
export function tunnelSettings(config: RouterFile): TunnelSettings | undefined {
  const index = (config.listeners ?? []).findIndex((l) => l.binding === TUNNEL_BINDING);
  const listener = config.listeners?.[index];
  if (!listener) return undefined;
  const options = (listener.options ?? {}) as TunnelOptionsFile;
  const mode = options.mode ?? 'host';
  if (mode === 'tproxy') {
    throw new RouterSetupError(
      `listeners[${index}].options.mode: tproxy is not supported by this router (it needs root and iptables rules); use mode host to host services or mode proxy with services: ["<service>:<port>"] to reach them`,
    );
  }
  const address = listener.address ?? listener.bind;
  const host = address ? /^[a-z]+:(.*):\d+$/.exec(address)?.[1]?.replace(/^\[(.*)\]$/, '$1') : undefined;
  const services = mode === 'proxy'
    ? (options.services ?? []).map((entry) => {
        const colon = entry.lastIndexOf(':');
        return { name: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
      })
    : [];
  return { mode, proxy: { host: host || DEFAULT_PROXY_HOST, services } };
}
