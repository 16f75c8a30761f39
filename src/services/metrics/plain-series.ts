/**
 * Counters and histograms kept as plain numbers, for what is recorded on every request: the request count and
 * latency, and the authentication cache's lookups (several a request). prom-client hashes a label object on every
 * `inc` and `observe`, even through a child made by `labels()`; here a label set's series is found once, recording
 * adds to its fields, and prom-client's registry is handed the values only when it is scraped, in the form its own
 * metrics give (`get()`), so the exposition is the same text.
 */
import type { Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What a registry asks of a metric: its name, help and type, and its values at scrape (prom-client's `get()`). */
interface RegistryMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: MetricValue[] }>;
}

export interface CounterSeries {
  inc(): void;
}

export interface HistogramSeries {
  observe(value: number): void;
}

/** The series of each label set, found by a key the caller makes from the labels (unique per label set). */
export interface PlainMetric<S> {
  series(key: string, labels: () => Labels): S;
}

function register(registry: Registry, name: string, help: string, type: RegistryMetric['type'], values: () => MetricValue[]) {
  const metric: RegistryMetric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  };
  // The registry reads only what RegistryMetric declares; its typings name prom-client's own classes.
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

function seriesMap<S>(make: (labels: Labels) => S): { all: Map<string, { labels: Labels; series: S }>; series: PlainMetric<S>['series'] } {
  const all = new Map<string, { labels: Labels; series: S }>();
  return {
    all,
    series(key, labels) {
      let entry = all.get(key);
      if (entry === undefined) {
        const made = labels();
        entry = { labels: made, series: make(made) };
        all.set(key, entry);
      }
      return entry.series;
    },
  };
}

/** A counter (`name` ends in `_total`, as Prometheus names counters). */
export function plainCounter(registry: Registry, name: string, help: string): PlainMetric<CounterSeries & { readonly count: number }> {
  const { all, series } = seriesMap(() => {
    const counted = {
      count: 0,
      inc() {
        counted.count++;
      },
    };
    return counted;
  });
  register(registry, name, help, 'counter', () => [...all.values()].map(({ labels, series: s }) => ({ value: s.count, labels: { ...labels } })));
  return { series };
}

interface ObservedSeries extends HistogramSeries {
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A histogram with the given upper bounds (ascending; `+Inf` is added). */
export function plainHistogram(registry: Registry, name: string, help: string, buckets: readonly number[]): PlainMetric<HistogramSeries> {
  const { all, series } = seriesMap((): ObservedSeries => {
    const observed: ObservedSeries = {
      counts: new Float64Array(buckets.length + 1),
      sum: 0,
      count: 0,
      observe(value) {
        let at = 0;
        while (at < buckets.length && value > (buckets[at] as number)) at++;
        observed.counts[at]! += 1;
        observed.sum += value;
        observed.count++;
      },
    };
    return observed;
  });
  register(registry, name, help, 'histogram', () => {
    const values: MetricValue[] = [];
    for (const { labels, series: observed } of all.values()) {
      let cumulative = 0;
      buckets.forEach((bound, at) => {
        cumulative += observed.counts[at]!;
        values.push({ value: cumulative, labels: { le: bound, ...labels }, metricName: `${name}_bucket` });
      });
      values.push({ value: observed.count, labels: { le: '+Inf', ...labels }, metricName: `${name}_bucket` });
      values.push({ value: observed.sum, labels: { ...labels }, metricName: `${name}_sum` });
      values.push({ value: observed.count, labels: { ...labels }, metricName: `${name}_count` });
    }
    return values;
  });
  return { series };
}
