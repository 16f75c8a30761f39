#!/usr/bin/env node
// Plain-HTTP load generator of `npm run bench -- fabric` (wrk is not installed here and autocannon is not a
// dependency): N keep-alive connections, each sending GETs one after another to one loopback URL for a fixed time,
// timing every request. Prints JSON {rps (200 answers per second), p50Ms, p99Ms, errors, warmUpErrors (of the first request on
// each connection, not timed), requests}. A process of its
// own so it does not share the server's or the routers' event loops. Bounded: it stops after `seconds` and only
// targets loopback.
// Usage: http-load.mjs URL CONNECTIONS SECONDS
import { Agent, request } from 'node:http';

const [url, connections = '10', seconds = '5'] = process.argv.slice(2);
if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) throw new Error('http-load.mjs only targets loopback');
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
let latencies = [];
let errors = 0;

function once() {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - started);
        else errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end();
  });
}

// Each connection opened (and its circuit set up, through the overlay) before the clock starts: steady state only.
await Promise.all(Array.from({ length: Number(connections) }, once));
const warmUpErrors = errors;
latencies = [];
errors = 0;
const started = performance.now();
const deadline = started + Number(seconds) * 1000;
await Promise.all(
  Array.from({ length: Number(connections) }, async () => {
    while (performance.now() < deadline) await once();
  }),
);
const elapsed = (performance.now() - started) / 1000;
agent.destroy();
const sorted = latencies.sort((a, b) => a - b);
const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
process.stdout.write(JSON.stringify({ rps: sorted.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99), errors, warmUpErrors, requests: sorted.length }));
