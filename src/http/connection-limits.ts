/**
 * What a slow or greedy client may hold of a listener (issue 12, point 4; decision 0013). Node's defaults let a
 * client keep a connection open forever by sending a byte now and then, or by never finishing its TLS handshake,
 * and place no cap on connections. Here each stage has a deadline and connections are capped, in total and per
 * client address, so a few hundred idle sockets cannot starve the listener:
 * - the TLS handshake (`handshakeTimeout`, a TLS server option, set where the server is created);
 * - the request headers (`headerTimeout`) and the whole request (`requestTimeout`), which Node checks on an
 *   interval; a request past either is answered 408 and its connection closed;
 * - open connections per bind point (`maxConnections`) and per client address (`maxConnectionsPerClient`): one
 *   past the cap is closed at once, before any TLS work is spent on it.
 */
import type { Server } from 'node:net';
import type { WebListenerOptions } from '../config/types.js';

/** The options of `https.createServer` that carry the deadlines Node enforces itself. */
export function deadlineServerOptions(options: WebListenerOptions) {
  return {
    handshakeTimeout: options.handshakeTimeoutMs,
    headersTimeout: options.headerTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // How often Node looks for requests past their deadline: a fraction of the shortest one, so that a deadline is
    // met within about a tenth of itself (Node's default, 30 s, would let a 10 s deadline run for 40 s).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(options.headerTimeoutMs, options.requestTimeoutMs) / 10))),
  };
}

/** Applies the connection caps to a listening server (before `listen`). */
export function limitConnections(server: Server, options: Pick<WebListenerOptions, 'maxConnections' | 'maxConnectionsPerClient'>): void {
  server.maxConnections = options.maxConnections;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > options.maxConnectionsPerClient) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
