/**
 * What the controller's startup line says, so that an operator reading the log finds everything it runs with: the
 * APIs' URLs, the web console's, the OIDC issuers, the store (a file, or a PostgreSQL host and database: never its password), the config
 * file and its folder, the PKI files, the router listener and where metrics are served.
 */
import { dirname } from 'node:path';
import type { ControllerConfig } from '../config/types.js';
import type { DatabaseTarget } from '../persistence/database.js';
import { oidcIssuer } from '../oidc/issuer.js';
import { httpsOrigin } from '../services/controllers/version.js';

/** The store as the log names it: the SQLite file, or `postgres://user@host:port/db` without the password. */
export function describeStore(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return `sqlite ${target.path}`;
  try {
    const url = new URL(target.url);
    const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
    return `postgres ${user}${url.host}${url.pathname}`;
  } catch {
    // The config loader has accepted it; whatever its shape, the text itself may hold a password.
    return 'postgres (the URL could not be parsed for the log)';
  }
}

/** The fields of the startup line. */
export function startupSummary(config: ControllerConfig, logLevel: string) {
  const urlsOf = (binding: string) => config.web.flatMap((l) => (l.apis.some((a) => a.binding === binding) ? l.bindPoints.map((bp) => httpsOrigin(bp.address)) : []));
  return {
    clientApi: urlsOf('edge-client').map((u) => `${u}/edge/client/v1`),
    managementApi: urlsOf('edge-management').map((u) => `${u}/edge/management/v1`),
    console: urlsOf('edge-management').map((u) => `${u}/console/`),
    oidcIssuers: config.web.flatMap((l) => (l.apis.some((a) => a.binding === 'edge-oidc') ? l.bindPoints.map((bp) => oidcIssuer(bp)) : [])),
    metrics: config.web.flatMap((l) => (l.metrics ? l.bindPoints.map((bp) => `${httpsOrigin(bp.address)}/metrics`) : [])),
    routers: config.ctrl ? `tls:${config.ctrl.advertise.text}` : 'none (no ctrl section)',
    store: describeStore(config.db),
    config: config.source,
    home: dirname(config.source),
    pki: { cert: config.identity.cert, serverCert: config.identity.serverCert, key: config.identity.key, ca: config.identity.ca },
    logLevel,
  };
}
