/**
 * What the router does with each message an SDK sends on an open edge channel (facts §5): Connect (dial a service),
 * Bind and Unbind (host one), Data and StateClosed (the relay), DialSuccess and DialFailed arrive as replies to the
 * router's Dial, UpdateToken (a refreshed access token). Every refusal is answered as the C SDK expects: a bad,
 * expired or foreign session token gets exactly `Invalid Session`, which makes the SDK fetch a new session.
 */
import type { Logger } from 'pino';
import { encode, read, type Message } from '../../channel/message.js';
import type { EdgeMetrics } from '../metrics/edge-metrics.js';
import { EdgeError, EdgeHeader, EdgeType, INVALID_SESSION, PRECEDENCE_BY_BYTE } from '../../channel/edge-protocol.js';
import { EdgeRefusal, type SessionChecker } from './hello.js';
import type { Hosting } from './hosting.js';
import { DialError, type Fabric } from '../fabric/fabric.js';
import { payloadOf } from '../links/link-protocol.js';
import { EdgeConn, type ConnLedger } from './edge-conn.js';
import { describe, sendStateClosed, type EdgeBinding, type SdkChannel } from './sdk-channel.js';
import { EdgeTokenError, type EdgeTokens, type SessionTokenClaims } from './tokens.js';

export interface EdgeLimits {
  /** Connections (circuit ends) one channel may hold. */
  maxConnsPerChannel: number;
  /** Connections the whole router may hold. */
  maxConns: number;
  /** Bindings one channel may hold. */
  maxBindingsPerChannel: number;
  /** How long a hosting SDK has to answer a Dial. */
  dialTimeoutMs: number;
}

export interface EdgeHandlerDeps {
  tokens: EdgeTokens;
  sessions: SessionChecker;
  hosting: Hosting;
  fabric: Pick<Fabric, 'dial'>;
  ledger: ConnLedger;
  metrics: EdgeMetrics;
  limits: EdgeLimits;
  log: Logger;
  clock: () => number;
  /** The channel's session changed (UpdateToken): its expiry timer is set again. */
  sessionChanged(sdk: SdkChannel): void;
}


