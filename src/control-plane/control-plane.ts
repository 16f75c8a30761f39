/**
 * The controller's side of the control channel (issue 41; docs/control-protocol.md; decision 0062): a TLS listener
 * on `ctrl.listener` that requires a client certificate chained to the controller's CAs, identifies the router by
 * that certificate's fingerprint alone (never by anything the router claims: an upstream advisory was exactly that
 * mistake), exchanges the Hello, records the router's presence, and from then on pushes trust material, revocations
 * and endpoints, answers the router's requests, and closes the channel the moment the router is deleted, disabled or
 * re-enrolled. Since issue 43 it also pushes each router its link peers (every other online router, whole, only when
 * its list changed) and forgets a router's links when its channel closes here.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { acceptHello, encode, type Channel } from '../channel/index.js';
import { CONTROL_LIMITS, CONTROL_PROTOCOL_VERSION, ControlErrorCode, ControlHeader, ControlType, controlTypeName } from '../control-protocol/catalogue.js';
import { ControlBodyError, readBody, RouterHelloSchema, writeBody, type Endpoints, type HelloAnswer, type Peers, type Revocation, type RouterHello } from '../control-protocol/bodies.js';
import { success } from '../control-protocol/results.js';
import type { RouterControlService, RouterStanding } from '../services/routers/router-control.js';
import type { RouterPresence } from '../services/routers/presence.js';
import type { ControlPlaneMetrics } from './metrics.js';
import { handleRouterMessages } from './router-requests.js';

export interface ControlPlaneOptions {
  listen: { host: string; port: number };
  tls: { key: string; cert: string; ca: readonly string[] };
  controller: { id: string; name: string };
  service: RouterControlService;
  presence: RouterPresence;
  /** The controllers and API address routers should know, read when a router connects and when they change. */
  endpoints: () => Promise<Endpoints>;
  metrics: ControlPlaneMetrics;
  log: Logger;
  heartbeat?: { sendIntervalMs: number; checkIntervalMs: number; closeUnresponsiveMs: number };
  /** Time allowed from TCP accept to a complete Hello (TLS included). */
  helloTimeoutMs?: number;
  /** Handshakes not yet through their Hello, at most; more are closed at once (a connection flood costs nothing). */
  maxPendingConnections?: number;
  /** A router whose unsent data exceeds this is too slow to follow pushes: its channel is closed. */
  maxBufferedBytes?: number;
}

