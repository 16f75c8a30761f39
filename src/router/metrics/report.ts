/**
 * The router's metrics as it reports them to the controller over the control channel (RouterMetrics, 30051;
 * docs/control-protocol.md): a flat snapshot `name{label="value"}` -> number of its own series, histogram buckets
 * left out (the count and sum say enough upstream), at most MAX_REPORTED values so the message stays small.
 */
import type { Registry } from 'prom-client';

/** The protocol's bound on one report's values. */
export const MAX_REPORTED = 256;

export async function metricsSnapshot(registry: Registry): Promise<Record<string, number>> {
  const values: Record<string, number> = {};
  let count = 0;
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const sample of metric.values as Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>) {
      const name = sample.metricName ?? metric.name;
      if (name.endsWith('_bucket') || !Number.isFinite(sample.value)) continue;
      const labels = Object.entries(sample.labels).map(([k, v]) => `${k}="${v}"`).join(',');
      const key = (labels ? `${name}{${labels}}` : name).slice(0, 128);
      values[key] = sample.value;
      if (++count >= MAX_REPORTED) return values;
    }
  }
  return values;
}
