/**
 * `dial(service)` (reference/edge-router-protocol-facts.md §5A): a Dial session from the controller (kept and
 * reused while the routers accept it), the lowest-latency connected router among the session's, then Connect with
 * the session token and, when the service requires encryption, this end's key (header 1003) and crypto method. The
 * router answers StateConnected (with the hoster's key) or StateClosed: `Invalid Session` (or an empty reason) means
 * the session went stale, so a new one is fetched and the dial tried once more, as the C SDK does; any other refusal
 * is tried on the session's other routers before the dial fails.
 */
import { randomBytes } from 'node:crypto';
import { encode, read, type Message } from '../channel/message.js';
import { SdkError } from './errors.js';
import type { EdgeSession, SdkService } from './client-api.js';
import { EdgeConnection, type SvcConnection } from './connection.js';
import { e2eeSession, newKeyPair } from './e2ee.js';
import { CRYPTO_LIBSODIUM, EdgeHeader, EdgeType, INVALID_SESSION } from '../channel/edge-protocol.js';
import type { RouterLink } from './router-link.js';
import { EarlyMessages, pickLink, type Runtime } from './runtime.js';

export interface DialOptions {
  /** How long the router may take to connect the service (default 15 s). */
  timeoutMs?: number;
  /** Bytes handed to the hosting end with the dial. */
  appData?: Buffer;
}

const DEFAULT_DIAL_TIMEOUT_MS = 15_000;

/** Dial sessions by service id, reused until a router calls one invalid. */
export type DialSessions = Map<string, Promise<EdgeSession>>;

function session(runtime: Runtime, sessions: DialSessions, service: SdkService, fresh: boolean): Promise<EdgeSession> {
  let s = fresh ? undefined : sessions.get(service.id);
  if (!s) {
    s = runtime.api.createSession(service, 'Dial');
    sessions.set(service.id, s);
    s.catch(() => sessions.delete(service.id));
  }
  return s;
}

/**
 * Dials through the session's routers, lowest latency first. A router that refuses for another reason than the
 * session (it hosts no terminator of the service: routers are not linked to each other yet) hands over to the next
 * one (connected ones first); the refusals are reported together when every router refused.
 */
async function attempt(runtime: Runtime, service: SdkService, edge: EdgeSession, options: DialOptions): Promise<SvcConnection | 'stale'> {
  const first = await pickLink(runtime, edge.routers, `service '${service.name}'`);
  const others = edge.routers
    .map((r) => runtime.link(r))
    .filter((l) => l !== first)
    .sort((a, b) => Number(b.connected) - Number(a.connected) || (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity));
  const refusals: string[] = [];
  for (const link of [first, ...others]) {
    const reachable = await link.ready().then(
      () => true,
      (error: Error) => void refusals.push(error.message),
    );
    if (!reachable) continue;
    const outcome = await through(runtime, link, service, edge, options);
    if (typeof outcome !== 'string' || outcome === 'stale') return outcome;
    refusals.push(outcome);
  }
  throw new SdkError('DIAL_FAILED', refusals.join('; '));
}

/** One Connect through `link`: the connection, 'stale' for a refused session, or the sentence of another refusal. */
async function through(runtime: Runtime, link: RouterLink, service: SdkService, edge: EdgeSession, options: DialOptions): Promise<SvcConnection | string> {
  const channel = await link.ready();
  const connId = runtime.nextConnId();
  const keys = service.encryptionRequired ? newKeyPair() : undefined;
  const headers: Array<[number, Buffer]> = [
    [EdgeHeader.ConnId, encode.u32(connId)],
    [EdgeHeader.Seq, encode.u32(0)],
    [EdgeHeader.CallerId, encode.string(runtime.identity.name)],
    [EdgeHeader.ConnectionMarker, encode.string(randomBytes(6).toString('base64url'))],
  ];
  if (keys) headers.push([EdgeHeader.PublicKey, Buffer.from(keys.publicKey)], [EdgeHeader.CryptoMethod, encode.string(CRYPTO_LIBSODIUM)]);
  if (options.appData) headers.push([EdgeHeader.AppData, options.appData]);
  // Registered before Connect goes out: the hoster's first Data may arrive right behind StateConnected.
  const early = new EarlyMessages(1);
  link.register(connId, early);
  let answer: Message;
  try {
    answer = await channel.request({ contentType: EdgeType.Connect, headers, body: edge.token }, options.timeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS);
  } catch (error) {
    link.unregister(connId);
    const timedOut = /no answer within/.test((error as Error).message);
    throw new SdkError(timedOut ? 'TIMEOUT' : 'DIAL_FAILED', `dialling service '${service.name}' through router ${link.name} failed: ${(error as Error).message}`);
  }
  if (answer.contentType !== EdgeType.StateConnected) {
    link.unregister(connId);
    const reason = answer.body.toString('utf8');
    if (reason === '' || reason === INVALID_SESSION) return 'stale';
    return `router ${link.name} refused the dial of service '${service.name}': ${reason}`;
  }
  let crypto;
  if (keys) {
    const peerKey = read.bytes(answer, EdgeHeader.PublicKey);
    try {
      if (!peerKey) throw new SdkError('CRYPTO_FAILED', `service '${service.name}' requires encryption but its host sent no public key`);
      crypto = e2eeSession('client', keys, peerKey);
    } catch (error) {
      channel.send({ contentType: EdgeType.StateClosed, headers: [[EdgeHeader.ConnId, encode.u32(connId)]], body: (error as Error).message });
      link.unregister(connId);
      throw error;
    }
  }
  const circuitId = read.string(answer, EdgeHeader.CircuitId);
  const conn = new EdgeConnection({ service: service.name, connId, channel, flow: link, type: 1, ...(crypto ? { crypto } : {}), ...(circuitId ? { circuitId } : {}), onGone: () => link.unregister(connId) });
  link.register(connId, conn);
  early.replayTo(conn);
  return conn;
}

/** Dials `name`; see the module comment. */
export async function dial(runtime: Runtime, sessions: DialSessions, name: string, options: DialOptions = {}): Promise<SvcConnection> {
  if (runtime.closed) throw new SdkError('CLOSED', 'the SDK context is closed');
  const service = await runtime.service(name, 'Dial');
  const first = await attempt(runtime, service, await session(runtime, sessions, service, false), options);
  if (first !== 'stale') return first;
  const again = await attempt(runtime, service, await session(runtime, sessions, service, true), options);
  if (again !== 'stale') return again;
  throw new SdkError('DIAL_FAILED', `the router refused a new session for service '${service.name}' as invalid`);
}
