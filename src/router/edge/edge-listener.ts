/**
 * The router's SDK edge listener (issue 42, decision 0066): a TLS server with the router's server certificate that
 * offers the `ziti-edge` ALPN and requires a client certificate chained to a CA the controller distributes (its own,
 * verified third-party CAs; ephemeral session certificates chain to its own). Node's TLS verifies the chain; the set
 * of CAs follows every trust state the controller pushes, and channels whose certificate no longer chains are closed.
 * Each connection then says Hello with its API-session token (hello.ts), and the channel carries the SDK's dials,
 * binds and data (edge-handlers.ts). Channels end when their token expires, their session or identity is revoked, or
 * their certificate stops being trusted. Legacy sessions with a channel here are reported to the controller as
 * active, which keeps them alive; the identities holding channels here are reported too (identity-report.ts).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { acceptHello, type Channel } from '../../channel/channel.js';
import type { ChannelProtocolError } from '../../channel/codec.js';
import { encode, Header } from '../../channel/message.js';
import { ControlType } from '../../control-protocol/catalogue.js';
import type { Revocation } from '../../control-protocol/bodies.js';
import type { ControlClient } from '../control/control-client.js';
import type { EdgeMetrics } from '../metrics/edge-metrics.js';
import type { RevocationState } from '../state/revocations.js';
import type { TrustStore } from '../state/trust.js';
import { createEdgeHandlers, type EdgeLimits } from './edge-handlers.js';
import { EDGE_ALPN, EdgeHeader } from '../../channel/edge-protocol.js';
import { createSessionChecker, EdgeRefusal } from './hello.js';
import { createHosting, type Hosting } from './hosting.js';
import { ConnLedger } from './edge-conn.js';
import { createEdgeEgress } from './edge-egress.js';
import { pauseCounter } from '../fabric/inlet.js';
import type { Fabric } from '../fabric/fabric.js';
import { describe, FIRST_ROUTER_CONN_ID, type SdkChannel } from './sdk-channel.js';
import { createEdgeTokens } from './tokens.js';
import { createIdentityReporter } from './identity-report.js';

export interface EdgeListenerLimits extends EdgeLimits {
  /** SDK channels the listener holds at once. */
  maxChannels: number;
  /** Time for the TLS handshake and the Hello together (slow clients are dropped). */
  helloTimeoutMs: number;
}

export const DEFAULT_EDGE_LIMITS: EdgeListenerLimits = {
  maxChannels: 50_000,
  maxConnsPerChannel: 4_096,
  maxConns: 200_000,
  maxBindingsPerChannel: 256,
  dialTimeoutMs: 5_000,
  helloTimeoutMs: 10_000,
};

/** How often legacy sessions with a channel here are reported active (well under any inactivity timeout). */
const ACTIVITY_INTERVAL_MS = 30_000;

export interface EdgeListener {
  readonly port: number;
  readonly hosting: Hosting;
  readonly channelCount: number;
  /** New handshakes use this server certificate (after a renewal). */
  updateTls(tls: { key: string; cert: string }): void;
  /** A controller accepted this router's Hello: it is told the identities holding channels here. */
  controllerConnected(): void;
  close(): Promise<void>;
}

export interface EdgeListenerOptions {
  host: string;
  port: number;
  tls: { key: string; cert: string };
  trust: TrustStore;
  revocations: RevocationState;
  control: ControlClient;
  metrics: EdgeMetrics;
  log: Logger;
  version: string;
  routerId: () => string | undefined;
  /** Circuits: the edge listener's dials go through it, and it hosts SDK bindings as the `edge` egress. */
  fabric: Pick<Fabric, 'dial' | 'registerEgress'>;
  limits?: Partial<EdgeListenerLimits>;
  clock?: () => number;
}

/** Whether a peer's chain (leaf first, as the socket gives it) ends at one of `cas`. */
function chainsTo(socket: TLSSocket, cas: X509Certificate[], now: number): boolean {
  const seen = new Set<string>();
  let cert = socket.getPeerCertificate(true);
  let current = cert?.raw ? new X509Certificate(cert.raw) : undefined;
  while (current && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    if (Date.parse(current.validTo) < now) return false;
    for (const ca of cas) if (current.checkIssued(ca) && current.verify(ca.publicKey)) return true;
    if (cas.some((ca) => ca.fingerprint256 === current!.fingerprint256)) return true;
    const next: typeof cert | undefined = cert.issuerCertificate;
    if (!next || next === cert || !next.raw) return false;
    cert = next;
    current = new X509Certificate(next.raw);
  }
  return false;
}

