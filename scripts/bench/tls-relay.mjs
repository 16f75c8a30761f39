#!/usr/bin/env node
// The baseline of `npm run bench -- edge-relay`: a bare Node TLS relay, the same hops as a router with nothing of the
// overlay. It accepts mutual TLS (server certificate, client certificates required and checked against the CA
// bundle) and, for each connection, opens mutual TLS to the target and pipes both ways with Node's own backpressure.
// With TARGET_PORT 0 it only holds what it accepts: the baseline of an idle channel's memory.
// Usage: tls-relay.mjs SERVER_CERT SERVER_KEY CLIENT_CERT CLIENT_KEY CA TARGET_PORT; prints "ready <port>".
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:tls';

const [serverCert, serverKey, clientCert, clientKey, caFile, targetPort] = process.argv.slice(2);
const ca = readFileSync(caFile);
const outbound = { host: '127.0.0.1', port: Number(targetPort), cert: readFileSync(clientCert), key: readFileSync(clientKey), ca, servername: 'localhost' };

const server = createServer({ cert: readFileSync(serverCert), key: readFileSync(serverKey), ca, requestCert: true, rejectUnauthorized: true }, (inbound) => {
  inbound.on('error', () => inbound.destroy());
  if (outbound.port === 0) return;
  const target = connect(outbound);
  inbound.pipe(target).pipe(inbound);
  const end = () => {
    inbound.destroy();
    target.destroy();
  };
  inbound.on('error', end);
  target.on('error', end);
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