export interface ControlPlane {
  /** The address actually listened on (port 0 resolved). */
  readonly address: { host: string; port: number };
  /** Routers with a control channel to this controller now. */
  connectedRouters(): number;
  /** Whether router `id` has a control channel here. */
  isConnected(id: string): boolean;
  /** Sends revocations to every connected router. */
  revoke(items: Revocation[]): void;
  /** Re-reads a router's standing (`*`: every connected router's) and closes those that may no longer be connected. */
  recheck(routerId: string): Promise<void>;
  /** Reads the trust state again and sends it to every router if it changed. */
  refreshTrust(): Promise<void>;
  /** Reads the endpoints again and sends them to every router if they changed. */
  refreshEndpoints(): Promise<void>;
  /** Reads the online routers again and sends each router its peers if they changed for it. */
  refreshPeers(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_HEARTBEAT = { sendIntervalMs: 10_000, checkIntervalMs: 1_000, closeUnresponsiveMs: 30_000 };

interface Session {
  router: RouterStanding;
  fingerprint: string;
  channel: Channel;
  socket: TLSSocket;
  /** Set once the trust state went out: pushes that depend on it (peers) wait for it. */
  ready: boolean;
  /** The peers last sent, as JSON: sent again only when different. */
  sentPeers?: string;
}

/** The most link listeners of one router a Peers push carries (the schema's bound). */
const MAX_PEER_LISTENERS = 8;

/** Lowercase hex SHA-1 of the DER, as router fingerprints are stored (decision 0038). */
const fingerprintOf = (der: Buffer) => createHash('sha1').update(der).digest('hex');

export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { service, presence, metrics, log } = options;
  const heartbeat = options.heartbeat ?? DEFAULT_HEARTBEAT;
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
  const maxPending = options.maxPendingConnections ?? 1_000;
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1_048_576;
  const sessions = new Map<string, Session>();
  const sockets = new Set<TLSSocket>();
  let pending = 0;
  let closing = false;

  const send = (session: Session, contentType: number, body: unknown) => {
    if (session.channel.closed) return;
    if (session.socket.writableLength > maxBuffered) {
      session.channel.close(`the router reads too slowly: more than ${maxBuffered} bytes wait to be sent`);
      return;
    }
    metrics.controlMessage('out', controlTypeName(contentType));
    session.channel.send({ contentType, body: writeBody(body) });
  };

  const trust = pushedState(() => service.trustState());
  const endpoints = pushedState(() => options.endpoints());

  /** Why `standing` may not hold a channel made with `fingerprint`, or undefined when it may. */
  function standingProblem(standing: RouterStanding | undefined, fingerprint: string, atHello: boolean): { code: ControlErrorCode; sentence: string } | undefined {
    if (!standing) return { code: ControlErrorCode.UnknownRouter, sentence: `no router holds the client certificate with fingerprint ${fingerprint}: it was deleted, re-enrolled or renewed; enroll the router again` };
    if (standing.disabled) return { code: ControlErrorCode.RouterDisabled, sentence: `router ${standing.name} is disabled by an administrator` };
    if (standing.fingerprint === null) return { code: ControlErrorCode.UnknownRouter, sentence: `router ${standing.name} was re-enrolled: its certificate is no longer valid` };
    // After a renewal the channel made with the previous certificate stays (the router switches without dropping it),
    // but a new connection must present the current one.
    if (atHello && standing.fingerprint !== fingerprint) return { code: ControlErrorCode.UnknownRouter, sentence: `router ${standing.name} holds a newer certificate than the one presented` };
    return undefined;
  }

  async function admit(socket: TLSSocket): Promise<void> {
    const peer = socket.getPeerCertificate(false);
    const fingerprint = fingerprintOf(peer.raw);
    const { hello, accept, reject } = await acceptHello(socket, { timeoutMs: helloTimeoutMs, limits: CONTROL_LIMITS, heartbeat });
    const refuse = (code: ControlErrorCode, sentence: string) => {
      log.warn({ fingerprint, remote: socket.remoteAddress, code }, `a router connection was refused: ${sentence}`);
      reject(sentence, new Map([[ControlHeader.ErrorCode, Buffer.from(code, 'utf8')]]));
    };
    const version = hello.headers.get(ControlHeader.ProtocolVersion);
    if (!version || version.length < 4 || version.readUInt32LE(0) !== CONTROL_PROTOCOL_VERSION) {
      refuse(ControlErrorCode.UnsupportedVersion, `this controller speaks svc control protocol ${CONTROL_PROTOCOL_VERSION}; the Hello announced ${version && version.length >= 4 ? version.readUInt32LE(0) : 'none'}`);
      return;
    }
    let body: RouterHello;
    try {
      body = readBody(RouterHelloSchema, hello.body, 'Hello');
    } catch (error) {
      if (error instanceof ControlBodyError) return refuse(ControlErrorCode.BadMessage, error.message);
      throw error;
    }
    let standing: RouterStanding | undefined;
    try {
      standing = await service.identify(fingerprint);
    } catch (error) {
      log.warn({ err: error }, 'a router could not be identified: the store did not answer');
      return refuse(ControlErrorCode.Unavailable, 'the controller cannot read its store now; retry');
    }
    const problem = standingProblem(standing, fingerprint, true);
    if (problem || !standing) return refuse(problem?.code ?? ControlErrorCode.UnknownRouter, problem?.sentence ?? 'unknown router');
    if (closing) return refuse(ControlErrorCode.Unavailable, 'the controller is shutting down');

    const answer: HelloAnswer = { protocol: CONTROL_PROTOCOL_VERSION, routerId: standing.id, routerName: standing.name, controllerId: options.controller.id, controllerName: options.controller.name };
    const reply = success(answer);
    (reply.headers as Map<number, Buffer>).set(ControlHeader.ProtocolVersion, encode.u32(CONTROL_PROTOCOL_VERSION));
    const channel = accept(reply);
    const session: Session = { router: standing, fingerprint, channel, socket, ready: false };

    // The newest connection of a router wins: the older one is a router that restarted before its peer noticed.
    sessions.get(standing.id)?.channel.close('replaced by a newer connection of the same router');
    sessions.set(standing.id, session);
    channel.onClose(({ reason }) => {
      if (sessions.get(standing.id) !== session) return;
      sessions.delete(standing.id);
      log.info({ router: standing.name, routerId: standing.id, reason }, `router ${standing.name} disconnected: ${reason}`);
      if (closing) return;
      presence
        .disconnected(standing.id)
        .then(() => refreshPeers())
        .catch((error) => log.warn({ err: error, router: standing.name }, 'the router could not be recorded offline'));
      service.disconnected(session.router).catch((error) => log.warn({ err: error, router: standing.name }, "the router's links could not be forgotten"));
    });
    handleRouterMessages({ channel, router: () => session.router, service, metrics, log });
    await presence.connected(standing.id, { ...body, version: body.versionInfo.version });
    log.info({ router: standing.name, routerId: standing.id, version: body.versionInfo.version, hostname: body.hostname, remote: socket.remoteAddress }, `router ${standing.name} connected`);
    send(session, ControlType.TrustState, (await trust.current()).value);
    send(session, ControlType.Endpoints, (await endpoints.current()).value);
    session.ready = true;
    // The new router learns its peers, and every other router learns of it.
    await refreshPeers().catch((error: unknown) => log.warn({ err: error }, 'the online routers could not be read for the peers push; the poll retries'));
  }

  /** Sends each ready router the online routers but itself when that list differs from what it was last sent. */
  async function pushPeers(): Promise<void> {
    const online = await presence.onlineRouters();
    for (const session of sessions.values()) {
      if (!session.ready) continue;
      const peers: Peers = {
        routers: online
          .filter((router) => router.id !== session.router.id)
          .map((router) => ({ id: router.id, name: router.name, fingerprint: router.fingerprint, links: router.linkListeners.slice(0, MAX_PEER_LISTENERS) })),
      };
      const text = JSON.stringify(peers);
      if (text === session.sentPeers) continue;
      session.sentPeers = text;
      send(session, ControlType.Peers, peers);
    }
  }

  // One push at a time, so no router gets an older list after a newer one; a change seen meanwhile runs one more.
  let peersRun: Promise<void> | undefined;
  let peersAgain = false;
  function refreshPeers(): Promise<void> {
    if (peersRun) {
      peersAgain = true;
      return peersRun;
    }
    const run = (async () => {
      try {
        do {
          peersAgain = false;
          await pushPeers();
        } while (peersAgain && !closing);
      } finally {
        peersRun = undefined;
      }
    })();
    peersRun = run;
    return run;
  }

  const server: Server = createServer({
    key: options.tls.key,
    cert: options.tls.cert,
    ca: [...options.tls.ca],
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    handshakeTimeout: helloTimeoutMs,
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    if (closing || pending >= maxPending) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    pending++;
    admit(socket)
      .catch((error) => {
        log.warn({ err: error, remote: socket.remoteAddress }, `a router connection failed before its Hello completed: ${(error as Error).message}`);
        socket.destroy();
      })
      .finally(() => pending--);
  });
  // A certificate the TLS layer refuses (expired, foreign CA, none) ends here: one line naming why.
  server.on('tlsClientError', (error, socket) => {
    log.warn({ remote: socket.remoteAddress, reason: error.message }, `a router connection was refused in the TLS handshake: ${error.message}`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log.warn({ err: error }, 'the control listener reported an error'));
  // Each channel's latest heartbeat round trip, observed once per heartbeat interval by one timer for all routers.
  const latencies = setInterval(() => {
    for (const session of sessions.values()) if (session.channel.latencyMs !== undefined) metrics.heartbeatLatency(session.channel.latencyMs / 1000);
  }, heartbeat.sendIntervalMs);
  latencies.unref();
  const bound = server.address();
  const address = typeof bound === 'object' && bound ? { host: options.listen.host, port: bound.port } : options.listen;

  async function recheckOne(session: Session) {
    const standing = await service.standing(session.router.id);
    const problem = standingProblem(standing, session.fingerprint, false);
    if (problem) {
      log.info({ router: session.router.name, code: problem.code }, `router ${session.router.name}: closing its control channel: ${problem.sentence}`);
      session.channel.close(problem.sentence);
      return;
    }
    if (standing) session.router = standing;
  }

  return {
    address,
    connectedRouters: () => sessions.size,
    isConnected: (id) => sessions.has(id),
    revoke(items) {
      for (const session of sessions.values()) send(session, ControlType.Revocations, { items });
    },
    async recheck(routerId) {
      const targets = routerId === '*' ? [...sessions.values()] : [sessions.get(routerId)].filter((s): s is Session => s !== undefined);
      for (const session of targets) await recheckOne(session);
      // A renewed certificate (new fingerprint) or a disabled router changes what the other routers are told.
      await refreshPeers();
    },
    async refreshTrust() {
      const changed = await trust.reread();
      if (changed) for (const session of sessions.values()) send(session, ControlType.TrustState, changed);
    },
    async refreshEndpoints() {
      const changed = await endpoints.reread();
      if (changed) for (const session of sessions.values()) send(session, ControlType.Endpoints, changed);
    },
    refreshPeers,
    async close() {
      closing = true;
      clearInterval(latencies);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions.values()) session.channel.close('the controller is shutting down');
        for (const socket of sockets) socket.destroy();
      });
      sessions.clear();
    },
  };
}

/**
 * What the controller pushes to every router (trust state, endpoints): read once and kept; `reread` reads it again
 * and answers the new value only when it differs, so routers are sent a state only when it changed.
 */
function pushedState<T>(read: () => Promise<T>) {
  let kept: { value: T; text: string } | undefined;
  const load = async () => {
    const value = await read();
    return { value, text: JSON.stringify(value) };
  };
  return {
    async current(): Promise<{ value: T }> {
      kept ??= await load();
      return kept;
    },
    async reread(): Promise<T | undefined> {
      const before = kept?.text;
      const now = await load();
      kept = now;
      return now.text === before ? undefined : now.value;
    },
  };
}
