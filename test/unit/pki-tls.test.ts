/** @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061). */
// A real TLS handshake on 127.0.0.1 with the files createControllerPki writes.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, createServer, type ConnectionOptions, type Server, type TLSSocket } from 'node:tls';
import { createControllerPki, type PkiPaths } from '../../src/pki/index.js';

/** Connects and resolves with the socket once the handshake succeeded, or rejects with its error. */
async function handshake(port: number, options: ConnectionOptions): Promise<TLSSocket> {
  const socket = connect({ host: '127.0.0.1', port, ...options });
  await Promise.race([once(socket, 'secureConnect'), once(socket, 'error').then(([error]) => Promise.reject(error))]);
  return socket;
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('the created PKI in a TLS handshake', () => {
  let tmp: string;
  let paths: PkiPaths;
  let other: PkiPaths;
  const text = (file: string) => readFile(file, 'utf8');

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'svc-pki-tls-'));
    paths = await createControllerPki(join(tmp, 'a'), { hosts: [] });
    other = await createControllerPki(join(tmp, 'b'), { hosts: [] });
  });
  after(async () => rm(tmp, { recursive: true, force: true }));

  it('lets a client that trusts only ca-bundle.pem connect to localhost', async () => {
    const server = createServer({ cert: await text(paths.serverCert), key: await text(paths.serverKey) }, (s) => s.end());
    try {
      const port = await listen(server);
      const socket = await handshake(port, { ca: await text(paths.caBundle), servername: 'localhost' });
      assert.equal(socket.authorized, true);
      assert.equal(socket.getPeerCertificate().subject.CN, 'localhost');
      socket.destroy();
    } finally {
      server.close();
    }
  });

  it('lets a client that connects by IP address verify the 127.0.0.1 SAN', async () => {
    const server = createServer({ cert: await text(paths.serverCert), key: await text(paths.serverKey) }, (s) => s.end());
    try {
      const port = await listen(server);
      const socket = await handshake(port, { ca: await text(paths.caBundle) });
      assert.equal(socket.authorized, true);
      socket.destroy();
    } finally {
      server.close();
    }
  });

  it('is rejected by a client that trusts another PKI', async () => {
    const server = createServer({ cert: await text(paths.serverCert), key: await text(paths.serverKey) }, (s) => s.end());
    try {
      const port = await listen(server);
      await assert.rejects(handshake(port, { ca: await text(other.caBundle), servername: 'localhost' }), { code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' });
    } finally {
      server.close();
    }
  });

  it('authenticates the controller client certificate to a server that requires one', async () => {
    const ca = await text(paths.caBundle);
    const server = createServer({ cert: await text(paths.serverCert), key: await text(paths.serverKey), ca, requestCert: true, rejectUnauthorized: true });
    const peer = new Promise<unknown>((resolve) =>
      server.once('secureConnection', (s: TLSSocket) => {
        resolve(s.authorized ? s.getPeerCertificate().subject.CN : undefined);
        s.end();
      }),
    );
    try {
      const port = await listen(server);
      const socket = await handshake(port, { ca, servername: 'localhost', cert: await text(paths.clientCert), key: await text(paths.clientKey) });
      assert.equal(await peer, 'svc-controller');
      socket.destroy();
    } finally {
      server.close();
    }
  });
});