export async function startEdgeListener(options: EdgeListenerOptions): Promise<EdgeListener> {
  const { trust, revocations, control, metrics, log } = options;
  const clock = options.clock ?? Date.now;
  const limits = { ...DEFAULT_EDGE_LIMITS, ...options.limits };
  const tokens = createEdgeTokens(trust);
  const sessions = createSessionChecker({ tokens, control, revocations });
  const ledger = new ConnLedger(metrics);
  const hosting = createHosting({ control, log, onBind: (outcome) => metrics.bind(outcome) });
  options.fabric.registerEgress('edge', createEdgeEgress({ hosting, ledger, dialTimeoutMs: () => limits.dialTimeoutMs }));
  const channels = new Set<SdkChannel>();
  const bySession = new Map<string, Set<SdkChannel>>();
  const byIdentity = new Map<string, Set<SdkChannel>>();
  const identities = createIdentityReporter({ control });
  let serverTls = options.tls;
  let channelSeq = 0;

  /** Files or unfiles `sdk` under `key`; answers whether `key` appeared (first channel) or went (last channel). */
  const index = (map: Map<string, Set<SdkChannel>>, key: string, sdk: SdkChannel, add: boolean): boolean => {
    let set = map.get(key);
    if (add) {
      const first = !set;
      if (!set) map.set(key, (set = new Set()));
      set.add(sdk);
      return first;
    }
    if (!set) return false;
    set.delete(sdk);
    if (set.size > 0) return false;
    map.delete(key);
    return true;
  };

  function armExpiry(sdk: SdkChannel): void {
    if (sdk.expiryTimer) clearTimeout(sdk.expiryTimer);
    sdk.expiryTimer = undefined;
    const at = sdk.session.expiresAt;
    if (at === undefined) return;
    // setTimeout holds at most 2^31-1 ms; a longer token is re-armed when that passes.
    const wait = Math.min(Math.max(0, at - clock()), 2_147_483_000);
    sdk.expiryTimer = setTimeout(() => {
      if (clock() >= at) sdk.channel.close('the API session token expired');
      else armExpiry(sdk);
    }, wait);
    sdk.expiryTimer.unref();
  }

  const handle = createEdgeHandlers({
    tokens,
    sessions,
    hosting,
    fabric: options.fabric,
    ledger,
    metrics,
    limits,
    log,
    clock,
    sessionChanged: armExpiry,
  });

  const secureContext = () => {
    const cas = trust.current?.cas ?? [];
    return { key: serverTls.key, cert: serverTls.cert, ...(cas.length > 0 ? { ca: cas } : {}) };
  };

  const server: Server = createServer({
    ...secureContext(),
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: [EDGE_ALPN],
    handshakeTimeout: limits.helloTimeoutMs,
    minVersion: 'TLSv1.2',
  });

  server.on('tlsClientError', (error, socket) => {
    log.debug({ err: error, remote: socket.remoteAddress }, `an SDK's TLS handshake failed: ${error.message}`);
    metrics.hello('refused');
    // With a listener here Node leaves the socket open; a client that never finishes its handshake must not stay.
    socket.destroy();
  });

  server.on('secureConnection', (socket: TLSSocket) => {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    socket.on('error', () => undefined);
    if (!trust.current) {
      // Without the controller's CAs nothing can be checked; the SDK retries with backoff.
      log.info({ remote: socket.remoteAddress }, 'an SDK connected before the router had a trust state from a controller; closed');
      socket.destroy();
      return;
    }
    if (channels.size >= limits.maxChannels) {
      log.warn({ remote: socket.remoteAddress }, `SDK channel refused: the listener's limit of ${limits.maxChannels} channels is reached`);
      socket.destroy();
      return;
    }
    accept(socket).catch((error) => {
      log.debug({ err: error, remote: socket.remoteAddress }, `an SDK channel did not open: ${(error as Error).message}`);
      socket.destroy();
    });
  });

  async function accept(socket: TLSSocket): Promise<void> {
    const raw = socket.getPeerCertificate()?.raw;
    if (!raw) throw new Error('no client certificate');
    const fingerprint = createHash('sha1').update(raw).digest('hex');
    const onProtocolError = (error: ChannelProtocolError) => {
      metrics.protocolError();
      log.info({ remote: socket.remoteAddress, err: error.message }, `SDK channel closed for a malformed frame: ${error.message}`);
    };
    const pending = await acceptHello(socket, { timeoutMs: limits.helloTimeoutMs, heartbeat: false, answerLatency: true, onProtocolError });
    const token = pending.hello.headers.get(EdgeHeader.SessionToken)?.toString('utf8') ?? '';
    let session;
    try {
      session = await sessions.check(token, fingerprint, clock());
    } catch (error) {
      const refusal = error instanceof EdgeRefusal ? error : new EdgeRefusal(1, `the API session could not be checked: ${(error as Error).message}`);
      metrics.hello('refused');
      log.info({ remote: socket.remoteAddress, fingerprint, why: refusal.message }, `SDK Hello refused: ${refusal.message}`);
      pending.reject(
        refusal.message,
        new Map([
          [EdgeHeader.ErrorCode, encode.u32(refusal.code)],
          [EdgeHeader.StructuredError, encode.string(JSON.stringify({ message: refusal.message, code: refusal.code }))],
        ]),
      );
      return;
    }
    const routerId = options.routerId() ?? '';
    const channel: Channel = pending.accept({
      contentType: 2,
      headers: [
        [Header.HelloVersion, encode.string(`svc-router ${options.version}`)],
        [Header.ConnectionId, encode.string(`edge-${++channelSeq}`)],
        ...(routerId ? [[Header.Id, encode.string(routerId)] as [number, Buffer]] : []),
      ],
    });
    const sdk: SdkChannel = {
      id: `edge-${channelSeq}`,
      channel,
      socket,
      fingerprint,
      session,
      token,
      conns: new Map(),
      bindings: new Map(),
      nextDialConnId: FIRST_ROUTER_CONN_ID,
      reading: pauseCounter(socket),
      expiryTimer: undefined,
    };
    channels.add(sdk);
    index(bySession, session.apiSessionId, sdk, true);
    if (index(byIdentity, session.identityId, sdk, true)) identities.opened(session.identityId);
    metrics.channels(1);
    metrics.hello('success');
    armExpiry(sdk);
    log.info({ ...describe(sdk), remote: socket.remoteAddress, legacy: session.legacy }, `SDK channel open for ${session.identityName || session.identityId}`);
    if (session.legacy) control.notify(ControlType.ApiSessionActivity, { apiSessionIds: [session.apiSessionId] });
    channel.onMessage((m) => handle(sdk, m));
    channel.onClose(({ reason }) => {
      channels.delete(sdk);
      index(bySession, sdk.session.apiSessionId, sdk, false);
      if (index(byIdentity, sdk.session.identityId, sdk, false)) identities.closed(sdk.session.identityId);
      if (sdk.expiryTimer) clearTimeout(sdk.expiryTimer);
      for (const conn of [...sdk.conns.values()]) conn.close(`the peer's channel closed: ${reason}`);
      for (const binding of [...sdk.bindings.values()]) hosting.remove(binding);
      metrics.channels(-1);
      log.info({ ...describe(sdk), reason }, `SDK channel closed: ${reason}`);
    });
  }

  // Revocations: an ended session, a disabled identity, a deleted terminator.
  const stopRevocations = revocations.subscribe((items: readonly Revocation[]) => {
    for (const item of items) {
      if (item.kind === 'api-session') {
        for (const sdk of [...(bySession.get(item.id) ?? [])]) sdk.channel.close(`the API session ended: ${item.reason}`);
      } else if (item.kind === 'identity') {
        for (const sdk of [...(byIdentity.get(item.id) ?? [])]) {
          if (sdk.session.createdAt <= item.committedAt) sdk.channel.close(`the identity was disabled or deleted: ${item.reason}`);
        }
      } else if (item.kind === 'terminator') {
        hosting.terminatorRevoked(item.id, `the terminator was removed: ${item.reason}`);
      }
    }
  });

  // Trust: new handshakes use the new CAs; open channels whose certificate no longer chains are closed.
  const stopTrust = trust.subscribe((state) => {
    server.setSecureContext(secureContext());
    const cas = state.cas.map((pem) => new X509Certificate(pem));
    const now = clock();
    for (const sdk of [...channels]) {
      if (!chainsTo(sdk.socket, cas, now)) sdk.channel.close('the client certificate is no longer trusted');
    }
  });

  const activity = setInterval(() => {
    const legacy = [...bySession.entries()].filter(([, set]) => [...set][0]?.session.legacy).map(([id]) => id);
    for (let i = 0; i < legacy.length; i += 10_000) control.notify(ControlType.ApiSessionActivity, { apiSessionIds: legacy.slice(i, i + 10_000) });
  }, ACTIVITY_INTERVAL_MS);
  activity.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info({ port, host: options.host }, `edge listener up on ${options.host}:${port}`);
  // Connected before this listener was up: the controller is told the (empty) set now, forgetting any it held for
  // this router from an earlier process whose channel the new one replaced.
  if (control.connected) identities.controllerConnected([]);

  return {
    port,
    hosting,
    get channelCount() {
      return channels.size;
    },
    updateTls(tls) {
      serverTls = tls;
      server.setSecureContext(secureContext());
    },
    controllerConnected: () => identities.controllerConnected(byIdentity.keys()),
    async close() {
      clearInterval(activity);
      identities.stop();
      stopRevocations();
      stopTrust();
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const sdk of [...channels]) sdk.channel.close('the router is stopping');
      for (const sdk of [...channels]) sdk.socket.destroy();
      await closing;
    },
  };
}
