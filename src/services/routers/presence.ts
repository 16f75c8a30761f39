/**
 * Router presence (issue 41, must-have 5; seam 5 of the contract; docs/decisions/0064-router-presence.md):
 * the control plane says when a verified router's channel comes up and goes down here, and every API that shows a
 * router asks `statusOf` for a page of them at once. The row names this controller; the router reads online at every
 * controller sharing the store while this controller's heartbeat is fresh, and offline once it is stale (killed).
 */
import type { RouterStatus, RouterSyncStatus, RouterVersionInfo } from '../../domain/edge-router.js';
import type { RouterPresenceRepository, StoredPresence } from '../../persistence/repositories/router-presence.js';
import type { Clock } from '../../shared/clock.js';
import { ONLINE_WITHIN_MS } from '../controllers/heartbeat.js';
import { supportedProtocols } from './advertised-addresses.js';

/** What a router says in its hello, as the control plane hands it over. */
export interface RouterHello {
  hostname: string;
  version: string;
  versionInfo: RouterVersionInfo;
  /** Advertised edge listeners; `advertise` as `tls:host:port` (what the router's file says). */
  listeners: { binding: string; advertise: string }[];
  capabilities: string[];
}

/** Online status of routers, one query for a page of them. */
export interface RouterStatusReader {
  /** The status of each of `routerIds` (every id gets one: never connected reads offline, SYNC_NEW). */
  statusOf(routerIds: readonly string[]): Promise<Map<string, RouterStatus>>;
}

export interface RouterPresence extends RouterStatusReader {
  /** A verified router's control channel is up at this controller: record it (store row), so every controller sees it online. */
  connected(routerId: string, hello: RouterHello): Promise<void>;
  /** Its channel closed here (only this controller's claim goes: it may already be connected elsewhere). */
  disconnected(routerId: string): Promise<void>;
  /** At controller start: release the rows this controller left behind (it was killed). */
  clearOwn(): Promise<void>;
  /** Routers whose control channel is up at this controller now (the `svc_routers_online` gauge). */
  onlineHere(): number;
}

/** Thrown by `connected` for a router that no longer exists (deleted while its channel came up): close the channel. */
export class UnknownRouterError extends Error {
  constructor(readonly routerId: string) {
    super(`no edge router has the id '${routerId}' (deleted?); its control channel is not recorded`);
  }
}

const NEVER_CONNECTED: RouterStatus = { isOnline: false, syncStatus: 'SYNC_NEW', hostname: '', supportedProtocols: {}, capabilities: [] };

function statusFrom(stored: StoredPresence): RouterStatus {
  const syncStatus: RouterSyncStatus = stored.live ? 'SYNC_DONE' : 'SYNC_DISCONNECTED';
  return {
    isOnline: stored.live,
    syncStatus,
    hostname: stored.hostname,
    supportedProtocols: stored.supportedProtocols,
    versionInfo: stored.versionInfo,
    capabilities: stored.capabilities,
  };
}

/**
 * Reads routers' status; no controller id needed, so the domains that show routers get it before this controller
 * has registered.
 */
export function createRouterStatusReader(deps: { presence: Pick<RouterPresenceRepository, 'find'>; clock: Clock }): RouterStatusReader {
  return {
    async statusOf(routerIds) {
      const found = await deps.presence.find(routerIds, new Date(deps.clock.now().getTime() - ONLINE_WITHIN_MS));
      return new Map(routerIds.map((id) => {
        const stored = found.get(id);
        return [id, stored ? statusFrom(stored) : NEVER_CONNECTED];
      }));
    },
  };
}

/**
 * The presence of routers at controller `controllerId`. `onChange` hears the count of routers connected here after
 * each change (the metrics gauge).
 *
 * @example
 * const presence = createRouterPresence({ presence: repo, controllerId, clock });
 * await presence.connected(routerId, hello); // on the router's verified hello
 * await presence.disconnected(routerId);     // when its channel closes
 */
export function createRouterPresence(deps: {
  presence: RouterPresenceRepository;
  controllerId: string;
  clock: Clock;
  onChange?: (onlineHere: number) => void;
}): RouterPresence {
  const { presence, controllerId, clock } = deps;
  // Held in memory: only this controller's channels count toward its gauge, and they live in this process.
  const here = new Set<string>();
  const changed = () => deps.onChange?.(here.size);
  return {
    ...createRouterStatusReader({ presence, clock }),
    async connected(routerId, hello) {
      const report = {
        hostname: hello.hostname,
        // The hello's top-level version is the one shown when the router's build info leaves it out.
        versionInfo: { ...hello.versionInfo, version: hello.versionInfo.version || hello.version },
        supportedProtocols: supportedProtocols(hello.listeners),
        capabilities: [...hello.capabilities],
      };
      if (!(await presence.connect(routerId, controllerId, clock.now(), report))) throw new UnknownRouterError(routerId);
      here.add(routerId);
      changed();
    },
    async disconnected(routerId) {
      here.delete(routerId);
      changed();
      await presence.release(routerId, controllerId, clock.now());
    },
    async clearOwn() {
      here.clear();
      changed();
      await presence.releaseAll(controllerId, clock.now());
    },
    onlineHere: () => here.size,
  };
}
