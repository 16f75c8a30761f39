/**
 * What the controller counts and times for Prometheus (issue 17, point 5; decision 0033): one prom-client Registry
 * per controller, never prom-client's global default, so several controllers in one process (the tests) keep their
 * figures apart. The rest of the code records through the small typed interface below and never sees prom-client.
 *
 * Every label takes values from a bounded set: route templates rather than URLs, the enabled login methods, a fixed
 * list of outcomes. A label fed from request input would let any client grow the series without end.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../shared/clock.js';
import { plainCounter, plainHistogram, type CounterSeries, type HistogramSeries } from './plain-series.js';
import { processRegistry } from '../../shared/process-metrics.js';

/** How a primary login ended. */
export type AuthenticationOutcome = 'success' | 'failure';

/** What a lockout locked: password logins of one authenticator, or an identity's TOTP checks. */
export type LockoutKind = 'password' | 'totp';

/** One answered HTTP request. `route` is a route template (`/edge/client/v1/services/:id`) or `unmatched`, never a URL. */
export interface HttpRequestLabels {
  binding: string;
  method: string;
  route: string;
  status: number;
}

export interface ControllerMetrics {
  /** An answered request and how long it took, in seconds. */
  httpRequest(labels: HttpRequestLabels, durationSeconds: number): void;
  /** A primary login (legacy or OIDC) by `method` (`password`, `cert`, `ext-jwt`) ended with `outcome`. */
  authentication(method: string, outcome: AuthenticationOutcome): void;
  /** A lockout started. */
  lockout(kind: LockoutKind): void;
  /** The authentication cache answered a lookup of `kind` (e.g. `session`, `identity`) from memory. */
  authCacheHit(kind: string): void;
  /** The authentication cache had no entry of `kind` and read the store. */
  authCacheMiss(kind: string): void;
  /** How far, in seconds, the change feed's latest applied change is behind its commit at another controller. */
  setChangeFeedLag(seconds: number): void;
  /** How many edge routers have their control channel up at this controller now (router presence). */
  setRoutersOnline(count: number): void;
  /** One store query and how long it took, in milliseconds (Kysely's log event; see persistence/database.ts). */
  storeQuery(durationMs: number): void;
  /**
   * Where the live API session gauge counts from; called once by the composition root, since the sessions domain is
   * built after the store opens (and the store already reports its queries here). Without it the gauge reads 0.
   */
  countLiveSessionsWith(count: () => Promise<number>): void;
  /** A control-channel message to or from a router, by direction and the control protocol's type name (issue 41). */
  controlMessage(direction: 'in' | 'out', type: string): void;
  /** A router control channel's heartbeat round trip, in seconds. */
  heartbeatLatency(seconds: number): void;
  /** A router's metrics report arrived (counted; its values are not turned into series per router). */
  routerReport(routerId: string, values: Record<string, number>): void;
  /** The Prometheus text exposition (format 0.0.4) of this controller and of the process it runs in. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

export interface ControllerMetricsOptions {
  /** The store's dialect, the `dialect` label of the query histogram. */
  dialect: 'sqlite' | 'postgres';
  clock: Clock;
  /**
   * How long a live-session count is reused, so a storm of scrapes costs the store one count per interval
   * (default 2 s); scrapes arriving while a count runs share it.
   */
  liveSessionsMaxAgeMs?: number;
}

const DEFAULT_LIVE_SESSIONS_MAX_AGE_MS = 2_000;
/** Seconds; from a quick cached answer to a slow login or a stalled store. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; store queries are mostly well under a millisecond on SQLite. */
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * Builds the metrics of one controller on a registry of its own.
 *
 * @example
 * const metrics = createControllerMetrics({ dialect: 'sqlite', clock: systemClock });
 * metrics.authentication('password', 'failure');
 * const { contentType, body } = await metrics.exposition();
 */
