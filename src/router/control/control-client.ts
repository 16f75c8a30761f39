/**
 * The router's side of the control channel (docs/control-protocol.md; decision 0062): connects to a controller over
 * mutual TLS with the router's client certificate, trusting only the pinned CA bundle, says Hello, and keeps the
 * channel up: on any loss it tries the next known controller after a backoff (the file's `ctrl.options.reconnect`),
 * with jitter so that a thousand routers of a restarted controller do not return in one instant. What the controller
 * pushes (trust state, revocations, endpoints) goes to the handlers given; requests go out through `request`.
 */
import { connect, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Static, TSchema } from 'typebox';
import { dialHello, encode, HelloRefusedError, type Channel, type Message } from '../../channel/index.js';
import { parseHostPort } from '../../config/host-port.js';
import { CONTROL_LIMITS, CONTROL_PROTOCOL_VERSION, ControlErrorCode, ControlHeader, ControlType } from '../../control-protocol/catalogue.js';
import {
  EmptySchema,
  EndpointsSchema,
  HelloAnswerSchema,
  PeersSchema,
  readBody,
  RevocationsSchema,
  TrustStateSchema,
  writeBody,
  type Endpoints,
  type HelloAnswer,
  type Peers,
  type Revocation,
  type RouterHello,
  type TrustState,
} from '../../control-protocol/bodies.js';
import { ControlRefusal, readAnswer } from '../../control-protocol/results.js';

export interface Backoff {
  minMs: number;
  maxMs: number;
  factor: number;
}

export interface ControlClientOptions {
  /** The controllers to try, `tls:host:port`, in order; read again before every attempt (it changes as controllers come and go). */
  endpoints: () => readonly string[];
  /** The router's key, certificate chain and pinned CA bundle; read again before every attempt (renewal replaces them). */
  tls: () => { key: string; cert: string; ca: string } | Promise<{ key: string; cert: string; ca: string }>;
  hello: RouterHello;
  connectTimeoutMs: number;
  reconnect: Backoff;
  heartbeat: { sendIntervalMs: number; checkIntervalMs: number; closeUnresponsiveMs: number };
  log: Logger;
  handlers: {
    connected?(answer: HelloAnswer, endpoint: string): void;
    disconnected?(reason: string): void;
    trust?(state: TrustState): void;
    revocations?(items: Revocation[]): void;
    endpoints?(endpoints: Endpoints): void;
    /** The other online routers (links). */
    peers?(peers: Peers): void;
    /** Every control message in or out, by content type (the router's metrics). */
    message?(direction: 'in' | 'out', contentType: number): void;
    /** A controller refused the Hello: code and sentence. */
    refused?(code: string, sentence: string): void;
  };
  /** Randomness for the jitter (tests pass a fixed one); Math.random by default. */
  random?: () => number;
}

export interface ControlClient {
  /** Connected to a controller now (Hello accepted, channel up). */
  readonly connected: boolean;
  /** The controller connected to, as its Hello answer named it. */
  readonly controller: HelloAnswer | undefined;
  readonly latencyMs: number | undefined;
  /** Sends a request and reads its answer against `schema`; ControlRefusal when the controller refuses it. */
  request<S extends TSchema>(contentType: number, body: unknown, schema: S, timeoutMs: number): Promise<Static<S>>;
  /** Sends a notice (no answer); false when no channel is up. */
  notify(contentType: number, body: unknown): boolean;
  /** Resolves when a controller answered an application ping within `timeoutMs` (the health check). */
  ping(timeoutMs: number): Promise<void>;
  /** Closes the channel and stops reconnecting. */
  stop(): Promise<void>;
}

/** `tls:host:port` -> host and port; IPv6 in brackets. */
export function parseControllerAddress(address: string): { host: string; port: number } {
  const match = /^tls:(.+)$/.exec(address);
  const parsed = match?.[1] ? parseHostPort(match[1]) : undefined;
  if (!parsed || !parsed.ok) throw new Error(`'${address}' is not a controller address; expected tls:<host>:<port>`);
  return { host: parsed.value.host, port: parsed.value.port };
}

/** The wait before attempt `attempt` (0-based): exponential, capped, with jitter between half and all of it. */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number): number {
  const full = Math.min(backoff.maxMs, backoff.minMs * backoff.factor ** attempt);
  return Math.round(full / 2 + (random() * full) / 2);
}

