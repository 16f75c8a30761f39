/**
 * The plain counters and histograms the request path records into must scrape exactly as prom-client's own metrics
 * would for the same recordings: a Prometheus server sees no difference.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { plainCounter, plainHistogram } from '../../src/services/metrics/plain-series.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

describe('plain metric series', () => {
  it('scrapes a histogram as prom-client does: cumulative buckets with +Inf, sum and count per label set', async () => {
    const plain = new Registry();
    const reference = new Registry();
    const series = plainHistogram(plain, 'svc_t_seconds', 'time', BUCKETS);
    const theirs = new Histogram({ name: 'svc_t_seconds', help: 'time', labelNames: ['route', 'status'], buckets: BUCKETS, registers: [reference] });
    // On a bound, between bounds, past the last one, and a second label set.
    const recordings: Array<[string, string, number]> = [
      ['/a', '200', 0.001],
      ['/a', '200', 0.005],
      ['/a', '200', 3],
      ['/b', '404', 0.5],
      ['/a', '200', 0.0001],
    ];
    for (const [route, status, value] of recordings) {
      series.series(`${route} ${status}`, () => ({ route, status })).observe(value);
      theirs.observe({ route, status }, value);
    }
    assert.equal(await plain.metrics(), await reference.metrics());
    assert.match(await plain.metrics(), /svc_t_seconds_bucket\{le="0\.01",route="\/a",status="200"\} 3\n/);
  });

  it('scrapes a counter as prom-client does, each label set found once by its key', async () => {
    const plain = new Registry();
    const reference = new Registry();
    const counter = plainCounter(plain, 'svc_t_total', 'counted');
    const theirs = new Counter({ name: 'svc_t_total', help: 'counted', labelNames: ['kind', 'result'], registers: [reference] });
    let labelSetsMade = 0;
    for (const [kind, result] of [['identity', 'hit'], ['identity', 'hit'], ['identity', 'miss'], ['session', 'hit']] as const) {
      counter.series(`${result} ${kind}`, () => (labelSetsMade++, { kind, result })).inc();
      theirs.inc({ kind, result });
    }
    assert.equal(labelSetsMade, 3);
    assert.equal(await plain.metrics(), await reference.metrics());
  });

  it('shows nothing for a metric nothing was recorded in, and survives a merge with another registry', async () => {
    const plain = new Registry();
    plainHistogram(plain, 'svc_t_seconds', 'time', BUCKETS);
    const other = new Registry();
    new Counter({ name: 'svc_other_total', help: 'other', registers: [other] }).inc();
    const text = await Registry.merge([other, plain]).metrics();
    assert.match(text, /# TYPE svc_t_seconds histogram\n/);
    assert.doesNotMatch(text, /svc_t_seconds_count/);
    assert.match(text, /svc_other_total 1\n/);
  });
});
