/**
 * `svc router run`: the router process (issue 41). From its configuration file: validate it (errors refuse to start,
 * warnings are logged), load the enrolled identity (not enrolled or unreadable: one sentence, no start), then keep a
 * control channel to a controller, renew the certificates before they expire, and serve the health checks and
 * metrics the file's `web` section binds. One log line per state change; `stop()` ends everything cleanly.
 */
import { hostname as osHostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { ControlType } from '../control-protocol/catalogue.js';
import type { RouterHello } from '../control-protocol/bodies.js';
import { readRouterConfig } from './config-file.js';
import { EDGE_BINDING, type EdgeOptionsFile, type RouterFile } from '../router-config/schema.js';
import { formatDiagnostic, hasErrors } from '../shared/diagnostics.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { startControlClient, type ControlClient } from './control/control-client.js';
import { readEndpointsFile, writeEndpointsFile } from './endpoints-file.js';
import { loadRouterIdentity, type RouterIdentity } from './enrollment/identity-files.js';
import { createRenewal, type Renewal } from './enrollment/renewal.js';
import { RouterSetupError } from './errors.js';
import { createHealthChecks, type HealthChecks } from './health/health-checks.js';
import { createRouterMetrics, type RouterMetrics } from './metrics/router-metrics.js';
import { endpointsFilePath, routerTimings } from '../router-config/timings.js';
import { createRevocationState, type RevocationState } from './state/revocations.js';
import { createTrustStore, type TrustStore } from './state/trust.js';
import { startRouterWeb, type RouterWeb } from './web/router-web.js';
import { controlTypeName } from '../control-protocol/catalogue.js';
import { parseDuration } from '../shared/durations.js';
import { metricsSnapshot } from './metrics/report.js';
import { createEdgeMetrics } from './metrics/edge-metrics.js';
import { createFabricMetrics } from './metrics/fabric-metrics.js';
import { startEdgeListener, type EdgeListener, type EdgeListenerLimits } from './edge/edge-listener.js';
import { createFabric, type Fabric } from './fabric/fabric.js';
import { startLinks, type LinkManager } from './links/link-manager.js';
import { advertisedLinkListeners, linkSettings } from './links/link-settings.js';
import { createHostEgress, type HostEgress } from './tunnel/host-egress.js';
import { createHostedServices, type HostedServices } from './tunnel/hosted-services.js';
import { startProxyListeners, type ProxyListeners } from './tunnel/proxy-listeners.js';
import { tunnelSettings } from './tunnel/tunnel-settings.js';
import { ReconcileAnswerSchema } from '../control-protocol/bodies.js';

export interface VersionInfo {
  version: string;
  revision: string;
  buildDate: string;
}

export interface RunningRouter {
  readonly control: ControlClient;
  readonly trust: TrustStore;
  readonly revocations: RevocationState;
  readonly health: HealthChecks;
  readonly metrics: RouterMetrics;
  readonly web: RouterWeb | undefined;
  /** The SDK edge listener, when the file has a `binding: edge` listener and an `edge` section. */
  readonly edge: EdgeListener | undefined;
  /** Links to other routers, when the file has a `link` section. */
  readonly links: LinkManager | undefined;
  /** The tunnel, when the file has a `binding: tunnel` listener: the services it hosts, and proxy mode's listeners. */
  readonly tunnel: { hosted: HostedServices; egress: HostEgress; proxy: ProxyListeners | undefined } | undefined;
  readonly fabric: Fabric;
  /** The endpoints file in use. */
  readonly endpointsFile: string;
  /** Renews the certificates now (what `svc router renew` does, from inside the running router). */
  renewNow(): Promise<void>;
  stop(): Promise<void>;
}

/** How long revocations are remembered: longer than any token a controller signs lives. */
const REVOCATION_KEEP_MS = 25 * 3_600_000;
const REVOCATION_CAPACITY = 200_000;

/** Reads and validates the file; RouterSetupError with every error, one per line, when it has any. */
export async function loadRouterFile(configPath: string, env: Readonly<Record<string, string | undefined>>, log: Logger): Promise<RouterFile> {
  const { config, diagnostics } = await readRouterConfig(configPath, env);
  for (const diagnostic of diagnostics.filter((d) => d.severity === 'warning')) log.warn(formatDiagnostic(diagnostic, { style: 'severity-first' }));
  if (!config || hasErrors(diagnostics)) {
    const errors = diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, { style: 'severity-first' }));
    throw new RouterSetupError(`${configPath} has ${errors.length} error${errors.length === 1 ? '' : 's'}; the router does not start:\n${errors.join('\n')}`);
  }
  return config;
}

