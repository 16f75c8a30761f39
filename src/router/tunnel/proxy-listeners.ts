/**
 * Proxy mode (issue 43, decision 0071): the router listens on a local TCP port per service the file names
 * (`services: ["name:port"]`) and carries each accepted connection into the overlay as its own identity (the router's
 * tunneler identity, whose id is the router's). Each connection is one circuit: the socket becomes a tunnel end and
 * the fabric's `dial` finds the service's terminator and joins the far end. When the service requires encryption,
 * this end is the end-to-end encryption client (libsodium kx client keys, secretstream), as an SDK dialer would be.
 * A refused dial closes the accepted socket; the router's log says which service and why in one line.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { e2eeSession, newKeyPair, sodiumReady, type E2eeSession, type KeyPair } from '../../sdk/e2ee.js';
import type { CircuitEnd, DialerInfo } from '../fabric/circuit-end.js';
import { RouterSetupError } from '../errors.js';
import { tcpEnd } from './tcp-end.js';

/** The fabric's dial (src/router/fabric/fabric.ts, issue 43 contract), as the proxy uses it. */
export type ProxyDial = (
  request: {
    identityId: string;
    identityName: string;
    serviceName: string;
    dialer: Omit<DialerInfo, 'identityId' | 'identityName' | 'publicKey'>;
    publicKeyFor(encryptionRequired: boolean): Buffer | undefined;
  },
  end: CircuitEnd,
) => Promise<{ circuitId: string; serviceId: string; peer: CircuitEnd; publicKey?: Buffer; encryptionRequired: boolean }>;

export interface ProxyService {
  name: string;
  port: number;
}

export interface ProxyListenersDeps {
  /** The interface to listen on (127.0.0.1 unless the tunnel listener's `address` names another). */
  host: string;
  services: readonly ProxyService[];
  /** The router's tunneler identity (its id is the router's), once a controller has answered the Hello. */
  identity(): { id: string; name: string } | undefined;
  dial: ProxyDial;
  log: Logger;
}

export interface ProxyListeners {
  /** Where each service listens (the port is the bound one when the file said 0). */
  addresses(): Array<{ service: string; host: string; port: number }>;
  /** Connections carried now. */
  readonly open: number;
  stop(): Promise<void>;
}

/** Listens for every service; RouterSetupError naming the service and address when one cannot listen. */
export async function startProxyListeners(deps: ProxyListenersDeps): Promise<ProxyListeners> {
  const { log } = deps;
  await sodiumReady;
  const servers: Array<{ service: ProxyService; server: Server }> = [];
  const sockets = new Set<Socket>();

  async function carry(service: ProxyService, socket: Socket): Promise<void> {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    const end = tcpEnd(socket, `proxy ${service.name} from ${from}`, () => undefined);
    const identity = deps.identity();
    if (!identity) {
      log.info({ service: service.name }, `proxy connection to service '${service.name}' closed: no controller has answered this router yet`);
      end.lost('no controller has answered this router yet');
      return;
    }
    let keys: KeyPair | undefined;
    const appData = Buffer.from(
      JSON.stringify({ dst_protocol: 'tcp', dst_ip: socket.localAddress, dst_port: String(socket.localPort), src_ip: socket.remoteAddress, src_port: String(socket.remotePort) }),
    );
    let result: Awaited<ReturnType<ProxyDial>>;
    try {
      result = await deps.dial(
        {
          identityId: identity.id,
          identityName: identity.name,
          serviceName: service.name,
          dialer: { appData },
          publicKeyFor(encryptionRequired) {
            if (!encryptionRequired) return undefined;
            keys = newKeyPair();
            return Buffer.from(keys.publicKey);
          },
        },
        end,
      );
    } catch (error) {
      const reason = (error as Error).message;
      log.info({ service: service.name, from, kind: (error as { kind?: string }).kind }, `proxy connection to service '${service.name}' refused: ${reason}`);
      end.lost(reason);
      return;
    }
    let crypto: E2eeSession | undefined;
    if (result.encryptionRequired) {
      try {
        if (!keys || !result.publicKey) throw new Error('the hosting end sent no public key for an encrypted service');
        crypto = e2eeSession('client', keys, result.publicKey);
      } catch (error) {
        const reason = `service '${service.name}': ${(error as Error).message}`;
        log.warn({ service: service.name, circuit: result.circuitId }, `proxy connection closed: ${reason}`);
        result.peer.end(reason);
        end.lost(reason);
        return;
      }
    }
    end.start(result.peer, crypto);
  }

  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
  };

  for (const service of deps.services) {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => void carry(service, socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(service.port, deps.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      await stop();
      throw new RouterSetupError(`the tunnel's proxy listener for service '${service.name}' cannot listen on ${deps.host}:${service.port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    server.on('error', (error) => log.warn({ service: service.name, err: error }, `the proxy listener of service '${service.name}' failed: ${error.message}`));
    servers.push({ service, server });
    log.info({ service: service.name }, `proxy mode: service '${service.name}' is reachable at ${deps.host}:${(server.address() as AddressInfo).port}`);
  }

  return {
    addresses: () => servers.map(({ service, server }) => ({ service: service.name, host: deps.host, port: (server.address() as AddressInfo).port })),
    get open() {
      return sockets.size;
    },
    stop,
  };
}
