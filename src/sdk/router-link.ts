/**
 * One router's edge channel as the SDK keeps it (reference/edge-router-protocol-facts.md §1, §2): TLS with the
 * identity's certificate and key, the controller's CAs trusted, SNI and host check on the router URL's host, ALPN
 * `ziti-edge`; then the Hello carrying the API session token (1002). Edge messages are handed to the connection that
 * owns their ConnId; one for an unknown id is answered StateClosed, as the C SDK does. A Latency probe goes out
 * every minute and a channel that stays silent past its answer's deadline is closed. A channel lost for any reason
 * but `close()` is dialled again after a random wait that doubles with each failure (0.5-1 s, up to 16-32 s).
 */
import { hostname } from 'node:os';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { dialHello, type Channel } from '../channel/channel.js';
import { ContentType, encode, Header, read, type Message, type OutboundMessage } from '../channel/message.js';
import { SdkError } from './errors.js';
import type { FlowControl } from './connection.js';
import { EDGE_ALPN, EdgeHeader, EdgeType } from '../channel/edge-protocol.js';

const CONNECT_TIMEOUT_MS = 20_000;
const LATENCY_EVERY_MS = 60_000;
const LATENCY_DEADLINE_MS = 10_000;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_DOUBLINGS = 5;

export interface LinkCredentials {
  certPem: string;
  keyPem: string;
  /** The CAs a router certificate must chain to. */
  caPem: string;
  /** The current API session token, read at each (re)connect. */
  token(): string;
}

/** What a connection registered on a link receives. */
export interface LinkConn {
  /** 1 dial, 2 bind (ConnInspect's ConnType). */
  readonly type: 1 | 2;
  onMessage(m: Message): void;
  /** The channel went away under this connection. */
  onLinkLost(reason: string): void;
  /** A line for ConnInspectResponse. */
  describe(): string;
}

export interface RouterLink extends FlowControl {
  readonly name: string;
  readonly url: string;
  readonly connected: boolean;
  readonly latencyMs: number | undefined;
  /** The open channel, waiting for a (re)connect; rejects with NO_ROUTER when the first attempt fails. */
  ready(): Promise<Channel>;
  register(connId: number, conn: LinkConn): void;
  unregister(connId: number): void;
  /** `listener` is called after every successful reconnect (not the first connect); the answer unsubscribes. */
  onReconnect(listener: () => void): () => void;
  /**
   * Passes a refreshed token: UpdateToken for a JWT; a legacy token, or one the router refuses, is taken by
   * reconnecting (the new Hello carries it). Resolves with what was done.
   */
  updateToken(token: string): Promise<'updated' | 'reconnecting' | 'not-connected'>;
  close(): void;
}

let linkCount = 0;

function splitUrl(url: string): { host: string; port: number } {
  const m = /^tls:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(url);
  if (!m) throw new SdkError('NO_ROUTER', `router address '${url}' is not tls://host:port`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

function openTls(url: string, creds: LinkCredentials): Promise<TLSSocket> {
  const { host, port } = splitUrl(url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, cert: creds.certPem, key: creds.keyPem, ca: creds.caPem, ALPNProtocols: [EDGE_ALPN], ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }) });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS handshake within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Connects to `name` at `url` (`tls://host:port`) and keeps it connected until closed. */
