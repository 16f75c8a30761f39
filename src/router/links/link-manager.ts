/**
 * Links between this router and the others (issue 43; docs/link-protocol.md; decision 0069). The file's
 * `link.listeners` accept links from routers the controller names in its Peers push, proven by their enrolled
 * certificate's fingerprint; `link.dialers` dial the listeners of peers that share a link group, with the file's
 * backoff. The dialing side probes each link's latency, marks it stalled when a probe goes unanswered (and closes it
 * after three in a row), and reports its links to the controller, which routes circuits over the ones that are up.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { acceptHello, dialHello, HelloRefusedError, type Channel } from '../../channel/channel.js';
import { DEFAULT_LIMITS, type ChannelProtocolError } from '../../channel/codec.js';
import { ContentType, encode, read } from '../../channel/message.js';
import type { Peer, Peers } from '../../control-protocol/bodies.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import type { ControlClient } from '../control/control-client.js';
import { pauseCounter } from '../fabric/inlet.js';
import { circuitNumbers, type Link } from './link.js';
import { LINK_ALPN, LinkHeader } from './link-protocol.js';

export interface LinkListenerSettings {
  host: string;
  port: number;
  /** `tls:host:port` as other routers dial it. */
  advertise: string;
  groups: string[];
}

export interface LinkDialerSettings {
  groups: string[];
  /** Local address to dial from. */
  bind?: string;
  backoff: { minMs: number; maxMs: number; factor: number };
}

export interface LinkSettings {
  listeners: LinkListenerSettings[];
  dialers: LinkDialerSettings[];
  /** How often the dialing side probes a link's latency; a probe unanswered within this long marks it stalled. */
  probeIntervalMs: number;
}

export interface LinkManager {
  /** Links up now (either side). */
  readonly count: number;
  get(id: string): Link | undefined;
  all(): Link[];
  /** The ports the link listeners bound (a file may say port 0 in tests). */
  readonly ports: number[];
  /** The controller's Peers push. */
  peers(peers: Peers): void;
  /** After every (re)connect to a controller: report the links again. */
  controllerConnected(): void;
  updateTls(tls: LinkTls): void;
  close(): Promise<void>;
}

export interface LinkTls {
  key: string;
  /** The client certificate (dialing). */
  cert: string;
  /** The server certificate (accepting). */
  serverCert: string;
  /** The server certificate's key when it is not `key` (an enrolled router has one key for both). */
  serverKey?: string;
  ca: string;
}

export interface LinkDeps {
  settings: LinkSettings;
  tls: LinkTls;
  control: Pick<ControlClient, 'notify' | 'connected' | 'controller'>;
  /** Messages and closes that belong to circuits. */
  fabric: { linkMessage(link: Link, m: import('../../channel/message.js').Message): void; linkClosed(link: Link, reason: string): void };
  log: Logger;
  random?: () => number;
  metrics?: import('../metrics/fabric-metrics.js').FabricMetrics;
}

const HELLO_TIMEOUT_MS = 10_000;
const REPORT_EVERY_MS = 30_000;
/** A stalled link is closed after this many unanswered probes in a row, and at least STALLED_CLOSE_MS of them. */
const STALLED_CLOSE_AFTER = 3;
const STALLED_CLOSE_MS = 15_000;
/** A router that may be dialed by the peer waits this long first, so that two routers do not dial each other at once. */
const YIELD_TO_LOWER_ID_MS = 2_000;

const shares = (a: readonly string[], b: readonly string[]) => a.some((group) => b.includes(group));

