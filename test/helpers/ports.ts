/** Free loopback TCP ports for test listeners (asked of the OS, released before use). */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A loopback port free for both TCP and UDP and below Linux's ephemeral range (32768-60999), for a listener a test
 * opens, closes and opens again: between the two, an outgoing connection (a database pool's, a CLI's) may be given an
 * ephemeral port as its own, which freePort's ports are, and the second listen would then find it in use.
 */
export async function stablePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await bindable(port, host)) === true) return port;
  }
}

async function bindable(port: number, host: string): Promise<boolean> {
  const tcp = createServer();
  const tcpOk = await new Promise<boolean>((resolve) => {
    tcp.once('error', () => resolve(false));
    tcp.listen(port, host, () => resolve(true));
  });
  if (!tcpOk) return false;
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
  await new Promise((resolve) => tcp.close(resolve));
  return udpOk;
}