/**
 * Where the edge listener binds and its limits: the first `binding: edge` listener's `address` (or `bind`),
 * `tls:host:port`, and its options (decision 0066). Undefined without an `edge` section or such a listener.
 */
export function edgeListenerSettings(config: RouterFile): { host: string; port: number; limits: Partial<EdgeListenerLimits> } | undefined {
  if (config.edge === undefined) return undefined;
  const listener = (config.listeners ?? []).find((l) => l.binding === EDGE_BINDING);
  const address = listener?.address ?? listener?.bind;
  if (!listener || !address) return undefined;
  const match = /^[a-z]+:(.*):(\d+)$/.exec(address);
  if (!match) return undefined;
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  const options = (listener.options ?? {}) as EdgeOptionsFile;
  const limits: Partial<EdgeListenerLimits> = {
    ...(options.maxChannels !== undefined ? { maxChannels: options.maxChannels } : {}),
    ...(options.maxConnections !== undefined ? { maxConns: options.maxConnections } : {}),
    ...(options.maxConnectionsPerChannel !== undefined ? { maxConnsPerChannel: options.maxConnectionsPerChannel } : {}),
    ...(options.maxBindingsPerChannel !== undefined ? { maxBindingsPerChannel: options.maxBindingsPerChannel } : {}),
    ...(options.connectTimeoutMs !== undefined ? { helloTimeoutMs: options.connectTimeoutMs } : {}),
    ...(options.handshakeTimeout !== undefined ? { helloTimeoutMs: parseDuration(options.handshakeTimeout) ?? 10_000 } : {}),
    ...(options.dialTimeout !== undefined ? { dialTimeoutMs: parseDuration(options.dialTimeout) ?? 5_000 } : {}),
  };
  return { host, port: Number(match[2]), limits };
}

/** The edge listeners the router advertises, as `tls:host:port`, for the controller's `supportedProtocols`. */
export function advertisedListeners(config: RouterFile): RouterHello['listeners'] {
  if (config.edge === undefined) return [];
  return (config.listeners ?? [])
    .filter((listener) => listener.binding === 'edge' && listener.advertise !== undefined)
    .map((listener) => {
      const address = listener.address ?? listener.bind ?? 'tls:';
      const protocol = address.slice(0, address.indexOf(':')) || 'tls';
      return { binding: 'edge', advertise: `${protocol}:${listener.advertise}` };
    });
}

