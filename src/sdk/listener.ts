/**
 * `listen(service, onConnection)` (reference/edge-router-protocol-facts.md §5B): a Bind session, then Bind on up to
 * `maxRouters` of the service's edge routers (lowest latency first). Each binding is a connection id on a router
 * channel; the router sends Dial on it for each dialer, answered with DialSuccess whose body is the router-provided
 * id, which becomes the new connection's id (with this end's key when the dialer sent one: the dialer asked for
 * encryption). A binding ended by the router (StateClosed on it), or lost with its channel, is bound again with a
 * fresh session after a wait that doubles with each failure, on another of the service's routers or on the same one;
 * a router whose channel comes back is bound again at once, and one that comes online is found within a minute.
 * `close()` sends Unbind on every binding.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { encode, read, type Message } from '../channel/message.js';
import { SdkError } from './errors.js';
import type { EdgeSession, SdkRouter } from './client-api.js';
import { EdgeConnection, type SvcConnection } from './connection.js';
import { e2eeSession, newKeyPair } from './e2ee.js';
import { EdgeHeader, EdgeType, PRECEDENCE_BYTE } from '../channel/edge-protocol.js';
import type { LinkConn, RouterLink } from './router-link.js';
import type { Runtime } from './runtime.js';

export interface ListenOptions {
  cost?: number;
  precedence?: 'default' | 'required' | 'failed';
  /** Routers to bind on at once (default 3, as the C SDK). */
  maxRouters?: number;
}

