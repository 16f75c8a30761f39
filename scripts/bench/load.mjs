// Load generator for `npm run bench`: keeps N keep-alive HTTPS connections busy against one URL for a fixed
// time and prints the completed requests per second as JSON. Runs in its own process so it does not share
// the server's event loop. Bounded: stops after `seconds` and never targets anything but the given URL.
import { Agent, request } from 'node:https';

const [url, ca, connections = '10', seconds = '5', method = 'GET', body = '', headersJson = '{}'] = process.argv.slice(2);
const extraHeaders = JSON.parse(headersJson);
if (!/^https:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) throw new Error('load.mjs only targets loopback');
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections), ca });
const deadline = Date.now() + Number(seconds) * 1000;
let done = 0;
let errors = 0;

function once() {
  return new Promise((resolve) => {
    const headers = { ...extraHeaders, ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = request(url, { agent, method, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) done++;
        else errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(body || undefined);
  });
}

async function worker() {
  while (Date.now() < deadline) await once();
}

// Warm up the TLS sessions first so the measurement is of steady-state requests.
await Promise.all(Array.from({ length: Number(connections) }, once));
done = 0;
errors = 0;
const started = Date.now();
await Promise.all(Array.from({ length: Number(connections) }, worker));
const elapsed = (Date.now() - started) / 1000;
agent.destroy();
process.stdout.write(JSON.stringify({ rps: done / elapsed, errors, requests: done }));
