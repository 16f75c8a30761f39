/**
 * The version document of the informational operations: build facts, capabilities, and for every API binding
 * the base URLs where it is served (one per bind point), as in the reference `GET /version`.
 */
import type { ApiBindingName, ControllerConfig } from '../../config/types.js';

export const API_PATHS: Record<ApiBindingName, string> = {
  'edge-client': '/edge/client/v1',
  'edge-management': '/edge/management/v1',
  'edge-oidc': '/oidc',
};

/** Every capability this controller knows (the enumerated-capabilities list), enabled or not. */
export const KNOWN_CAPABILITIES = ['OIDC_AUTH', 'HA_CONTROLLER'] as const;

export interface BuildInfo {
  version: string;
  revision: string;
  buildDate: string;
}

export interface ApiVersionEntry {
  path: string;
  version: string;
  apiBaseUrls: string[];
}

export interface VersionInfo extends BuildInfo {
  runtimeVersion: string;
  capabilities: string[];
  apiVersions: Record<string, { v1: ApiVersionEntry }>;
}

/** `https://<address>` of a bind point address, with IPv6 hosts bracketed. */
export function httpsOrigin(address: { host: string; port: number }): string {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `https://${host}:${address.port}`;
}

/** Computes the version document once per start; it does not change while the controller runs. */
export function buildVersionInfo(config: ControllerConfig, build: BuildInfo): VersionInfo {
  const apiVersions: Record<string, { v1: ApiVersionEntry }> = {};
  for (const listener of config.web) {
    for (const api of listener.apis) {
      const path = API_PATHS[api.binding];
      const entry = (apiVersions[api.binding] ??= { v1: { path, version: '1', apiBaseUrls: [] } });
      for (const bindPoint of listener.bindPoints) {
        const url = `${httpsOrigin(bindPoint.address)}${path}`;
        if (!entry.v1.apiBaseUrls.includes(url)) entry.v1.apiBaseUrls.push(url);
      }
    }
  }
  // The reference keeps `edge` as a legacy alias of `edge-client`; older SDKs read it.
  if (apiVersions['edge-client']) apiVersions.edge = apiVersions['edge-client'];
  const capabilities = apiVersions['edge-oidc'] ? ['OIDC_AUTH'] : [];
  return { ...build, runtimeVersion: process.version, capabilities, apiVersions };
}