export async function startRouter(
  configPath: string,
  options: { log: Logger; env: Readonly<Record<string, string | undefined>>; build: VersionInfo; clock?: Clock; random?: () => number },
): Promise<RunningRouter> {
  const { log } = options;
  const clock = options.clock ?? systemClock;
  const config = await loadRouterFile(configPath, options.env, log);
  const baseDir = dirname(resolve(configPath));
  const timings = routerTimings(config);
  let identity: RouterIdentity = await loadRouterIdentity(config.identity, baseDir, { configFile: configPath, clock });
  const endpointsFile = endpointsFilePath(config, configPath);
  const fromFile = await readEndpointsFile(endpointsFile).catch((error) => {
    log.warn({ err: error }, `${endpointsFile} cannot be read; using the controller addresses of ${configPath}`);
    return undefined;
  });
  const configured = config.ctrl.endpoint ? [config.ctrl.endpoint] : [...(config.ctrl.endpoints ?? [])];
  let known = { ctrl: fromFile?.ctrl.length ? fromFile.ctrl : configured, api: fromFile?.api };

  const metrics = createRouterMetrics();
  const trust = createTrustStore();
  const revocations = createRevocationState({ keepMs: REVOCATION_KEEP_MS, capacity: REVOCATION_CAPACITY });
  const linksAt = linkSettings(config);
  // Read before anything starts: tproxy mode refuses to start with a sentence.
  const tunnelAt = tunnelSettings(config);
  const hello: RouterHello = {
    protocol: 1,
    versionInfo: { ...options.build, os: process.platform, arch: process.arch },
    hostname: osHostname(),
    listeners: [...advertisedListeners(config), ...advertisedLinkListeners(linksAt)],
    capabilities: [...(config.edge === undefined ? [] : ['edge']), ...(linksAt ? ['link'] : []), ...(tunnelAt ? ['tunnel'] : [])],
  };

  let web: RouterWeb | undefined;
  let edge: EdgeListener | undefined;
  let links: LinkManager | undefined;
  let hosted: HostedServices | undefined;
  // Created before the control client and given it once it exists: the fabric asks the controller for every dial.
  const late: { fabric?: Fabric } = {};
  /**
   * After each (re)connect: the controller keeps the terminators this router still hosts (SDK bindings and the
   * tunnel's) and deletes its others; only then does the tunnel bring its own in line, so that none it creates is
   * deleted by a keep list made before it existed.
   */
  async function reconcileTerminators(): Promise<void> {
    const tunnelIds = hosted?.terminatorIds() ?? [];
    if (edge) await edge.hosting.reconcile(tunnelIds);
    else if (hosted) {
      await control
        .request(ControlType.ReconcileTerminators, { keep: tunnelIds }, ReconcileAnswerSchema, 10_000)
        .catch((error) => log.warn({ err: error }, `the router's terminators could not be reconciled: ${(error as Error).message}`));
    }
    hosted?.connected();
  }

  const control = startControlClient({
    endpoints: () => known.ctrl,
    // Read from the files before every attempt: `svc router renew` run beside this process replaces them, and the
    // controller accepts only the current certificate on a new connection.
    tls: async () => {
      const onDisk = await loadRouterIdentity(config.identity, baseDir, { configFile: configPath, clock }).catch(() => identity);
      if (onDisk.certPem !== identity.certPem) web?.updateTls({ key: onDisk.keyPem, cert: onDisk.serverCertPem });
      identity = onDisk;
      return { key: identity.keyPem, cert: identity.certPem, ca: identity.caPem };
    },
    hello,
    connectTimeoutMs: timings.connectTimeoutMs,
    reconnect: { minMs: timings.reconnect.minRetryIntervalMs, maxMs: timings.reconnect.maxRetryIntervalMs, factor: timings.reconnect.retryBackoffFactor },
    heartbeat: { sendIntervalMs: timings.heartbeats.sendIntervalMs, checkIntervalMs: timings.heartbeats.checkIntervalMs, closeUnresponsiveMs: timings.heartbeats.closeUnresponsiveTimeoutMs },
    log,
    random: options.random,
    handlers: {
      connected(answer, endpoint) {
        metrics.controlConnected(true);
        log.info({ controller: answer.controllerName, endpoint, routerId: answer.routerId }, `connected to controller ${answer.controllerName} at ${endpoint} as router ${answer.routerName}`);
        void reconcileTerminators();
        edge?.controllerConnected();
        links?.controllerConnected();
        void late.fabric?.reconcile();
      },
      disconnected(reason) {
        metrics.controlConnected(false);
        metrics.reconnect();
        log.warn({ reason }, `disconnected from the controller: ${reason}`);
      },
      refused(code, sentence) {
        log.error({ code }, `the controller refused this router: ${sentence}`);
      },
      trust(state) {
        trust.replace(state, clock.now().getTime());
        log.debug({ keys: state.jwks.keys.length, cas: state.cas.length }, 'trust state received');
      },
      revocations(items) {
        revocations.apply(items, clock.now().getTime());
        hosted?.revocations(items);
        log.debug({ count: items.length }, 'revocations received');
      },
      peers(value) {
        links?.peers(value);
      },
      endpoints(value) {
        const changed = JSON.stringify(value.ctrl) !== JSON.stringify(known.ctrl) || value.api !== known.api;
        known = { ctrl: value.ctrl, api: value.api };
        if (!changed) return;
        writeEndpointsFile(endpointsFile, { ctrl: value.ctrl, api: value.api })
          .then(() => log.info({ endpoints: value.ctrl }, `the controllers known are now ${value.ctrl.join(', ')} (${endpointsFile})`))
          .catch((error) => log.warn({ err: error }, `${endpointsFile} could not be written: ${(error as Error).message}`));
      },
      message(direction, contentType) {
        metrics.controlMessage(direction, controlTypeName(contentType));
      },
    },
  });

  const health = createHealthChecks({
    clock,
    settings: timings.healthChecks,
    controllerPing: () => control.ping(timings.healthChecks.ctrlPingCheck.timeoutMs),
    linkCount: () => links?.count ?? 0,
    onChange(check, healthy, reason) {
      const line = `health check ${check} is now ${healthy ? 'healthy' : `unhealthy: ${reason ?? ''}`}`;
      if (healthy) log.info({ check }, line);
      else log.warn({ check, reason }, line);
      control.notify(ControlType.RouterEvents, { events: [{ type: 'health-changed', at: clock.now().getTime(), detail: line }] });
    },
  });
  health.start();
  const latencyTimer = setInterval(() => {
    if (control.latencyMs !== undefined) metrics.controlLatency(control.latencyMs / 1000);
  }, timings.heartbeats.sendIntervalMs);
  latencyTimer.unref();
  // Router metrics upstream, every `metrics.reportInterval` (spec default 1m).
  const reportTimer = setInterval(() => {
    if (!control.connected) return;
    metricsSnapshot(metrics.registry)
      .then((values) => control.notify(ControlType.RouterMetrics, { at: clock.now().getTime(), values }))
      .catch((error) => log.debug({ err: error }, 'the metrics report could not be made'));
  }, parseDuration(config.metrics?.reportInterval ?? '1m') ?? 60_000);
  reportTimer.unref();

  const event = (type: 'certificate-renewed' | 'renewal-failed', detail: string) =>
    control.notify(ControlType.RouterEvents, { events: [{ type, at: clock.now().getTime(), detail: detail.slice(0, 900) }] });
  const renewal: Renewal = createRenewal({
    configPath,
    config,
    endpointsFile,
    clock,
    log: { info: (line) => log.info(line), warn: (line) => log.warn(line), error: (line) => log.error(line) },
    onRenewed(renewed) {
      identity = renewed;
      metrics.renewal('success');
      // New connections (the control channel's next one, the web listeners') use the new certificates; open ones stay.
      web?.updateTls({ key: renewed.keyPem, cert: renewed.serverCertPem });
      edge?.updateTls({ key: renewed.keyPem, cert: renewed.serverCertPem });
      links?.updateTls({ key: renewed.keyPem, cert: renewed.certPem, serverCert: renewed.serverCertPem, ca: renewed.caPem });
      event('certificate-renewed', `certificates renewed; they now expire at ${renewed.notAfter.toISOString()}`);
    },
    onGaveUp(error) {
      metrics.renewal('failure');
      event('renewal-failed', error.message);
    },
  });
  try {
    await renewal.start();
  } catch (error) {
    await control.stop();
    health.stop();
    clearInterval(latencyTimer);
    clearInterval(reportTimer);
    throw error;
  }

  try {
    web = config.web && config.web.length > 0 ? await startRouterWeb(config.web, { tls: { key: identity.keyPem, cert: identity.serverCertPem }, health, metrics, log }) : undefined;
  } catch (error) {
    renewal.stop();
    await control.stop();
    health.stop();
    clearInterval(latencyTimer);
    clearInterval(reportTimer);
    throw new RouterSetupError(`the router's web listener could not start: ${(error as Error).message}`);
  }

  const edgeMetrics = createEdgeMetrics(metrics.registry);
  const fabricMetrics = createFabricMetrics(metrics.registry);
  const circuits = createFabric({
    control,
    links: { get: (id) => links?.get(id) },
    log: log.child({ component: 'fabric' }),
    relayed: (bytes) => edgeMetrics.relayed(bytes),
    circuitsChanged: (open) => fabricMetrics.circuits(open),
  });
  late.fabric = circuits;
  const stopEarly = async () => {
    circuits.stop();
    renewal.stop();
    await edge?.close();
    await control.stop();
    await web?.close();
    health.stop();
    clearInterval(latencyTimer);
    clearInterval(reportTimer);
  };
  try {
    links = linksAt
      ? await startLinks({
          settings: linksAt,
          tls: { key: identity.keyPem, cert: identity.certPem, serverCert: identity.serverCertPem, ca: identity.caPem },
          control,
          fabric: circuits,
          log: log.child({ component: 'links' }),
          metrics: fabricMetrics,
          ...(options.random ? { random: options.random } : {}),
        })
      : undefined;
  } catch (error) {
    await stopEarly();
    throw new RouterSetupError(`the router's link listener could not start: ${(error as Error).message}`);
  }

  let tunnel: RunningRouter['tunnel'];
  if (tunnelAt) {
    const hostedServices = createHostedServices({ control, log: log.child({ component: 'tunnel' }) });
    const egress = createHostEgress({ targetFor: (id) => hostedServices.targetFor(id), control, log: log.child({ component: 'tunnel' }) });
    circuits.registerEgress('tunnel', egress);
    let proxy: ProxyListeners | undefined;
    try {
      proxy =
        tunnelAt.mode === 'proxy'
          ? await startProxyListeners({
              ...tunnelAt.proxy,
              identity: () => (control.controller ? { id: control.controller.routerId, name: control.controller.routerName } : undefined),
              dial: (request, end) => circuits.dial(request, end),
              log: log.child({ component: 'tunnel' }),
            })
          : undefined;
    } catch (error) {
      await hostedServices.stop();
      await egress.stop();
      await links?.close();
      await stopEarly();
      throw error;
    }
    hosted = hostedServices;
    tunnel = { hosted: hostedServices, egress, proxy };
  }

  const edgeAt = edgeListenerSettings(config);
  try {
    edge = edgeAt
      ? await startEdgeListener({
          host: edgeAt.host,
          port: edgeAt.port,
          limits: edgeAt.limits,
          tls: { key: identity.keyPem, cert: identity.serverCertPem },
          trust,
          revocations,
          control,
          metrics: edgeMetrics,
          fabric: circuits,
          log: log.child({ component: 'edge' }),
          version: options.build.version,
          routerId: () => control.controller?.routerId,
          clock: () => clock.now().getTime(),
        })
      : undefined;
    // Connected before the listeners existed: what they host is reconciled now.
    if (control.connected) void reconcileTerminators();
  } catch (error) {
    await tunnel?.proxy?.stop();
    await tunnel?.hosted.stop();
    await tunnel?.egress.stop();
    await links?.close();
    await stopEarly();
    throw new RouterSetupError(`the router's edge listener could not start on ${edgeAt?.host}:${edgeAt?.port}: ${(error as Error).message}`);
  }

  return {
    control,
    trust,
    revocations,
    health,
    metrics,
    web,
    edge,
    links,
    tunnel,
    fabric: circuits,
    endpointsFile,
    renewNow: async () => void (await renewal.renewNow()),
    async stop() {
      clearInterval(latencyTimer);
      clearInterval(reportTimer);
      health.stop();
      renewal.stop();
      circuits.stop();
      await tunnel?.proxy?.stop();
      await tunnel?.hosted.stop();
      await tunnel?.egress.stop();
      await edge?.close();
      await links?.close();
      await control.stop();
      await web?.close();
      log.info('router stopped');
    },
  };
}