function hostPort(address: string): { host: string; port: number } | undefined {
  const match = /^(?:[a-z]+:)?(.*):(\d+)$/.exec(address);
  if (!match) return undefined;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

export async function startLinks(deps: LinkDeps): Promise<LinkManager> {
  const { settings, control, fabric, log } = deps;
  const random = deps.random ?? Math.random;
  let tls = deps.tls;
  const links = new Map<string, Link>();
  const byFingerprint = new Map<string, Peer>();
  let peerList: Peer[] = [];
  /** Per peer router: a dial under way or waiting for its retry. */
  const dialing = new Map<string, { attempt: number; timer: NodeJS.Timeout | undefined; busy: boolean }>();
  const selfId = () => control.controller?.routerId;
  let stopped = false;

  const report = () => {
    if (!control.connected) return;
    const dialed = [...links.values()].filter((link) => link.dialed);
    control.notify(ControlType.LinkReport, {
      links: dialed.map((link) => ({ id: link.id, peerRouterId: link.peerRouterId, state: link.state, latencyMs: link.latencyMs, dialAddress: link.dialAddress })),
    });
  };
  const reportTimer = setInterval(report, REPORT_EVERY_MS);
  reportTimer.unref();

  /** Opens a Link over a channel whose Hello exchange is done. */
  function register(channel: Channel, socket: TLSSocket, peer: Peer, id: string, dialed: boolean, dialAddress: string): Link {
    const hops = new Map();
    const link: Link = {
      id,
      peerRouterId: peer.id,
      peerName: peer.name,
      dialed,
      dialAddress,
      channel,
      socket,
      state: 'up',
      latencyMs: null,
      hops,
      nextCircuitNumber: circuitNumbers(dialed, (n) => hops.has(n)),
      reading: pauseCounter(socket),
    };
    links.set(id, link);
    channel.onMessage((m) => fabric.linkMessage(link, m));
    let probe: NodeJS.Timeout | undefined;
    if (dialed && settings.probeIntervalMs > 0) probe = startProbes(link);
    channel.onClose(({ reason }) => {
      if (probe) clearInterval(probe);
      links.delete(id);
      fabric.linkClosed(link, reason);
      log.warn({ link: id, peer: peer.name, reason }, `link ${id} to router ${peer.name} closed: ${reason}`);
      deps.metrics?.links(links.size);
      report();
      // A peer still online is dialed again (after the backoff's first step).
      if (dialed && !stopped) scheduleDial(peer.id, settings.dialers[0]?.backoff.minMs ?? 5_000);
    });
    log.info({ link: id, peer: peer.name, dialed }, `link ${id} ${dialed ? 'to' : 'from'} router ${peer.name} is up (${dialAddress})`);
    deps.metrics?.links(links.size);
    report();
    return link;
  }

  function startProbes(link: Link): NodeJS.Timeout {
    let missed = 0;
    const closeAfter = Math.max(STALLED_CLOSE_AFTER, Math.ceil(STALLED_CLOSE_MS / settings.probeIntervalMs));
    const timer = setInterval(() => {
      const sent = Date.now();
      link.channel
        .request({ contentType: ContentType.Latency, headers: [[128, encode.u64(BigInt(sent))]] }, settings.probeIntervalMs)
        .then(() => {
          missed = 0;
          const before = link.latencyMs;
          link.latencyMs = Date.now() - sent;
          deps.metrics?.probe(link.latencyMs / 1000);
          // The controller routes by latency: the first figure and a move of over a fifth are worth a report now.
          const moved = before === null || Math.abs(link.latencyMs - before) > Math.max(1, before / 5);
          if (link.state === 'up' && moved) report();
          if (link.state !== 'up') {
            link.state = 'up';
            log.info({ link: link.id, peer: link.peerName }, `link ${link.id} to router ${link.peerName} answers again (${link.latencyMs} ms)`);
            report();
          }
        })
        .catch(() => {
          if (link.channel.closed) return;
          missed++;
          if (link.state !== 'stalled') {
            link.state = 'stalled';
            log.warn({ link: link.id, peer: link.peerName }, `link ${link.id} to router ${link.peerName} stalled: a latency probe went unanswered for ${settings.probeIntervalMs} ms`);
            report();
          }
          // A stall may pass (a congested path): the link is kept, unused, for a while before it is closed and dialed again.
          if (missed >= closeAfter) link.channel.close(`${missed} latency probes in a row went unanswered`);
        });
    }, settings.probeIntervalMs);
    timer.unref();
    return timer;
  }

  // ---- accepting ----
  const servers: Server[] = [];
  const ports: number[] = [];
  const serverOptions = () => ({ key: tls.serverKey ?? tls.key, cert: tls.serverCert, ca: tls.ca });

  function accept(socket: TLSSocket, listener: LinkListenerSettings): void {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    socket.on('error', () => undefined);
    const raw = socket.getPeerCertificate()?.raw;
    const fingerprint = raw ? createHash('sha1').update(raw).digest('hex') : '';
    const onProtocolError = (error: ChannelProtocolError) => log.info({ remote: socket.remoteAddress, err: error.message }, `a link closed for a malformed frame: ${error.message}`);
    acceptHello(socket, { timeoutMs: HELLO_TIMEOUT_MS, heartbeat: false, answerLatency: true, limits: DEFAULT_LIMITS, onProtocolError })
      .then((pending) => {
        const claimed = read.string(pending.hello, LinkHeader.RouterId) ?? '';
        const id = read.string(pending.hello, LinkHeader.LinkId) ?? '';
        const peer = byFingerprint.get(fingerprint);
        const refuse = (why: string) => {
          log.warn({ remote: socket.remoteAddress, claimed, fingerprint }, `a link was refused: ${why}`);
          pending.reject(why);
        };
        if (!peer) return refuse(`the certificate (SHA-1 ${fingerprint}) is not the current certificate of an enrolled, online router`);
        if (claimed !== peer.id) return refuse(`the Hello names router ${claimed || '(none)'} and the certificate is router ${peer.name}'s`);
        if (!/^[A-Za-z0-9._-]{1,64}$/.test(id) || links.has(id)) return refuse(`link id '${id}' is missing, malformed or already in use`);
        let groups: unknown;
        try {
          groups = (JSON.parse(pending.hello.body.toString('utf8') || '{}') as { groups?: unknown }).groups;
        } catch {
          groups = undefined;
        }
        if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string')) return refuse('the Hello body must be {"groups":[...]}');
        if (!shares(groups as string[], listener.groups)) return refuse(`the dialer's link groups (${(groups as string[]).join(', ')}) share none with this listener's (${listener.groups.join(', ')})`);
        const channel = pending.accept({ contentType: ContentType.Result, headers: [[LinkHeader.RouterId, encode.string(selfId() ?? '')]] });
        register(channel, socket, peer, id, false, `${socket.remoteAddress}:${socket.remotePort}`);
      })
      .catch((error) => {
        log.debug({ err: error, remote: socket.remoteAddress }, `a link did not open: ${(error as Error).message}`);
        socket.destroy();
      });
  }

  for (const listener of settings.listeners) {
    const server = createServer({ ...serverOptions(), requestCert: true, rejectUnauthorized: true, ALPNProtocols: [LINK_ALPN], handshakeTimeout: HELLO_TIMEOUT_MS, minVersion: 'TLSv1.2' });
    server.on('secureConnection', (socket: TLSSocket) => accept(socket, listener));
    server.on('tlsClientError', (error, socket) => {
      log.info({ remote: socket.remoteAddress, err: error.message }, `a link's TLS handshake failed: ${error.message}`);
      socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listener.port, listener.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : listener.port;
    ports.push(port);
    servers.push(server);
    log.info({ host: listener.host, port, groups: listener.groups }, `link listener up on ${listener.host}:${port}, advertised as ${listener.advertise}`);
  }

  // ---- dialing ----
  /** The first of this router's dialers and the peer's listeners that share a group. */
  function target(peer: Peer): { dialer: LinkDialerSettings; advertise: string } | undefined {
    for (const dialer of settings.dialers) {
      for (const listener of peer.links) if (shares(dialer.groups, listener.groups)) return { dialer, advertise: listener.advertise };
    }
    return undefined;
  }

  const linkedTo = (peerId: string) => [...links.values()].some((link) => link.peerRouterId === peerId);

  function scheduleDial(peerId: string, delayMs: number): void {
    let state = dialing.get(peerId);
    if (!state) dialing.set(peerId, (state = { attempt: 0, timer: undefined, busy: false }));
    if (state.timer || state.busy) return;
    state.timer = setTimeout(() => {
      state!.timer = undefined;
      void dialPeer(peerId);
    }, delayMs);
    state.timer.unref();
  }

  async function dialPeer(peerId: string): Promise<void> {
    const state = dialing.get(peerId);
    const peer = peerList.find((p) => p.id === peerId);
    const chosen = peer && target(peer);
    if (stopped || !state || !peer || !chosen || linkedTo(peerId) || !selfId()) return;
    state.busy = true;
    const at = hostPort(chosen.advertise);
    const id = randomUUID();
    try {
      if (!at) throw new Error(`the advertised address '${chosen.advertise}' is not host:port`);
      const socket = connect({
        host: at.host,
        port: at.port,
        ...(isIP(at.host) ? {} : { servername: at.host }),
        key: tls.key,
        cert: tls.cert,
        ca: tls.ca,
        ALPNProtocols: [LINK_ALPN],
        minVersion: 'TLSv1.2',
        ...(chosen.dialer.bind ? { localAddress: chosen.dialer.bind } : {}),
      });
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the TLS handshake took too long')), HELLO_TIMEOUT_MS);
        socket.once('secureConnect', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        socket.once('close', () => reject(new Error('the connection closed during the TLS handshake')));
      });
      const { channel, reply } = await dialHello(
        socket,
        { contentType: ContentType.Hello, headers: [[LinkHeader.RouterId, encode.string(selfId()!)], [LinkHeader.LinkId, encode.string(id)]], body: JSON.stringify({ groups: chosen.dialer.groups }) },
        { timeoutMs: HELLO_TIMEOUT_MS, heartbeat: false, answerLatency: true, limits: DEFAULT_LIMITS },
      );
      const answered = read.string(reply, LinkHeader.RouterId);
      if (answered !== peer.id) {
        channel.close(`the listener says it is router ${answered ?? '(none)'}, not ${peer.name}`);
        throw new Error(`the listener at ${chosen.advertise} says it is router ${answered ?? '(none)'}, not ${peer.name} (${peer.id})`);
      }
      state.attempt = 0;
      state.busy = false;
      deps.metrics?.linkDial('success');
      register(channel, socket, peer, id, true, chosen.advertise);
    } catch (error) {
      state.busy = false;
      state.attempt++;
      deps.metrics?.linkDial(error instanceof HelloRefusedError ? 'refused' : 'failed');
      const { minMs, maxMs, factor } = chosen.dialer.backoff;
      const wait = Math.min(maxMs, minMs * factor ** (state.attempt - 1));
      const delay = Math.round(wait / 2 + (random() * wait) / 2);
      log.warn({ peer: peer.name, address: chosen.advertise, attempt: state.attempt, retryMs: delay }, `link to router ${peer.name} at ${chosen.advertise} failed: ${(error as Error).message}; retrying in ${delay} ms`);
      scheduleDial(peerId, delay);
    }
  }

  return {
    get count() {
      return links.size;
    },
    get ports() {
      return ports;
    },
    get: (id) => links.get(id),
    all: () => [...links.values()],
    peers(update) {
      peerList = update.routers;
      byFingerprint.clear();
      for (const peer of peerList) byFingerprint.set(peer.fingerprint, peer);
      const listening = settings.listeners.map((l) => l.groups).flat();
      for (const peer of peerList) {
        if (!target(peer) || linkedTo(peer.id)) continue;
        // When the peer could dial this router too, the router with the greater id lets the other go first.
        const mayBeDialed = listening.length > 0 && (selfId() ?? '') > peer.id;
        scheduleDial(peer.id, mayBeDialed ? YIELD_TO_LOWER_ID_MS : 0);
      }
      for (const [peerId, state] of dialing) {
        if (peerList.some((p) => p.id === peerId)) continue;
        if (state.timer) clearTimeout(state.timer);
        dialing.delete(peerId);
      }
    },
    controllerConnected: report,
    updateTls(next) {
      tls = next;
      for (const server of servers) server.setSecureContext(serverOptions());
    },
    async close() {
      stopped = true;
      clearInterval(reportTimer);
      for (const state of dialing.values()) if (state.timer) clearTimeout(state.timer);
      const closing = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      for (const link of [...links.values()]) link.channel.close('the router is stopping');
      for (const link of [...links.values()]) link.socket.destroy();
      await Promise.all(closing);
    },
  };
}
