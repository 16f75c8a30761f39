/**
 * Builders for the router tunnel's tests (issue 43): a recording control client (the seam the tunnel asks the
 * controller through; it records what it was asked and answers from a table), a recording circuit end standing for
 * the fabric's side of a circuit, real TCP and UDP targets on loopback, and a dial that joins a proxy end to a host
 * egress on one router as the fabric would. Builders return values and never assert.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import pino, { type Logger } from 'pino';
import type { HelloAnswer } from '../../src/control-protocol/bodies.js';
import { ControlRefusal } from '../../src/control-protocol/results.js';
import type { CircuitEnd, Payload } from '../../src/router/fabric/circuit-end.js';
import type { HostEgress } from '../../src/router/tunnel/host-egress.js';
import type { ProxyDial } from '../../src/router/tunnel/proxy-listeners.js';

export interface Asked {
  contentType: number;
  body: unknown;
}

/** A control client that records requests and answers each with `answer(contentType, body)` (a value or a thrown refusal). */
export function recordingControl(answer: (contentType: number, body: any, index: number) => unknown) {
  const asked: Asked[] = [];
  const controller: HelloAnswer = { protocol: 1, routerId: 'er1-id', routerName: 'er1', controllerId: 'c1', controllerName: 'ctrl' };
  return {
    asked,
    connected: true,
    controller,
    async request(contentType: number, body: unknown): Promise<any> {
      asked.push({ contentType, body });
      return answer(contentType, body, asked.length - 1);
    },
  };
}

export const refusal = (code: string, sentence: string) => new ControlRefusal(code, sentence);

/** A logger whose lines (parsed) land in `lines`. */
export function recordingLog(): { log: Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** A circuit end standing for the fabric's side: records payloads and its end; `queued` is set by the test. */
export function recordingEnd(label = 'test end') {
  const payloads: Payload[] = [];
  const drainListeners: Array<() => void> = [];
  const state = { queued: 0, ended: undefined as string | undefined, pauses: 0, resumes: 0 };
  let onPayload: (() => void) | undefined;
  let onEnd: (() => void) | undefined;
  const end: CircuitEnd = {
    label,
    send(payload) {
      payloads.push(payload);
      onPayload?.();
    },
    end(reason) {
      state.ended = reason;
      onEnd?.();
    },
    get queued() {
      return state.queued;
    },
    onceDrained: (listener) => void drainListeners.push(listener),
    pause: () => void state.pauses++,
    resume: () => void state.resumes++,
  };
  return {
    end,
    payloads,
    state,
    drainListeners,
    /** Resolves once `test(payloads)` holds (checked at each payload). */
    until(test: (payloads: Payload[]) => boolean): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (test(payloads)) {
            onPayload = undefined;
            resolve();
          }
        };
        onPayload = check;
        check();
      });
    },
    ended(): Promise<string> {
      return new Promise((resolve) => {
        if (state.ended !== undefined) return resolve(state.ended);
        onEnd = () => resolve(state.ended!);
      });
    },
  };
}

/** A TCP server on loopback handing each connection (half-open allowed) to `onSocket`. */
export async function tcpTarget(onSocket: (socket: Socket) => void, port = 0): Promise<{ server: Server; port: number; sockets: Set<Socket>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An echo server: every byte comes back; EOF is answered with EOF. */
export const echoTarget = () => tcpTarget((socket) => socket.pipe(socket));

/** A UDP echo server on loopback that prefixes each datagram with `echo:`. */
export async function udpEchoTarget(): Promise<{ socket: UdpSocket; port: number; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  socket.on('message', (message, from) => socket.send(Buffer.concat([Buffer.from('echo:'), message]), from.port, from.address));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const target = await tcpTarget(() => undefined);
  await target.close();
  return target.port;
}

/** Reads a socket to its EOF. */
export function readAll(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('end', () => resolve(Buffer.concat(chunks)));
    socket.once('error', reject);
  });
}

/**
 * The fabric's dial for one router that hosts the service itself: the proxy's end meets the host egress directly,
 * the dialer's public key going one way and the hoster's the other, as DialRequest and the route would carry them.
 */
export function dialThrough(egress: HostEgress, terminatorId: string, encryptionRequired: boolean, identityId = 'er1-id'): ProxyDial {
  let circuits = 0;
  return async (request, end) => {
    const publicKey = request.publicKeyFor(encryptionRequired);
    const circuitId = `circuit-${++circuits}`;
    const accepted = await egress.dial(
      { circuitId, terminatorId, serviceId: 'svc1', dialer: { identityId, identityName: request.identityName, ...request.dialer, ...(publicKey ? { publicKey } : {}) } },
      end,
    );
    return { circuitId, serviceId: 'svc1', peer: accepted.end, encryptionRequired, ...(accepted.publicKey ? { publicKey: accepted.publicKey } : {}) };
  };
}
