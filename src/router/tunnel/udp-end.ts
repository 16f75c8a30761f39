/**
 * A connected UDP socket to a hosted target as a tunnel circuit end (tunnel-end.ts): each payload from the peer is
 * one datagram, each datagram from the target one payload. UDP has no end of stream, so a FIN from the peer changes
 * nothing and the circuit ends when it has been idle (no datagram either way) for UDP_IDLE_MS, as the public
 * tunnelers expire their UDP "connections". While the peer is congested, datagrams from the target are dropped:
 * UDP's own answer to a slow reader, and a bound on what the router holds.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { createTunnelEnd, type TunnelEnd } from './tunnel-end.js';

/** An idle UDP circuit ends after this long (upstream's tunnelers use one minute too). */
export const UDP_IDLE_MS = 60_000;

/**
 * A UDP socket connected to `host:port`, as a tunnel end paused until `start`. Rejects when the name does not resolve
 * or the socket cannot be connected.
 */
export async function udpEnd(target: { host: string; port: number }, label: string, onEnded: (reason: string) => void, idleMs = UDP_IDLE_MS): Promise<TunnelEnd> {
  const address = isIP(target.host) ? target.host : (await lookup(target.host)).address;
  const socket: Socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(target.port, address, () => {
      socket.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    socket.close();
    throw error;
  });

  let paused = true;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    socket.close();
  };
  const end = createTunnelEnd(
    label,
    {
      write(plain) {
        idle.refresh();
        socket.send(plain);
      },
      writeFin: () => undefined,
      queued: () => (closed ? 0 : socket.getSendQueueSize()),
      pauseInput: () => void (paused = true),
      resumeInput: () => void (paused = false),
      close,
    },
    onEnded,
  );
  const idle = setTimeout(() => end.lost(`${label} was idle for ${Math.round(idleMs / 1_000)} s`), idleMs);
  idle.unref();
  socket.on('message', (datagram: Buffer) => {
    idle.refresh();
    if (!paused) end.read(datagram);
  });
  socket.on('error', (error: NodeJS.ErrnoException) => end.lost(`${label}: ${error.code ?? error.message}`));
  return end;
}
