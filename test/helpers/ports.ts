/** Free loopback TCP ports for test listeners (checked free, released before use). */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago, below Linux's ephemeral range (32768-60999). A port the OS hands
 * out for `listen(0)` is an ephemeral one: released and given to a child process to bind (a router's edge or link
 * listener), it could meanwhile become the local port of an outgoing connection of any process on the machine (a
 * database pool's, a CLI's), and the child then failed with EADDRINUSE under the suite's load. Below that range only
 * another listener can take it, and a random pick makes two tests choosing the same one at once unlikely.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await tcpBindable(port, host)) return port;
  }
}

function tcpBindable(port: number, host: string): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port free for both TCP and UDP and below Linux's ephemeral range, for a listener a test opens, closes and
 * opens again on both protocols.
 */
export async function stablePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await bindable(port, host)) === true) return port;
  }
}

async function bindable(port: number, host: string): Promise<boolean> {
  if (!(await tcpBindable(port, host))) return false;
  const udp = createSocket('udp4');
  const udpOk = await new Promise<boolean>((resolve) => {
    udp.once('error', () => resolve(false));
    udp.bind(port, host, () => resolve(true));
  });
  try {
    udp.close();
  } catch {
    // A socket whose bind failed may already be closed.
  }
  return udpOk;
}