export function routerLink(name: string, url: string, creds: LinkCredentials, log?: Logger): RouterLink {
  const index = linkCount++;
  const conns = new Map<number, LinkConn>();
  const reconnectListeners = new Set<() => void>();
  let channel: Channel | undefined;
  let socket: TLSSocket | undefined;
  // Connections whose reader is full: the socket stays paused while any is.
  const congested = new Set<number>();
  let closed = false;
  let failures = 0;
  let everConnected = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;

  function dispatch(ch: Channel, m: Message): void {
    if (m.contentType === EdgeType.ConnInspectRequest) {
      const conn = conns.get(read.u32(m, EdgeHeader.ConnId) ?? -1);
      ch.reply(m, { contentType: EdgeType.ConnInspectResponse, headers: [[EdgeHeader.ConnType, encode.u8(conn?.type ?? 0)]], body: conn?.describe() ?? 'invalid connection' });
      return;
    }
    const connId = read.u32(m, EdgeHeader.ConnId);
    if (connId === undefined) return;
    const conn = conns.get(connId);
    if (conn) conn.onMessage(m);
    else if (m.contentType !== EdgeType.StateClosed && m.contentType >= EdgeType.Connect && m.contentType <= EdgeType.Unbind) {
      ch.send({ contentType: EdgeType.StateClosed, headers: [[EdgeHeader.ConnId, encode.u32(connId)]], body: 'unknown connection' });
    }
  }

  function probe(ch: Channel): void {
    probeTimer = setInterval(() => {
      const before = ch.stats.bytesIn;
      ch.request({ contentType: ContentType.Latency, headers: [[Header.Reflected, encode.u64(Date.now())]] }, LATENCY_DEADLINE_MS).catch(() => {
        // As the C SDK: only a channel that also read nothing meanwhile is taken for dead.
        if (ch.stats.bytesIn === before) ch.close('no answer to a latency probe');
      });
    }, LATENCY_EVERY_MS);
    probeTimer.unref();
  }

  async function connectOnce(): Promise<Channel> {
    const tls = await openTls(url, creds);
    const hello: OutboundMessage = {
      contentType: ContentType.Hello,
      headers: [
        [EdgeHeader.SessionToken, encode.string(creds.token())],
        [EdgeHeader.SupportsInspect, encode.bool(true)],
        [Header.Type, encode.string('edge.default')],
      ],
      body: `svc-sdk-ts[${index}]@${hostname()}`,
    };
    const { channel: ch } = await dialHello(tls, hello, { timeoutMs: CONNECT_TIMEOUT_MS, heartbeat: false, id: `sdk-${name}` });
    ch.onMessage((m) => dispatch(ch, m));
    ch.onClose(({ reason }) => lost(ch, reason));
    probe(ch);
    socket = tls;
    congested.clear();
    return ch;
  }

  function lost(ch: Channel, reason: string): void {
    if (channel !== ch) return;
    channel = undefined;
    if (probeTimer) clearInterval(probeTimer);
    for (const [, conn] of [...conns]) conn.onLinkLost(`the channel to router ${name} closed: ${reason}`);
    if (closed) return;
    log?.info({ router: name, reason }, 'svc sdk: router channel lost; reconnecting');
    current = nextWaiting();
    attempt();
  }

  /** The promise `ready()` hands out until the next attempt settles: each failed attempt rejects its own. */
  function nextWaiting(): { promise: Promise<Channel>; resolve(ch: Channel): void; reject(e: Error): void } {
    let resolve!: (ch: Channel) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<Channel>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined);
    return { promise, resolve, reject };
  }

  function attempt(): void {
    retryTimer = undefined;
    const pending = current;
    if (closed) return pending.reject(new SdkError('CLOSED', `the link to router ${name} is closed`));
    connectOnce().then(
      (ch) => {
        if (closed) {
          ch.close('the SDK context closed');
          return pending.reject(new SdkError('CLOSED', `the link to router ${name} is closed`));
        }
        failures = 0;
        channel = ch;
        const again = everConnected;
        everConnected = true;
        pending.resolve(ch);
        if (again) for (const listener of [...reconnectListeners]) listener();
      },
      (error: Error) => {
        failures++;
        const base = BACKOFF_FIRST_MS * 2 ** Math.min(failures - 1, BACKOFF_MAX_DOUBLINGS);
        const wait = base / 2 + Math.random() * (base / 2);
        log?.warn({ router: name, err: error.message, retryInMs: Math.round(wait) }, 'svc sdk: could not connect to router');
        current = nextWaiting();
        pending.reject(new SdkError('NO_ROUTER', `could not connect to router ${name} at ${url}: ${error.message}`, { cause: error }));
        retryTimer = setTimeout(attempt, wait);
        retryTimer.unref();
      },
    );
  }

  let current = nextWaiting();
  attempt();

  return {
    name,
    url,
    get connected() {
      return channel !== undefined && !channel.closed;
    },
    get latencyMs() {
      return channel?.latencyMs;
    },
    ready: () => (channel && !channel.closed ? Promise.resolve(channel) : current.promise),
    register: (connId, conn) => void conns.set(connId, conn),
    unregister(connId) {
      conns.delete(connId);
      this.resume(connId);
    },
    pause(connId) {
      congested.add(connId);
      socket?.pause();
    },
    resume(connId) {
      if (congested.delete(connId) && congested.size === 0 && channel && !channel.closed) socket?.resume();
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    async updateToken(token) {
      const ch = channel;
      if (!ch) return 'not-connected';
      // Only a JWT can be swapped in place (the router checks it belongs to the same API session); a new legacy token
      // is presented in a new Hello.
      if (!token.startsWith('ey')) {
        ch.close('the API session token changed');
        return 'reconnecting';
      }
      try {
        const answer = await ch.request({ contentType: EdgeType.UpdateToken, body: token }, LATENCY_DEADLINE_MS);
        if (answer.contentType === EdgeType.UpdateTokenSuccess) return 'updated';
        ch.close(`the router refused the refreshed token: ${answer.body.toString('utf8')}`);
      } catch {
        ch.close('no answer to UpdateToken');
      }
      return 'reconnecting';
    },
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (probeTimer) clearInterval(probeTimer);
      channel?.close('the SDK context closed');
    },
  };
}