export function startControlClient(options: ControlClientOptions): ControlClient {
  const { log, handlers } = options;
  const random = options.random ?? Math.random;
  let channel: Channel | undefined;
  let controller: HelloAnswer | undefined;
  let stopped = false;
  let attempt = 0;
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  let socket: TLSSocket | undefined;

  function schedule(reason: string) {
    if (stopped) return;
    const delay = backoffDelay(options.reconnect, attempt, random);
    attempt++;
    log.debug({ delayMs: delay, reason }, 'reconnecting to a controller after a pause');
    // Not unref'd: while it waits to reconnect, this timer is what keeps a router process alive.
    timer = setTimeout(() => void tryConnect(), delay);
  }

  function onPush(message: Message) {
    handlers.message?.('in', message.contentType);
    try {
      switch (message.contentType) {
        case ControlType.TrustState:
          handlers.trust?.(readBody(TrustStateSchema, message.body, 'TrustState'));
          return;
        case ControlType.Revocations:
          handlers.revocations?.(readBody(RevocationsSchema, message.body, 'Revocations').items);
          return;
        case ControlType.Endpoints:
          handlers.endpoints?.(readBody(EndpointsSchema, message.body, 'Endpoints'));
          return;
        case ControlType.Peers:
          handlers.peers?.(readBody(PeersSchema, message.body, 'Peers'));
          return;
        default:
          log.warn({ contentType: message.contentType }, `the controller sent content type ${message.contentType}, which this router does not know; ignored`);
      }
    } catch (error) {
      log.warn({ err: error }, `a control message from the controller was ignored: ${(error as Error).message}`);
    }
  }

  async function tryConnect(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    const list = options.endpoints();
    const endpoint = list[next % Math.max(1, list.length)];
    next++;
    if (!endpoint) return schedule('no controller address is known');
    let target: { host: string; port: number };
    let tls: { key: string; cert: string; ca: string };
    try {
      target = parseControllerAddress(endpoint);
      tls = await options.tls();
    } catch (error) {
      log.error({ err: error }, (error as Error).message);
      return schedule((error as Error).message);
    }
    try {
      const opened = await openTls(target, tls, options.connectTimeoutMs);
      socket = opened;
      const headers = new Map([[ControlHeader.ProtocolVersion, encode.u32(CONTROL_PROTOCOL_VERSION)]]);
      const { channel: up, reply } = await dialHello(opened, { contentType: 0, headers, body: writeBody(options.hello) }, { timeoutMs: options.connectTimeoutMs, limits: CONTROL_LIMITS, heartbeat: options.heartbeat });
      const answer = readBody(HelloAnswerSchema, reply.body, 'Hello answer');
      if (stopped) {
        up.close('the router is stopping');
        return;
      }
      channel = up;
      controller = answer;
      attempt = 0;
      up.onMessage(onPush);
      up.onClose(({ reason }) => {
        channel = undefined;
        controller = undefined;
        handlers.disconnected?.(reason);
        schedule(reason);
      });
      handlers.connected?.(answer, endpoint);
    } catch (error) {
      socket?.destroy();
      const { code, sentence } = describeFailure(error);
      if (code) handlers.refused?.(code, sentence);
      log.warn({ controller: endpoint, code }, `could not connect to the controller at ${endpoint}: ${sentence}`);
      schedule(sentence);
    }
  }

  void tryConnect();

  return {
    get connected() {
      return channel !== undefined && !channel.closed;
    },
    get controller() {
      return controller;
    },
    get latencyMs() {
      return channel?.latencyMs;
    },
    async request(contentType, body, schema, timeoutMs) {
      const up = channel;
      if (!up || up.closed) throw new ControlRefusal(ControlErrorCode.Unavailable, 'no controller is connected');
      handlers.message?.('out', contentType);
      const answer = await up.request({ contentType, body: writeBody(body) }, timeoutMs);
      return readAnswer(answer, schema, `the answer to content type ${contentType}`);
    },
    notify(contentType, body) {
      const up = channel;
      if (!up || up.closed) return false;
      handlers.message?.('out', contentType);
      up.send({ contentType, body: writeBody(body) });
      return true;
    },
    async ping(timeoutMs) {
      await this.request(ControlType.Ping, {}, EmptySchema, timeoutMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      channel?.close('the router is stopping');
      socket?.destroy();
    },
  };
}

/** A refusal's code and sentence, or a connection failure's sentence. */
function describeFailure(error: unknown): { code?: string; sentence: string } {
  if (error instanceof ControlRefusal) return { code: error.code, sentence: error.message };
  if (error instanceof HelloRefusedError) return { code: error.answer.headers.get(ControlHeader.ErrorCode)?.toString('utf8') ?? 'REFUSED', sentence: error.message };
  return { sentence: (error as Error).message ?? String(error) };
}

function openTls(target: { host: string; port: number }, tls: { key: string; cert: string; ca: string }, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: target.host,
      port: target.port,
      key: tls.key,
      cert: tls.cert,
      ca: tls.ca,
      // The controller's certificate must name the host dialled, as any TLS client checks.
      servername: /^[\d.]+$|:/.test(target.host) ? undefined : target.host,
      minVersion: 'TLSv1.2',
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TLS session within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
