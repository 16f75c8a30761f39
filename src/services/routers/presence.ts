/**
 * Router presence (issue 41, must-have 5; seam 5 of the contract; docs/decisions/0064-router-presence.md):
 * the control plane says when a verified router's channel comes up and goes down here, and every API that shows a
 * router asks `statusOf` for a page of them at once. The row names this controller; the router reads online at every
 * controller sharing the store while this controller's heartbeat is fresh, and offline once it is stale (killed).
 */
import type { RouterStatus, RouterSyncStatus, RouterVersionInfo } from '../../domain/edge-router.js';
import type { LinkListener, OnlineRouter, RouterPresenceRepository, RoutingRouter, StoredPresence } from '../../persistence/repositories/router-presence.js';
import type { Clock } from '../../shared/clock.js';
import { ONLINE_WITHIN_MS } from '../controllers/heartbeat.js';
import { supportedProtocols } from './advertised-addresses.js';
import { checkHello } from './hello-check.js';

/** What a router says in its hello, as the control plane hands it over. */
export interface RouterHello {
  hostname: string;
  version: string;
  versionInfo: RouterVersionInfo;
  /**
   * Advertised listeners; `advertise` as `tls:host:port` (what the router's file says). Binding `edge` is an SDK
   * listener (it becomes `supportedProtocols`); binding `link` a link listener with its link groups (issue 43).
   */
  listeners: { binding: string; advertise: string; groups?: string[] }[];
  capabilities: string[];
}

/** Online status of routers, one query for a page of them. */
export interface RouterStatusReader {
  /** The status of each of `routerIds` (every id gets one: never connected reads offline, SYNC_NEW). */
  statusOf(routerIds: readonly string[]): Promise<Map<string, RouterStatus>>;
}

export interface RouterPresence extends RouterStatusReader {
  /**
   * A verified router's control channel is up at this controller: record it (store row), so every controller sees it
   * online. Rejects with InvalidHelloError (a field out of bounds) or UnknownRouterError (no such router); either way
   * nothing is recorded and the channel should be closed.
   */
  connected(routerId: string, hello: RouterHello): Promise<void>;
  /** Its channel closed here (only this controller's claim goes: it may already be connected elsewhere). */
  disconnected(routerId: string): Promise<void>;
  /** At controller start: release the rows this controller left behind (it was killed). */
  clearOwn(): Promise<void>;
  /** Routers whose control channel is up at this controller now (the `svc_routers_online` gauge). */
  onlineHere(): number;
  /** Every enabled router online at any controller of the store, with its fingerprint and link listeners (one query). */
  onlineRouters(): Promise<OnlineRouter[]>;
  /** Every router with its online status, cost and noTraversal: what path choice reads (one query). */
  routingRouters(): Promise<RoutingRouter[]>;
}

/** Thrown by `connected` for a router that no longer exists (deleted while its channel came up): close the channel. */
export class UnknownRouterError extends Error {
  constructor(readonly routerId: string) {
    super(`no edge router has the id '${routerId}' (deleted?); its control channel is not recorded`);
  }
}

/** The link listeners among a hello's listeners, with their groups (`default` when the router named none). */
export function linkListenersOf(listeners: RouterHello['listeners']): LinkListener[] {
  return listeners.filter((listener) => listener.binding === 'link').map((listener) => ({ advertise: listener.advertise, groups: [...(listener.groups ?? ['default'])] }));
}

/** A router with no presence row; a new object each time, so no caller can change another's. */
const neverConnected = (): RouterStatus => ({ isOnline: false, syncStatus: 'SYNC_NEW', hostname: '', supportedProtocols: {}, capabilities: [] });

function statusFrom(stored: StoredPresence, online: boolean): RouterStatus {
  const syncStatus: RouterSyncStatus = online ? 'SYNC_DONE' : 'SYNC_DISCONNECTED';
  return {
    isOnline: online,
    syncStatus,
    hostname: stored.hostname,
    supportedProtocols: stored.supportedProtocols,
    versionInfo: stored.versionInfo,
    capabilities: stored.capabilities,
  };
}