export function createControllerMetrics(options: ControllerMetricsOptions): ControllerMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Recorded on every request: plain numbers handed to the registry at scrape (plain-series.ts).
  const requests = plainCounter(registry, 'svc_http_requests_total', 'HTTP requests answered, by API binding, method, route template and status');
  const requestSeconds = plainHistogram(
    registry,
    'svc_http_request_duration_seconds',
    'Time from receiving an HTTP request to the end of its answer, by API binding, method, route template and status',
    HTTP_BUCKETS,
  );
  const authentications = new Counter({
    name: 'svc_authentications_total',
    help: 'Primary logins (legacy and OIDC) by method and outcome',
    labelNames: ['method', 'outcome'] as const,
    registers,
  });
  const lockouts = new Counter({
    name: 'svc_lockouts_total',
    help: 'Lockouts started: password logins of an authenticator, or the TOTP checks of an identity',
    labelNames: ['kind'] as const,
    registers,
  });
  const cache = plainCounter(registry, 'svc_auth_cache_requests_total', 'Lookups of the in-memory authentication cache, by kind of entry and result (hit or miss)');
  const changeFeedLag = new Gauge({
    name: 'svc_change_feed_lag_seconds',
    help: 'How far the latest change applied from the change feed is behind its commit at another controller',
    registers,
  });
  const routersOnline = new Gauge({
    name: 'svc_routers_online',
    help: 'Edge routers whose control channel is up at this controller',
    registers,
  });
  routersOnline.set(0);
  const querySeconds = new Histogram({
    name: 'svc_store_query_duration_seconds',
    help: 'Time of one store query, by dialect',
    labelNames: ['dialect'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  // Both label sets exist from the start, so a scrape shows zeros rather than no series before the first login.
  for (const outcome of ['success', 'failure'] as const) authentications.labels('password', outcome).inc(0);
  for (const kind of ['password', 'totp'] as const) lockouts.labels(kind).inc(0);
  const controlMessages = new Counter({
    name: 'svc_control_messages_total',
    help: 'Control-channel messages to and from routers, by direction and message type (docs/control-protocol.md)',
    labelNames: ['direction', 'type'] as const,
    registers,
  });
  const heartbeatSeconds = new Histogram({
    name: 'svc_router_heartbeat_latency_seconds',
    help: 'Round trip of the heartbeats on router control channels',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const routerReports = new Counter({ name: 'svc_router_metric_reports_total', help: 'Metrics reports received from routers', registers });
  const storeQueries = querySeconds.labels(options.dialect);

  const liveSessions = liveSessionCache(options.clock, options.liveSessionsMaxAgeMs ?? DEFAULT_LIVE_SESSIONS_MAX_AGE_MS);
  new Gauge({
    name: 'svc_api_sessions',
    help: 'Live API sessions: legacy sessions not timed out and OIDC sessions neither revoked nor expired',
    registers,
    async collect() {
      const count = await liveSessions.read();
      if (count !== undefined) this.set(count);
    },
  });

  const requestSeries = byRouteMethodStatus<{ count: CounterSeries; seconds: HistogramSeries }>();
  // A few kinds, each looked up several times a request: its two series are found once, without making a key.
  const cacheKinds = new Map<string, { hit: CounterSeries; miss: CounterSeries }>();
  const cacheSeries = (kind: string, result: 'hit' | 'miss') => {
    let both = cacheKinds.get(kind);
    if (both === undefined) {
      const of = (outcome: 'hit' | 'miss') => cache.series(`${outcome} ${kind}`, () => ({ kind, result: outcome }));
      cacheKinds.set(kind, (both = { hit: of('hit'), miss: of('miss') }));
    }
    return both[result];
  };
  let merged: Registry | undefined;
  return {
    httpRequest({ binding, method, route, status }, durationSeconds) {
      const series = requestSeries(route, method, status, () => {
        const key = `${method} ${status} ${route}`;
        const labels = () => ({ binding, method, route, status: String(status) });
        return { count: requests.series(key, labels), seconds: requestSeconds.series(key, labels) };
      });
      series.count.inc();
      series.seconds.observe(durationSeconds);
    },
    authentication: (method, outcome) => authentications.inc({ method, outcome }),
    lockout: (kind) => lockouts.inc({ kind }),
    authCacheHit: (kind) => cacheSeries(kind, 'hit').inc(),
    authCacheMiss: (kind) => cacheSeries(kind, 'miss').inc(),
    setChangeFeedLag: (seconds) => changeFeedLag.set(Math.max(0, seconds)),
    setRoutersOnline: (count) => routersOnline.set(count),
    storeQuery: (durationMs) => storeQueries.observe(durationMs / 1000),
    countLiveSessionsWith: (count) => liveSessions.source(count),
    controlMessage: (direction, type) => controlMessages.inc({ direction, type }),
    heartbeatLatency: (seconds) => heartbeatSeconds.observe(seconds),
    routerReport: () => routerReports.inc(),
    async exposition() {
      // Merged at the first scrape: the process metrics are created only once something asks for them.
      merged ??= Registry.merge([processRegistry(), registry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}

/**
 * The live-session count, read at most once per `maxAgeMs`; concurrent readers share one query. A failed count
 * (the store unreachable) keeps the last value rather than failing the whole scrape.
 */
function liveSessionCache(clock: Clock, maxAgeMs: number) {
  let count: (() => Promise<number>) | undefined;
  let last: { value: number; at: number } | undefined;
  let running: Promise<number | undefined> | undefined;
  return {
    source(next: () => Promise<number>) {
      count = next;
      last = undefined;
    },
    read(): Promise<number | undefined> {
      if (count === undefined) return Promise.resolve(0);
      const now = clock.now().getTime();
      if (last !== undefined && now - last.at < maxAgeMs && now >= last.at) return Promise.resolve(last.value);
      const query = count;
      running ??= query()
        .then((value) => {
          last = { value, at: clock.now().getTime() };
          return value;
        })
        .catch(() => last?.value)
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}

/**
 * A request's series found by its route template, method and status in three map lookups, without building a key:
 * the route templates and methods are the same few strings every time, so their hashes are already known.
 */
function byRouteMethodStatus<S>(): (route: string, method: string, status: number, make: () => S) => S {
  const routes = new Map<string, Map<string, Map<number, S>>>();
  return (route, method, status, make) => {
    let methods = routes.get(route);
    if (methods === undefined) routes.set(route, (methods = new Map()));
    let statuses = methods.get(method);
    if (statuses === undefined) methods.set(method, (statuses = new Map()));
    let series = statuses.get(status);
    if (series === undefined) statuses.set(status, (series = make()));
    return series;
  };
}