export interface SvcListener extends EventEmitter {
  readonly service: string;
  /** The routers the service is bound on now. */
  readonly routers: string[];
  close(): Promise<void>;
  on(event: 'bound' | 'unbound', listener: (router: string) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
}

const DEFAULT_MAX_ROUTERS = 3;
const BIND_TIMEOUT_MS = 15_000;
const REBIND_FIRST_MS = 500;
const REBIND_MAX_MS = 30_000;
/** Bound on fewer routers than it may be, with nothing failing: the service's routers are looked at again this often. */
const REFILL_MS = 60_000;

interface Binding extends LinkConn {
  link: RouterLink;
  connId: number;
  token: string;
}

export async function listen(runtime: Runtime, name: string, onConnection: (conn: SvcConnection) => void, options: ListenOptions = {}): Promise<SvcListener> {
  if (runtime.closed) throw new SdkError('CLOSED', 'the SDK context is closed');
  const service = await runtime.service(name, 'Bind');
  const max = Math.max(1, options.maxRouters ?? DEFAULT_MAX_ROUTERS);
  // 32 printable bytes, as the C SDK's listener id.
  const listenerId = randomBytes(24).toString('base64url');
  const bindings = new Map<string, Binding>();
  const emitter = new EventEmitter() as SvcListener;
  let closed = false;
  let edge: EdgeSession | undefined;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  // A router that comes back is bound again at once, not when the doubling wait next comes round.
  const watched = new Map<string, () => void>();
  const watch = (link: RouterLink) => {
    if (watched.has(link.name)) return;
    watched.set(
      link.name,
      link.onReconnect(() => {
        if (closed || bindings.size >= max || bindings.has(link.name)) return;
        if (retryTimer) clearTimeout(retryTimer);
        retryTimer = undefined;
        failures = 0;
        scheduleFill(0);
      }),
    );
  };

  const freshSession = async (): Promise<EdgeSession> => (edge = await runtime.api.createSession(service, 'Bind'));

  async function routersOf(s: EdgeSession): Promise<SdkRouter[]> {
    return (await runtime.api.serviceRouters(service)) ?? s.routers;
  }

  function accept(binding: Binding, dialMessage: Message): void {
    const channel = binding.link.ready();
    const newId = read.u32(dialMessage, EdgeHeader.RouterProvidedConnId);
    channel.then((ch) => {
      const reject = (reason: string) => ch.reply(dialMessage, { contentType: EdgeType.DialFailed, headers: [[EdgeHeader.ConnId, encode.u32(binding.connId)], [EdgeHeader.Seq, encode.u32(0)]], body: reason });
      if (newId === undefined) return reject('the Dial carried no router-provided connection id');
      const peerKey = read.bytes(dialMessage, EdgeHeader.PublicKey);
      if (service.encryptionRequired && !peerKey) return reject(`service '${service.name}' requires encryption but the dialer sent no public key`);
      const keys = peerKey ? newKeyPair() : undefined;
      let crypto;
      try {
        crypto = keys && peerKey ? e2eeSession('server', keys, peerKey) : undefined;
      } catch (error) {
        return reject((error as Error).message);
      }
      const headers: Array<[number, Buffer]> = [
        [EdgeHeader.ConnId, encode.u32(binding.connId)],
        [EdgeHeader.Seq, encode.u32(0)],
      ];
      if (keys) headers.push([EdgeHeader.PublicKey, Buffer.from(keys.publicKey)]);
      ch.reply(dialMessage, { contentType: EdgeType.DialSuccess, headers, body: encode.u32(newId) });
      const callerId = read.string(dialMessage, EdgeHeader.CallerId);
      const circuitId = read.string(dialMessage, EdgeHeader.CircuitId);
      const appData = read.bytes(dialMessage, EdgeHeader.AppData);
      const conn = new EdgeConnection({
        service: service.name,
        connId: newId,
        channel: ch,
        flow: binding.link,
        type: 2,
        ...(crypto ? { crypto } : {}),
        ...(callerId ? { callerId } : {}),
        ...(circuitId ? { circuitId } : {}),
        ...(appData ? { appData } : {}),
        onGone: () => binding.link.unregister(newId),
      });
      binding.link.register(newId, conn);
      try {
        onConnection(conn);
      } catch (error) {
        // The application's handler failed: the connection goes, the listener stays.
        runtime.log?.error({ service: service.name, err: (error as Error).message }, 'svc sdk: the connection handler threw; closing that connection');
        conn.destroy();
      }
    }, () => undefined);
  }

  function unbound(binding: Binding, reason: string): void {
    if (bindings.get(binding.link.name) !== binding) return;
    bindings.delete(binding.link.name);
    binding.link.unregister(binding.connId);
    runtime.log?.info({ service: service.name, router: binding.link.name, reason }, 'svc sdk: binding ended; binding again');
    emitter.emit('unbound', binding.link.name);
    scheduleFill();
  }

  async function bindOn(link: RouterLink, s: EdgeSession): Promise<void> {
    const channel = await link.ready();
    const connId = runtime.nextConnId();
    const binding: Binding = {
      link,
      connId,
      token: s.token,
      type: 2,
      onMessage(m) {
        if (m.contentType === EdgeType.Dial) accept(binding, m);
        else if (m.contentType === EdgeType.StateClosed) unbound(binding, m.body.toString('utf8') || 'the router closed the binding');
      },
      onLinkLost: (reason) => unbound(binding, reason),
      describe: () => `svc-sdk-ts binding ${connId} service=${service.name}`,
    };
    const headers: Array<[number, Buffer]> = [
      [EdgeHeader.ConnId, encode.u32(connId)],
      [EdgeHeader.Seq, encode.u32(0)],
      [EdgeHeader.ListenerId, encode.string(listenerId)],
      [EdgeHeader.SupportsInspect, encode.bool(true)],
      [EdgeHeader.RouterProvidedConnId, encode.bool(true)],
    ];
    if (options.cost) headers.push([EdgeHeader.Cost, encode.u16(options.cost)]);
    if (options.precedence && options.precedence !== 'default') headers.push([EdgeHeader.Precedence, encode.u8(PRECEDENCE_BYTE[options.precedence])]);
    link.register(connId, binding);
    bindings.set(link.name, binding);
    let answer: Message;
    try {
      answer = await channel.request({ contentType: EdgeType.Bind, headers, body: s.token }, BIND_TIMEOUT_MS);
    } catch (error) {
      bindings.delete(link.name);
      link.unregister(connId);
      throw new SdkError('BIND_FAILED', `binding service '${service.name}' on router ${link.name} failed: ${(error as Error).message}`);
    }
    if (answer.contentType !== EdgeType.StateConnected) {
      bindings.delete(link.name);
      link.unregister(connId);
      throw new SdkError('BIND_FAILED', `router ${link.name} refused to bind service '${service.name}': ${answer.body.toString('utf8') || 'no reason given'}`);
    }
    if (closed) return;
    emitter.emit('bound', link.name);
  }

  /** Binds on routers until `max` are bound or none is left; resolves with the errors of the attempts that failed. */
  async function fill(s: EdgeSession): Promise<Error[]> {
    const routers = (await routersOf(s)).filter((r) => !bindings.has(r.name));
    const links = routers.map((r) => runtime.link(r));
    links.forEach(watch);
    links.sort((a, b) => Number(b.connected) - Number(a.connected) || (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity));
    const errors: Error[] = [];
    for (const link of links) {
      if (closed || bindings.size >= max) break;
      try {
        await bindOn(link, s);
      } catch (error) {
        errors.push(error as Error);
      }
    }
    return errors;
  }

  function scheduleFill(waitMs?: number): void {
    if (closed || retryTimer) return;
    const wait = waitMs ?? Math.min(REBIND_MAX_MS, REBIND_FIRST_MS * 2 ** Math.min(failures, 6));
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      freshSession()
        .then(fill)
        .then(
          (errors) => {
            if (bindings.size > 0 && errors.length === 0) failures = 0;
            else failures++;
            // Short of routers: retry soon after a failure, else look again later for a router that came online.
            if (bindings.size < max) scheduleFill(bindings.size === 0 || errors.length > 0 ? undefined : REFILL_MS);
          },
          (error: Error) => {
            failures++;
            runtime.log?.warn({ service: service.name, err: error.message }, 'svc sdk: binding again failed');
            scheduleFill();
          },
        );
    }, wait);
    retryTimer.unref();
  }

  const errors = await fill(await freshSession());
  if (bindings.size === 0) {
    closed = true;
    for (const stop of watched.values()) stop();
    const why = errors.map((e) => e.message).join('; ') || `no online edge router can host service '${service.name}'`;
    throw new SdkError(errors.length > 0 ? (errors[0] as SdkError).code ?? 'BIND_FAILED' : 'NO_ROUTER', why);
  }

  if (bindings.size < max) scheduleFill(errors.length > 0 ? undefined : REFILL_MS);

  Object.defineProperties(emitter, {
    service: { value: service.name, enumerable: true },
    routers: { get: () => [...bindings.keys()], enumerable: true },
  });
  emitter.close = async () => {
    if (closed) return;
    closed = true;
    if (retryTimer) clearTimeout(retryTimer);
    for (const stop of watched.values()) stop();
    const token = edge?.token ?? '';
    await Promise.all(
      [...bindings.values()].map(async (b) => {
        bindings.delete(b.link.name);
        const ch = b.link.connected ? await b.link.ready() : undefined;
        if (ch) {
          const headers: Array<[number, Buffer]> = [
            [EdgeHeader.ConnId, encode.u32(b.connId)],
            [EdgeHeader.ListenerId, encode.string(listenerId)],
          ];
          // The reference router answers nothing; ours answers StateClosed. Either way the binding is gone.
          await ch.request({ contentType: EdgeType.Unbind, headers, body: b.token || token }, 2_000).catch(() => undefined);
        }
        b.link.unregister(b.connId);
        emitter.emit('unbound', b.link.name);
      }),
    );
  };
  return emitter;
}
