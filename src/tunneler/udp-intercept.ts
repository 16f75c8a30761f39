/**
 * A UDP socket standing in for one intercept. UDP has no connections, so each source address:port is a flow: its first
 * datagram dials the service, and the flow's datagrams go over that one overlay connection, one write (one Data
 * message) per datagram; what the service sends back goes to the source, one datagram per message. A flow ends after
 * `idleMs` without a datagram either way (60 s by default, as the public tunnelers' UDP idle expiry), or when its
 * connection closes. Datagrams are dropped, never queued without bound: at most PENDING_MAX wait for the dial, and a
 * flow whose connection holds more than WRITE_BACKLOG_MAX unsent bytes drops new ones, as a full network would.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { Duplex } from 'node:stream';
import { opened, type InterceptListener, type ListenerDeps } from './tcp-intercept.js';
import type { Intercept } from './intercept-plan.js';

export const UDP_IDLE_MS = 60_000;
const PENDING_MAX = 64;
const WRITE_BACKLOG_MAX = 1024 * 1024;

interface Flow {
  conn?: Duplex;
  pending: Buffer[];
  timer?: NodeJS.Timeout;
  ended: boolean;
}

/** Binds the intercept's local address:port; rejects with the bind error (EADDRINUSE, EACCES, …). */
export function listenUdp(intercept: Intercept, deps: ListenerDeps & { idleMs?: number }): Promise<InterceptListener> {
  const idleMs = deps.idleMs ?? UDP_IDLE_MS;
  const socket = createSocket({ type: isIPv6(intercept.listenHost) ? 'udp6' : 'udp4', reuseAddr: false });
  const flows = new Map<string, Flow>();
  let closed = false;

  const endFlow = (key: string, flow: Flow) => {
    if (flow.ended) return;
    flow.ended = true;
    flows.delete(key);
    if (flow.timer) clearTimeout(flow.timer);
    flow.conn?.destroy();
  };
  const touch = (key: string, flow: Flow) => {
    if (flow.timer) clearTimeout(flow.timer);
    flow.timer = setTimeout(() => endFlow(key, flow), idleMs);
    flow.timer.unref();
  };
  const forward = (flow: Flow, datagram: Buffer) => {
    if (flow.conn && flow.conn.writableLength <= WRITE_BACKLOG_MAX) flow.conn.write(datagram);
  };

  function open(key: string, rinfo: RemoteInfo): Flow {
    const flow: Flow = { pending: [], ended: false };
    flows.set(key, flow);
    deps.dial(intercept, { address: rinfo.address, port: rinfo.port }).then(
      (conn) => {
        if (flow.ended || closed) return void conn.destroy();
        flow.conn = conn;
        conn.on('data', (datagram: Buffer) => {
          touch(key, flow);
          if (!closed) socket.send(datagram, rinfo.port, rinfo.address);
        });
        conn.once('error', () => endFlow(key, flow));
        conn.once('close', () => endFlow(key, flow));
        // The service ended its side: it sends no more, and a UDP flow has no half-open state worth keeping.
        conn.once('end', () => endFlow(key, flow));
        for (const datagram of flow.pending.splice(0)) forward(flow, datagram);
      },
      (error: Error) => {
        deps.report(`service '${intercept.serviceName}': the dial for ${rinfo.address}:${rinfo.port} (udp ${intercept.listenHost}:${intercept.listenPort}) failed: ${error.message}`);
        endFlow(key, flow);
      },
    );
    return flow;
  }

  socket.on('message', (datagram, rinfo) => {
    const key = `${rinfo.address} ${rinfo.port}`;
    const flow = flows.get(key) ?? open(key, rinfo);
    touch(key, flow);
    if (flow.conn) forward(flow, datagram);
    else if (flow.pending.length < PENDING_MAX) flow.pending.push(datagram);
  });

  return opened(
    socket,
    (ready) => socket.bind({ address: intercept.listenHost, port: intercept.listenPort, exclusive: true }, ready),
    () =>
      new Promise<void>((done) => {
        closed = true;
        for (const [key, flow] of [...flows]) endFlow(key, flow);
        socket.close(() => done());
      }),
  );
}
