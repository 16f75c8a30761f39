/**
 * A TCP socket as a tunnel circuit end (tunnel-end.ts): a hosted target the router dialled, or a client accepted by
 * a proxy-mode listener. The socket must allow half-open connections (`allowHalfOpen: true`), so that its EOF becomes
 * a FIN payload and the other direction keeps flowing, as the client expects of TCP half-close.
 */
import type { Socket } from 'node:net';
import { createTunnelEnd, type TunnelEnd } from './tunnel-end.js';

/** How long a closing socket may take to write out what it holds before it is destroyed. */
const CLOSE_GRACE_MS = 10_000;

/** A tunnel end reading and writing `socket`, paused until `start`. */
export function tcpEnd(socket: Socket, label: string, onEnded: (reason: string) => void): TunnelEnd {
  socket.pause();
  const end = createTunnelEnd(
    label,
    {
      write: (plain) => void socket.write(plain),
      writeFin: () => void socket.end(),
      queued: () => socket.writableLength,
      pauseInput: () => void socket.pause(),
      resumeInput: () => void socket.resume(),
      close(graceful) {
        socket.pause();
        if (!graceful || socket.destroyed) return void socket.destroy();
        socket.end();
        // A peer that never reads must not hold the socket forever.
        const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
        timer.unref();
        socket.once('close', () => clearTimeout(timer));
        socket.once('finish', () => socket.destroy());
        if (socket.writableFinished) socket.destroy();
      },
    },
    onEnded,
  );
  socket.on('data', (chunk: Buffer) => end.read(chunk));
  socket.on('end', () => end.readFin());
  socket.on('drain', () => end.drained());
  socket.on('error', (error: NodeJS.ErrnoException) => end.lost(`${label}: ${error.code ?? error.message}`));
  socket.on('close', () => {
    end.drained();
    end.lost(`${label} closed`);
  });
  return end;
}
