/**
 * The metrics domain (issue 17, point 5; decision 0033): a Prometheus registry per controller behind the typed
 * `ControllerMetrics` interface that HTTP, authentication, the authentication cache, the change feed and the store
 * report to, and the live-session count it reads at scrape time. Served by the `metrics` binding (http/metrics/).
 */
export { createControllerMetrics, type AuthenticationOutcome, type ControllerMetrics, type ControllerMetricsOptions, type HttpRequestLabels, type LockoutKind } from './controller-metrics.js';
export { liveSessionCounter, type LiveSessionSource } from './live-sessions.js';
