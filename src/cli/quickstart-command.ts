/**
 * `svc quickstart [--home DIR] [--host HOST] [--port PORT] [--ctrl-port PORT] [--router-health-port PORT] [--router-edge-port PORT] [--no-router]
 * [--admin-user NAME] [--admin-password PW]`: a controller on the embedded store in one command, listening for routers
 * on the control-plane port, with one edge router beside it (quickstart-router.ts).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_CTRL_PORT, prepareQuickstartHome } from '../app/quickstart.js';
import { CTRL_PROTOCOL } from '../config/ctrl-rules.js';
import { adminCredentialsProblem } from '../services/identities/default-admin.js';
import { newPassword } from '../shared/random.js';
import { defaultAdminUsername, loadAndReport, runUntilSignal } from './controller-commands.js';
import { oidcIssuer } from '../oidc/issuer.js';
import type { Output } from './output.js';
import { noteRunning, runningOn } from './running-marker.js';
import type { Logger } from 'pino';
import type { RunningController } from '../app/controller.js';
import { readBuildInfo } from '../app/build-info.js';
import { QUICKSTART_EDGE_PORT, QUICKSTART_HEALTH_PORT, QUICKSTART_ROUTER, startQuickstartRouter, type QuickstartRouter } from '../app/quickstart-router.js';

export interface QuickstartArgs {
  home?: string;
  host?: string;
  port?: string;
  ctrlPort?: string;
  adminUser?: string;
  adminPassword?: string;
  /** False: no edge router beside the controller (`--no-router`). */
  router?: boolean;
  /** The quickstart router's health-check port (default 8081). */
  routerHealthPort?: string;
  routerEdgePort?: string;
}

export function defaultQuickstartHome(): string {
  return process.env.SVC_HOME ? resolve(process.env.SVC_HOME) : join(homedir(), '.svc', 'quickstart');
}

export async function quickstartCommand(args: QuickstartArgs, out: Output): Promise<number> {
  const home = resolve(args.home ?? defaultQuickstartHome());
  const host = args.host ?? '127.0.0.1';
  const port = portArgument('--port', args.port, 1280, out);
  const ctrlPort = portArgument('--ctrl-port', args.ctrlPort, DEFAULT_CTRL_PORT, out);
  const healthPort = portArgument('--router-health-port', args.routerHealthPort, QUICKSTART_HEALTH_PORT, out);
  const edgePort = portArgument('--router-edge-port', args.routerEdgePort, QUICKSTART_EDGE_PORT, out);
  if (port === undefined || ctrlPort === undefined || healthPort === undefined || edgePort === undefined) return 2;
  if (ctrlPort === port) {
    out.error(`--ctrl-port: routers need a port of their own; ${ctrlPort} is the API's --port`);
    return 2;
  }
  const adminUser = args.adminUser ?? 'admin';
  // An empty SVC_ADMIN_PASSWORD counts as unset, so `SVC_ADMIN_PASSWORD= svc quickstart` still generates one.
  const givenPassword = args.adminPassword ?? (process.env.SVC_ADMIN_PASSWORD || undefined);
  const adminPassword = givenPassword ?? newPassword();
  const problem = adminCredentialsProblem({ username: adminUser, password: adminPassword });
  if (problem) {
    out.error(problem);
    return 2;
  }

  const running = runningOn(home);
  if (running) {
    out.error(`a controller is already running on ${home}: pid ${running.pid}, ${running.urls.join(', ') || 'URL unknown'}; stop it first (Ctrl+C where it runs, or kill ${running.pid}), or give another --home`);
    return 1;
  }
  const started = process.hrtime.bigint();
  const prepared = await prepareQuickstartHome({ home, host, port, ctrlPort, adminUser, adminPassword, progress: (step) => out.print(step) });
  if (!prepared.created) {
    out.print(`reusing ${home} as it is (its config.yml decides addresses and admin; --host/--port/--ctrl-port/--admin-* apply to a new home only)`);
  }
  const config = await loadAndReport(prepared.configFile, out);
  if (!config) return 1;
  out.print('starting the controller…');
  let router: QuickstartRouter | undefined;
  const withRouter = args.router !== false && config.ctrl !== undefined;
  const companion = async (controller: RunningController, logger: Logger) => {
    const forget = noteRunning(home, controller.urls.map((u) => u.publicUrl));
    if (!withRouter || !config.ctrl) return async () => forget();
    out.print(prepared.created ? `creating, enrolling and starting ${QUICKSTART_ROUTER}…` : `starting ${QUICKSTART_ROUTER}…`);
    router = await startQuickstartRouter(controller, { home, host, healthPort, edgePort, ctrl: `tls:${config.ctrl.advertise.text}`, log: logger, build: readBuildInfo() });
    const started = router;
    return async () => {
      forget();
      await started.running.stop();
    };
  };
  return runUntilSignal(config, out, async (urls, controller) => {
    const issuers = config.web.flatMap((l) => (l.apis.some((a) => a.binding === 'edge-oidc') ? l.bindPoints.map((bp) => oidcIssuer(bp)) : []));
    const reusedAdmin = prepared.created ? undefined : await defaultAdminUsername(controller);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    out.print(`svc controller is running (ready in ${ms.toFixed(0)} ms)`);
    out.print(`  API:        ${urls.map((u) => `${u}/edge/client/v1`).join(', ')}`);
    out.print(`  management: ${urls.map((u) => `${u}/edge/management/v1`).join(', ')}`);
    out.print(`  console:    ${urls.map((u) => `${u}/console/`).join(', ')} (sign in as the admin user)`);
    if (issuers.length > 0) {
      out.print(`  OIDC:       issuer ${issuers.join(', ')}`);
      out.print(`              discovery ${issuers.map((i) => `${i}/.well-known/openid-configuration`).join(', ')}`);
    }
    if (config.ctrl) out.print(`  routers:    connect to ${CTRL_PROTOCOL}:${config.ctrl.advertise.text}`);
    if (router) {
      out.print(`  router:     ${QUICKSTART_ROUTER} (${router.configPath}), edge ${router.edge}, health ${router.health}`);
      out.print(`              svc edge list edge-routers shows it online once it connected (svc router run --config ${router.configPath} runs it alone)`);
    }
    out.print(`  CA bundle:  ${prepared.caBundle}`);
    out.print(`  config:     ${prepared.configFile}`);
    if (prepared.created) {
      out.print(`  admin user: ${adminUser}`);
      if (givenPassword === undefined) out.print(`  admin password (shown once, keep it): ${adminPassword}`);
    } else if (reusedAdmin) {
      out.print(`  admin user: ${reusedAdmin} (password as set when this home was created)`);
    }
    out.print('Press Ctrl+C to stop.');
  }, companion);
}

/** A port given on the command line, its default when absent, or undefined after saying what is wrong. */
function portArgument(flag: string, text: string | undefined, fallback: number, out: Output): number | undefined {
  const port = Number(text ?? String(fallback));
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return port;
  out.error(`${flag}: expected an integer from 1 to 65535, got '${text}'`);
  return undefined;
}
