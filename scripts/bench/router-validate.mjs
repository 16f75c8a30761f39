#!/usr/bin/env node
// Times validateRouterConfig on a router file generated in memory with 1,000 listeners and 1,000 dialers
// (needs `npm run build`). Prints the median of 5 runs after one warm-up run (schema compilation).
import { performance } from 'node:perf_hooks';
import { validateRouterConfig } from '../../dist/router-config/validate.js';

const COUNT = 1000;
const RUNS = 5;

function routerFile() {
  const lines = [
    'v: 3',
    'identity: { cert: c.pem, server_cert: s.pem, key: k.pem, ca: ca.pem }',
    'ctrl: { endpoint: "tls:ctrl.example.com:6262" }',
    'csr: { sans: { dns: [router.example.com], ip: [10.0.0.1] } }',
    'edge: {}',
    'link:',
    '  listeners: [{ binding: transport, bind: "tls:0.0.0.0:4022", advertise: "router.example.com:4022" }]',
    '  dialers: [{ binding: transport }]',
    'listeners:',
  ];
  for (let i = 0; i < COUNT; i++) {
    const port = 10000 + i;
    if (i % 2 === 0) lines.push(`  - binding: edge`, `    address: tls:0.0.0.0:${port}`, `    advertise: router.example.com:${port}`);
    else lines.push(`  - binding: tunnel`, `    bind: tcp:127.0.0.1:${port}`, `    advertise: 127.0.0.1:${port}`, `    options: { mode: proxy, services: ["svc${i}:${port}"] }`);
  }
  lines.push('dialers:');
  const bindings = ['proxy', 'proxy_udp', 'transport', 'transport_udp'];
  for (let i = 0; i < COUNT; i++) lines.push(`  - binding: ${bindings[i % 4]}`, `    options: { mtu: 1400 }`);
  return `${lines.join('\n')}\n`;
}

const text = routerFile();
const warm = validateRouterConfig(text, 'bench.yml', { env: {} });
if (warm.config === undefined) throw new Error(`generated file is invalid: ${JSON.stringify(warm.diagnostics.slice(0, 3))}`);
const times = [];
for (let run = 0; run < RUNS; run++) {
  const start = performance.now();
  validateRouterConfig(text, 'bench.yml', { env: {} });
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
console.log(`router config validation, ${COUNT} listeners + ${COUNT} dialers: ${Math.round(times[Math.floor(RUNS / 2)])} ms`);
