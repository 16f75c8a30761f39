/**
 * A TCP listener standing in for one intercept: each accepted connection dials the service and is relayed both
 * ways with half-close (a FIN from either side reaches the other, which may still answer), backpressure by pipe()
 * (a slow reader pauses the other side's socket). The socket is held paused until the dial answers, so nothing it
 * sends is lost or buffered without bound; a dial that fails closes it and is reported once. `close()` stops
 * listening and closes every open connection (the service was removed or its intercept changed).
 */
import type { EventEmitter } from 'node:events';
import { createServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Intercept } from './intercept-plan.js';
import type { Peer } from './app-data.js';
import { relay } from './relay.js';

/** Dials the service of `intercept` for a client at `source`. */
export type DialIntercept = (intercept: Intercept, source: Peer) => Promise<Duplex>;

export interface InterceptListener {
  close(): Promise<void>;
}

export interface ListenerDeps {
  dial: DialIntercept;
  /** One line for an event a person should see (a failed dial). */
  report(line: string): void;
}

const peerOf = (socket: Socket): Peer => ({ address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 });

/** Listens on the intercept's local address:port; rejects with the listen error (EADDRINUSE, EACCES, …). */
export function listenTcp(intercept: Intercept, deps: ListenerDeps): Promise<InterceptListener> {
  const open = new Set<{ destroy(): void }>();
  let closing = false;
  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
    const source = peerOf(socket);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // An error before the dial answers (the client reset) only ends the socket; the dial's answer then finds it gone.
    socket.on('error', () => socket.destroy());
    deps.dial(intercept, source).then(
      (conn) => {
        if (closing || socket.destroyed) return void conn.destroy();
        open.add(conn);
        conn.once('close', () => open.delete(conn));
        relay(socket, conn);
        socket.resume();
      },
      (error: Error) => {
        deps.report(`service '${intercept.serviceName}': the dial for ${source.address}:${source.port} (tcp ${intercept.listenHost}:${intercept.listenPort}) failed: ${error.message}`);
        socket.destroy();
      },
    );
  });
  return opened(
    server,
    (ready) => server.listen({ host: intercept.listenHost, port: intercept.listenPort, exclusive: true }, ready),
    () =>
      new Promise<void>((done) => {
        closing = true;
        server.close(() => done());
        for (const stream of open) stream.destroy();
      }),
  );
}

/**
 * Resolves with a listener once `start` calls back, or rejects with the first error (EADDRINUSE, EACCES, …). After that,
 * errors are ignored: a failed accept or a send to a gone source is one client's loss, not the listener's.
 */
export function opened(emitter: EventEmitter, start: (ready: () => void) => void, close: () => Promise<void>): Promise<InterceptListener> {
  return new Promise((resolve, reject) => {
    emitter.once('error', reject);
    start(() => {
      emitter.off('error', reject);
      emitter.on('error', () => undefined);
      resolve({ close });
    });
  });
}