/**
 * Reads routers' status. `upHere` says whether a router's channel is up at this very controller (which is alive, as
 * it is answering): such a router is online whatever this controller's heartbeat row says, so a controller whose
 * own heartbeat write is late never shows its own routers offline.
 */
export function createRouterStatusReader(deps: {
  presence: Pick<RouterPresenceRepository, 'find'>;
  clock: Clock;
  upHere?: (routerId: string, controllerId: string) => boolean;
}): RouterStatusReader {
  const upHere = deps.upHere ?? (() => false);
  return {
    async statusOf(routerIds) {
      const found = await deps.presence.find(routerIds, new Date(deps.clock.now().getTime() - ONLINE_WITHIN_MS));
      return new Map(routerIds.map((id) => {
        const stored = found.get(id);
        return [id, stored ? statusFrom(stored, stored.live || (stored.up && upHere(id, stored.controllerId))) : neverConnected()];
      }));
    },
  };
}

/** Router presence before and after this controller has registered (its id is known only once its row is written). */
export interface RegisteringRouterPresence extends RouterPresence {
  /** Names the registered controller; `connected`, `disconnected` and `clearOwn` need it, `statusOf` does not. */
  registerAs(controllerId: string): void;
}

/**
 * The presence of routers at this controller. `onChange` hears the count of routers connected here after each change
 * (the metrics gauge).
 *
 * @example
 * const presence = createRouterPresence({ presence: repo, clock });
 * presence.registerAs(controllerId);
 * await presence.connected(routerId, hello); // on the router's verified hello
 * await presence.disconnected(routerId);     // when its channel closes
 */
export function createRouterPresence(deps: {
  presence: RouterPresenceRepository;
  clock: Clock;
  onChange?: (onlineHere: number) => void;
  /** Hears each router whose channel came up or went down here (the live status stream, issue 45). */
  onRouter?: (routerId: string, isOnline: boolean, version?: string) => void;
}): RegisteringRouterPresence {
  const { presence, clock } = deps;
  let registered: string | undefined;
  const own = () => {
    if (registered === undefined) throw new Error('router presence was used before this controller registered (registerAs)');
    return registered;
  };
  // Held in memory: only this controller's channels count toward its gauge, and they live in this process.
  const here = new Set<string>();
  const changed = () => deps.onChange?.(here.size);
  return {
    ...createRouterStatusReader({ presence, clock, upHere: (routerId, controllerId) => controllerId === registered && here.has(routerId) }),
    registerAs(controllerId) {
      registered = controllerId;
    },
    async connected(routerId, hello) {
      checkHello(hello);
      const report = {
        hostname: hello.hostname,
        // The hello's top-level version is the one shown when the router's build info leaves it out.
        versionInfo: { ...hello.versionInfo, version: hello.versionInfo.version || hello.version },
        // Only SDK listeners are where clients dial; link listeners are for other routers (the Peers push).
        supportedProtocols: supportedProtocols(hello.listeners.filter((listener) => listener.binding === 'edge')),
        capabilities: [...hello.capabilities],
        linkListeners: linkListenersOf(hello.listeners),
      };
      if (!(await presence.connect(routerId, own(), clock.now(), report))) throw new UnknownRouterError(routerId);
      here.add(routerId);
      changed();
      deps.onRouter?.(routerId, true, report.versionInfo.version);
    },
    async disconnected(routerId) {
      here.delete(routerId);
      changed();
      deps.onRouter?.(routerId, false);
      await presence.release(routerId, own(), clock.now());
    },
    async clearOwn() {
      here.clear();
      changed();
      await presence.releaseAll(own(), clock.now());
    },
    onlineHere: () => here.size,
    onlineRouters: () => presence.onlineRouters(new Date(clock.now().getTime() - ONLINE_WITHIN_MS), own()),
    routingRouters: () => presence.routingRouters(new Date(clock.now().getTime() - ONLINE_WITHIN_MS), own()),
  };
}
