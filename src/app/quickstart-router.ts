/**
 * `svc quickstart`'s edge router (issue 41, must-have 11): as upstream's quickstart does, one router created,
 * enrolled and run beside the controller, so that a newcomer's first `svc edge list edge-routers` shows it online.
 * The first run creates `quickstart-router` (role attribute `public`, tunneler-enabled: its own identity, of the same
 * id and name, can host services with a host.v1 config through its `tunnel` listener), the policies that let every identity and
 * service use public routers (when no policy of that name exists), writes `router/router.yml` in the home, and
 * enrolls through the same code as `svc router enroll`; later runs start it from the files as they are. The
 * configuration file is written last, so a run interrupted before it re-enrolls the router next time.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { SYSTEM_ACTOR } from '../domain/audit.js';
import { validateRouterConfig } from '../router-config/validate.js';
import { enrollWithJwt } from '../router/enrollment/enroll.js';
import { startRouter, type RunningRouter, type VersionInfo } from '../router/run.js';
import type { RunningController } from './controller.js';

export const QUICKSTART_ROUTER = 'quickstart-router';
/** The router's edge listener and health-check ports by default, upstream's conventions. */
export const QUICKSTART_EDGE_PORT = 3022;
export const QUICKSTART_HEALTH_PORT = 8081;

export interface QuickstartRouter {
  readonly running: RunningRouter;
  readonly configPath: string;
  /** `tls:host:port` SDKs are told to dial. */
  readonly edge: string;
  /** `https://host:port/health-checks`. */
  readonly health: string;
  /** False when an existing router folder was reused as it was. */
  readonly created: boolean;
}

const bracket = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The router file quickstart writes; every path relative to the router folder. */
export function quickstartRouterFile(host: string, ctrl: string, healthPort: number, edgePort = QUICKSTART_EDGE_PORT): Record<string, unknown> {
  const sans = isIP(host) ? { dns: ['localhost'], ip: [...new Set([host, '127.0.0.1'])] } : { dns: [...new Set([host, 'localhost'])], ip: ['127.0.0.1'] };
  const health = `${bracket(host)}:${healthPort}`;
  return {
    v: 3,
    identity: { cert: 'client.cert.pem', server_cert: 'server.cert.pem', key: 'router.key.pem', ca: 'ca-bundle.pem' },
    ctrl: { endpoint: ctrl },
    csr: { sans },
    edge: {},
    listeners: [
      { binding: 'edge', address: `tls:${bracket(host)}:${edgePort}`, advertise: `${bracket(host)}:${edgePort}` },
      // Hosts the services whose Bind policies name the router's identity (`@quickstart-router`) and that carry a host.v1 config.
      { binding: 'tunnel', options: { mode: 'host' } },
    ],
    web: [{ name: 'health', bindPoints: [{ interface: health, address: health }], apis: [{ binding: 'health-checks' }, { binding: 'metrics' }] }],
  };
}

/** The enrollment JWT of the quickstart router: a new router, or a new enrollment of one an interrupted run left. */
async function enrollmentJwt(controller: RunningController): Promise<string> {
  const { edgeRouters, edgeRouterPolicies, serviceEdgeRouterPolicies } = controller.services.authorization;
  const existing = (await edgeRouters.list({ filter: `name = "${QUICKSTART_ROUTER}"` })).items[0];
  let id: string;
  if (existing) {
    await edgeRouters.reEnroll(SYSTEM_ACTOR, existing.id);
    id = existing.id;
  } else {
    id = (await edgeRouters.create(SYSTEM_ACTOR, { name: QUICKSTART_ROUTER, roleAttributes: ['public'], isTunnelerEnabled: true })).id;
  }
  // Upstream's quickstart policies: every identity may use public routers, every service is reachable through them.
  const policies = [
    { service: edgeRouterPolicies, name: 'quickstart-all-identities', body: { identityRoles: ['#all'], edgeRouterRoles: ['#public'], semantic: 'AnyOf' as const } },
    { service: serviceEdgeRouterPolicies, name: 'quickstart-all-services', body: { serviceRoles: ['#all'], edgeRouterRoles: ['#public'], semantic: 'AnyOf' as const } },
  ];
  for (const { service, name, body } of policies) {
    const found = (await service.list({ filter: `name = "${name}"` })).items.length > 0;
    if (!found) await (service.create as (actor: typeof SYSTEM_ACTOR, input: unknown) => Promise<unknown>)(SYSTEM_ACTOR, { name, ...body });
  }
  const router = await edgeRouters.get(id);
  if (!router.enrollment) throw new Error(`${QUICKSTART_ROUTER} has no pending enrollment`);
  return router.enrollment.jwt;
}

/**
 * Starts the quickstart router of `home` beside a running controller, creating and enrolling it on the first run.
 *
 * @example const router = await startQuickstartRouter(controller, { home, host: '127.0.0.1', ctrl: 'tls:127.0.0.1:6262', log, build });
 */
export async function startQuickstartRouter(
  controller: RunningController,
  options: { home: string; host: string; ctrl: string; healthPort: number; edgePort?: number; log: Logger; build: VersionInfo },
): Promise<QuickstartRouter> {
  const dir = join(options.home, 'router');
  const configPath = join(dir, 'router.yml');
  const created = !existsSync(configPath);
  if (created) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const text = stringify(quickstartRouterFile(options.host, options.ctrl, options.healthPort, options.edgePort));
    const { config, diagnostics } = validateRouterConfig(text, configPath, {});
    if (!config) throw new Error(`the quickstart router file is invalid: ${diagnostics.map((d) => d.message).join('; ')}`);
    const jwt = await enrollmentJwt(controller);
    await enrollWithJwt({ configPath, config, jwtFile: `${QUICKSTART_ROUTER} enrollment JWT`, jwt });
    writeFileSync(configPath, `# Written by svc quickstart: the edge router it runs beside the controller. Check with svc router validate.\n${text}`, { mode: 0o600 });
  }
  const running = await startRouter(configPath, { log: options.log, env: {}, build: options.build });
  return {
    running,
    configPath,
    edge: `tls:${bracket(options.host)}:${options.edgePort ?? QUICKSTART_EDGE_PORT}`,
    health: running.web?.urls[0] ? `${running.web.urls[0]}/health-checks` : 'none',
    created,
  };
}