export function createEdgeHandlers(deps: EdgeHandlerDeps): (sdk: SdkChannel, m: Message) => void {
  const { tokens, hosting, fabric, ledger, metrics, limits, log, clock } = deps;

  /** The session token of a Connect, Bind or Unbind, checked against the channel's API session. */
  async function serviceToken(sdk: SdkChannel, m: Message, type: 'Dial' | 'Bind'): Promise<SessionTokenClaims | string> {
    try {
      const claims = await tokens.session(m.body.toString('utf8'), clock());
      if (claims.type !== type) return `a ${claims.type} session cannot ${type === 'Dial' ? 'dial' : 'bind'}`;
      if (claims.apiSessionId !== sdk.session.apiSessionId) return 'the session belongs to another API session';
      return claims;
    } catch (error) {
      if (error instanceof EdgeTokenError) return error.message;
      throw error;
    }
  }

  async function connect(sdk: SdkChannel, m: Message): Promise<void> {
    const started = clock();
    const connId = read.u32(m, EdgeHeader.ConnId);
    if (connId === undefined) {
      sendStateClosed(sdk, 0, 'Connect carries no connection id (header 1000)', m);
      return;
    }
    if (sdk.conns.has(connId)) {
      // The SDK's own connection keeps going; only the new request is refused.
      sendStateClosed(sdk, connId, `connection id ${connId} is already in use on this channel`, m);
      metrics.dial('refused');
      return;
    }
    const token = await serviceToken(sdk, m, 'Dial');
    if (typeof token === 'string') {
      log.info({ ...describe(sdk), connId, why: token }, `dial refused: ${token}`);
      sendStateClosed(sdk, connId, INVALID_SESSION, m, [[EdgeHeader.ErrorCode, encode.u32(EdgeError.InvalidSession)]]);
      metrics.dial('refused');
      return;
    }
    if (sdk.conns.size >= limits.maxConnsPerChannel || ledger.open >= limits.maxConns) {
      const which = sdk.conns.size >= limits.maxConnsPerChannel ? `this channel's limit of ${limits.maxConnsPerChannel}` : `the router's limit of ${limits.maxConns}`;
      sendStateClosed(sdk, connId, `too many connections: ${which} is reached`, m);
      metrics.dial('refused');
      return;
    }
    if (sdk.conns.has(connId)) {
      sendStateClosed(sdk, connId, `connection id ${connId} is already in use on this channel`, m);
      return;
    }
    const dialer = new EdgeConn(sdk, connId, token.serviceId, ledger, true);
    const header = (id: number) => m.headers.get(id);
    let result;
    try {
      result = await fabric.dial(
        {
          identityId: sdk.session.identityId,
          identityName: sdk.session.identityName,
          serviceId: token.serviceId,
          apiSessionId: sdk.session.apiSessionId,
          ...(read.string(m, EdgeHeader.TerminatorIdentity) ? { instanceId: read.string(m, EdgeHeader.TerminatorIdentity) } : {}),
          dialer: {
            ...(header(EdgeHeader.CallerId) ? { callerId: header(EdgeHeader.CallerId)! } : {}),
            ...(header(EdgeHeader.ConnectionMarker) ? { connectionMarker: header(EdgeHeader.ConnectionMarker)! } : {}),
            ...(header(EdgeHeader.AppData) ? { appData: header(EdgeHeader.AppData)! } : {}),
          },
          // The SDK decides whether it encrypts; the fabric refuses a service that requires it when it does not.
          publicKeyFor: () => header(EdgeHeader.PublicKey),
        },
        dialer,
      );
    } catch (error) {
      const reason = (error as Error).message;
      const outcome = error instanceof DialError ? error.kind : 'failed';
      if (dialer.state !== 'closed') {
        dialer.discard();
        if (!sdk.channel.closed) sendStateClosed(sdk, connId, reason, m);
      }
      metrics.dial(outcome);
      log.info({ ...describe(sdk), connId, service: token.serviceId, outcome }, `dial of service ${token.serviceId} failed: ${reason}`);
      return;
    }
    if (dialer.state === 'closed') {
      // The dialer's channel dropped or it closed the connection while the circuit was being set up.
      result.peer.end('the dialer went away');
      return;
    }
    const replyHeaders: Array<[number, Buffer]> = [
      [EdgeHeader.ConnId, encode.u32(connId)],
      [EdgeHeader.CircuitId, encode.string(result.circuitId)],
    ];
    if (result.publicKey) replyHeaders.push([EdgeHeader.PublicKey, result.publicKey]);
    dialer.circuitId = result.circuitId;
    // StateConnected first: Data reaching a C SDK connection still Connecting is dropped.
    sdk.channel.reply(m, { contentType: EdgeType.StateConnected, headers: replyHeaders });
    dialer.inlet.connect(result.peer);
    dialer.announce();
    metrics.dial('success', (clock() - started) / 1000);
    log.debug({ ...describe(sdk), connId, service: token.serviceId, circuit: result.circuitId }, 'circuit up');
  }

  async function bind(sdk: SdkChannel, m: Message): Promise<void> {
    const connId = read.u32(m, EdgeHeader.ConnId);
    if (connId === undefined) {
      sendStateClosed(sdk, 0, 'Bind carries no connection id (header 1000)', m);
      return;
    }
    const token = await serviceToken(sdk, m, 'Bind');
    if (typeof token === 'string') {
      log.info({ ...describe(sdk), connId, why: token }, `bind refused: ${token}`);
      sendStateClosed(sdk, connId, INVALID_SESSION, m, [[EdgeHeader.ErrorCode, encode.u32(EdgeError.InvalidSession)]]);
      metrics.bind('refused');
      return;
    }
    const existing = sdk.bindings.get(connId);
    if (existing && existing.serviceId === token.serviceId) {
      // The same binding with a fresh session token: it stays, with the new token for the next Dials.
      existing.token = m.body.toString('utf8');
      sdk.channel.reply(m, { contentType: EdgeType.StateConnected, headers: [[EdgeHeader.ConnId, encode.u32(connId)], [EdgeHeader.RouterProvidedConnId, encode.bool(true)]] });
      return;
    }
    if (existing || sdk.conns.has(connId)) {
      sendStateClosed(sdk, connId, `connection id ${connId} is already in use on this channel`, m);
      metrics.bind('refused');
      return;
    }
    if (sdk.bindings.size >= limits.maxBindingsPerChannel) {
      sendStateClosed(sdk, connId, `too many bindings: this channel's limit of ${limits.maxBindingsPerChannel} is reached`, m);
      metrics.bind('refused');
      return;
    }
    const cost = read.u16(m, EdgeHeader.Cost);
    const precedenceByte = m.headers.get(EdgeHeader.Precedence)?.[0];
    const instance = read.string(m, EdgeHeader.TerminatorIdentity);
    const binding: EdgeBinding = {
      channel: sdk,
      connId,
      token: m.body.toString('utf8'),
      serviceId: token.serviceId,
      sessionId: token.sessionId,
      terminatorId: undefined,
      closed: false,
      cost,
      precedence: precedenceByte === undefined ? undefined : (PRECEDENCE_BY_BYTE[precedenceByte] ?? 'default'),
      instanceId: instance || undefined,
    };
    sdk.bindings.set(connId, binding);
    sdk.channel.reply(m, { contentType: EdgeType.StateConnected, headers: [[EdgeHeader.ConnId, encode.u32(connId)], [EdgeHeader.RouterProvidedConnId, encode.bool(true)]] });
    hosting.add(binding);
  }

  function unbind(sdk: SdkChannel, m: Message): void {
    const connId = read.u32(m, EdgeHeader.ConnId);
    const binding = connId === undefined ? undefined : sdk.bindings.get(connId);
    if (binding) hosting.remove(binding);
    // The reference sends no answer; the C SDK waits for one and takes a StateClosed.
    sendStateClosed(sdk, connId ?? 0, binding ? 'unbound' : 'no such binding', m);
  }

  async function updateToken(sdk: SdkChannel, m: Message): Promise<void> {
    try {
      sdk.session = await deps.sessions.refresh(sdk.session, m.body.toString('utf8'), sdk.fingerprint, clock());
      sdk.token = m.body.toString('utf8');
      deps.sessionChanged(sdk);
      sdk.channel.reply(m, { contentType: EdgeType.UpdateTokenSuccess });
    } catch (error) {
      const refusal = error instanceof EdgeRefusal ? error : new EdgeRefusal(EdgeError.Internal, (error as Error).message);
      log.info({ ...describe(sdk), why: refusal.message }, `token update refused: ${refusal.message}`);
      sdk.channel.reply(m, {
        contentType: EdgeType.UpdateTokenFailure,
        headers: [
          [EdgeHeader.ErrorCode, encode.u32(refusal.code)],
          [EdgeHeader.StructuredError, encode.string(JSON.stringify({ message: refusal.message, code: refusal.code }))],
        ],
        body: refusal.message,
      });
      sdk.channel.close(`token update refused: ${refusal.message}`);
    }
  }

  function stateClosed(sdk: SdkChannel, m: Message): void {
    const connId = read.u32(m, EdgeHeader.ConnId);
    if (connId === undefined) return;
    const conn = sdk.conns.get(connId);
    if (conn) {
      conn.close(m.body.toString('utf8') || 'closed by the peer');
      return;
    }
    const binding = sdk.bindings.get(connId);
    if (binding) hosting.remove(binding);
  }

  function data(sdk: SdkChannel, m: Message): void {
    const connId = read.u32(m, EdgeHeader.ConnId);
    const conn = connId === undefined ? undefined : sdk.conns.get(connId);
    if (!conn) {
      // As the SDKs do for an unknown connection: tell the sender it is closed.
      sendStateClosed(sdk, connId ?? 0, 'unknown connection');
      return;
    }
    conn.inlet.push(payloadOf(m));
  }

  const failed = (sdk: SdkChannel, what: string) => (error: unknown) => {
    log.error({ ...describe(sdk), err: error }, `${what} failed: ${(error as Error).message}`);
  };

  return (sdk, m) => {
    switch (m.contentType) {
      case EdgeType.Data:
        data(sdk, m);
        return;
      case EdgeType.Connect:
        connect(sdk, m).catch(failed(sdk, 'a dial'));
        return;
      case EdgeType.StateClosed:
        stateClosed(sdk, m);
        return;
      case EdgeType.Bind:
        bind(sdk, m).catch(failed(sdk, 'a bind'));
        return;
      case EdgeType.Unbind:
        unbind(sdk, m);
        return;
      case EdgeType.UpdateToken:
        updateToken(sdk, m).catch(failed(sdk, 'a token update'));
        return;
      case EdgeType.DialSuccess:
      case EdgeType.DialFailed:
        // A late answer to a Dial that timed out: the circuit was already refused.
        return;
      default:
        // Unknown or unsupported content types (Probe, TraceRoute, subscriptions…) are dropped, as upstream's router
        // drops what it has no handler for; the channel stays up.
        log.debug({ ...describe(sdk), contentType: m.contentType }, 'message of an unhandled content type dropped');
    }
  };
}
