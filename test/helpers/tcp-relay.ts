/**
 * A TCP relay that can be cut as a network would cut a link (every connection dropped, nothing accepted) and opened
 * again on the same port: how tests make PostgreSQL unreachable for a while. Builders return values, never assert.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** A TCP relay to `target` on a port of its own, which can be cut (every connection dropped, nothing accepted) and restored. */
export async function tcpRelay(target: URL): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; freeze(): void; thaw(): void }> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const pairs = new Set<[Socket, Socket]>();
  let server: Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        const pair: [Socket, Socket] = [client, upstream];
        pairs.add(pair);
        client.on('close', () => pairs.delete(pair));
        if (frozen) for (const socket of pair) socket.pause();
        else client.pipe(upstream).pipe(client);
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        port = (next.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = async () => {
    const closing = server;
    server = undefined;
    if (!closing) return;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  };
  await open();
  // Restoring an open relay changes nothing.
  return {
    port,
    cut,
    restore: async () => (server ? undefined : open()),
    // A stalled path: connections stay open and nothing moves, as when a network silently drops packets.
    freeze() {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    thaw() {
      // Only a frozen relay is piped again: piping a flowing pair twice would write every chunk twice.
      if (!frozen) return;
      frozen = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.resume();
      }
    },
  };
}

