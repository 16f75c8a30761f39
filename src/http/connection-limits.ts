/**
 * What a slow or greedy client may hold of a listener (issue 12, point 4; decision 0013). Node's defaults let a
 * client keep a connection open forever by sending a byte now and then, or by never finishing its TLS handshake,
 * and place no cap on connections. Here each stage has a deadline and connections are capped, in total and per
 * client address, so a few hundred idle sockets cannot starve the listener:
 * - the TLS handshake (`handshakeTimeout`, a TLS server option, set where the server is created);
 * - the request headers (`headerTimeout`) and the whole request (`requestTimeout`), which Node checks on an
 *   interval; a request past either is answered 408 and its connection closed;
 * - open connections per bind point (`maxConnections`) and per client address (`maxConnectionsPerClient`): one
 *   past the cap is closed at once, before any TLS work is spent on it;
 * - a connection the server has ended (after a 408, or any answer sent with `connection: close`) is destroyed a
 *   short grace later unless the answer is still draining (`closeEndedConnections`): ending only half-closes it, and
 *   a peer that keeps writing and never reads would otherwise hold it open for as long as it writes.
 */
import type { Server, Socket } from 'node:net';
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

/** How long a connection the server has ended may stay open with nothing of its answer moving (decision 0013). */
export const ENDED_CONNECTION_GRACE_MS = 2_000;

/**
 * Destroys the connections the server has ended (`writableEnded`) that are still open one grace period later, unless
 * more of their answer reached the kernel meanwhile (a slow reader still reading gets further periods). One sweep
 * a period over the open TLS connections, whichever path ended them: Node's own `destroySoon` after a response with
 * `connection: close`, the clientError handler after a 408 or 400, or the expectation handler. `end()` alone waits
 * for the answer to drain and for the peer to end its side, neither of which a peer that never reads ever does.
 * An answer the kernel has taken is still delivered after the destroy (closing a socket sends what its buffer holds,
 * unless data the peer sent lies unread, when it resets); only an answer larger than the kernel's send buffer, to a
 * peer reading it slower than one write a period, is cut short.
 */
export function closeEndedConnections(server: Server, graceMs = ENDED_CONNECTION_GRACE_MS): void {
  // Per open connection: how much of the answer was still buffered at the last sweep that found it ended.
  const open = new Map<Socket, number | undefined>();
  server.on('secureConnection', (socket: Socket) => {
    open.set(socket, undefined);
    socket.once('close', () => open.delete(socket));
  });
  const sweep = setInterval(() => {
    for (const [socket, buffered] of open) {
      if (!socket.writableEnded) continue;
      const left = socket.writableLength;
      // Gone when it was already ended at the last sweep and none of its answer has drained since (or all of it has,
      // and the peer has not closed).
      if (buffered !== undefined && (left === 0 || left >= buffered)) socket.destroy();
      else open.set(socket, left);
    }
  }, graceMs);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}
