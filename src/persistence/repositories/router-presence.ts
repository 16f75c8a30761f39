/**
 * Router presence in the store (migration 0028; docs/decisions/0064-router-presence.md): one row per router that has
 * connected, naming the controller its control channel was last up at. Whether that controller is still alive is
 * read in the same query from the controllers table, so a page of routers costs one read.
 */
import type { RouterVersionInfo } from '../../domain/edge-router.js';
import type { Database } from '../database.js';
import { recordChange } from './authorization-changes.js';
import { parseJson, toBool, toIso } from './row-values.js';

/** What a router reported when its control channel came up. */
export interface PresenceReport {
  hostname: string;
  versionInfo: RouterVersionInfo;
  supportedProtocols: Record<string, string>;
  capabilities: string[];
  /** Its link listeners (issue 43); what the other routers are told to dial. */
  linkListeners: LinkListener[];
}

/** A link listener a router's hello named: `tls:host:port` and the link groups it serves. */
export interface LinkListener {
  advertise: string;
  groups: string[];
}

/**
 * A stored presence as read: `up` while the row says the channel is up at `controllerId`, `live` when besides that
 * controller's heartbeat is fresh.
 */
export interface StoredPresence extends PresenceReport {
  controllerId: string;
  up: boolean;
  live: boolean;
}

export interface RouterPresenceRepository {
  /** The router's channel is up at `controllerId` from `at`: its row, replaced whole. False when no router has the id. */
  connect(routerId: string, controllerId: string, at: Date, report: PresenceReport): Promise<boolean>;
  /** Marks the router's channel closed at `at`, only if its row names `controllerId`. */
  release(routerId: string, controllerId: string, at: Date): Promise<void>;
  /** Marks every channel still up at `controllerId` closed at `at` (that controller restarted). */
  releaseAll(controllerId: string, at: Date): Promise<void>;
  /**
   * The presence of each router among `routerIds` that has one, in one query; `live` needs the controller online with
   * a heartbeat at `aliveSince` or later.
   */
  find(routerIds: readonly string[], aliveSince: Date): Promise<Map<string, StoredPresence>>;
  /**
   * Every enabled, enrolled router whose channel is up at a live controller (heartbeat at `aliveSince` or later, or
   * `ownControllerId`, which is alive as it asks), ordered by id, in one query: the Peers push (issue 43).
   */
  onlineRouters(aliveSince: Date, ownControllerId: string): Promise<OnlineRouter[]>;
  /** Every router with what path choice reads of it (online as in `onlineRouters`), in one query. */
  routingRouters(aliveSince: Date, ownControllerId: string): Promise<RoutingRouter[]>;
}

/** A router as path choice reads it. */
export interface RoutingRouter {
  id: string;
  online: boolean;
  cost: number;
  noTraversal: boolean;
}

/** An online router as the Peers push and path choice see it. */
export interface OnlineRouter {
  id: string;
  name: string;
  /** Its current client certificate's SHA-1 (lowercase hex). */
  fingerprint: string;
  linkListeners: LinkListener[];
}

/** Whether the controller of a presence row is alive: it is `own` (which asks, so it runs), or its heartbeat is at `since` or later. */
function controllerAlive(row: { controller_id: string | null; is_online: boolean | number | null; last_heartbeat_at: string | null }, since: string, own?: string): boolean {
  if (own !== undefined && row.controller_id === own) return true;
  return row.is_online !== null && toBool(row.is_online) && row.last_heartbeat_at !== null && row.last_heartbeat_at >= since;
}

export function createRouterPresenceRepository(database: Database): RouterPresenceRepository {
  const { db } = database;
  return {
    async connect(routerId, controllerId, at, report) {
      const values = {
        controller_id: controllerId,
        connected_at: toIso(at),
        disconnected_at: null,
        hostname: report.hostname,
        version_info: JSON.stringify(report.versionInfo),
        supported_protocols: JSON.stringify(report.supportedProtocols),
        capabilities: JSON.stringify(report.capabilities),
        link_listeners: JSON.stringify(report.linkListeners),
      };
      try {
        await db
          .insertInto('router_presence')
          .values({ router_id: routerId, ...values })
          .onConflict((conflict) => conflict.column('router_id').doUpdateSet(values))
          .execute();
        // Other controllers' live status streams learn of it through the change feed (issue 45).
        await recordChange(database, 'router-presence', routerId, at);
        return true;
      } catch (error) {
        // A router deleted meanwhile fails the foreign key; anything else is the store's own failure.
        const router = await db.selectFrom('edge_routers').select('id').where('id', '=', routerId).executeTakeFirst();
        if (router === undefined) return false;
        throw error;
      }
    },
    async release(routerId, controllerId, at) {
      const released = await db
        .updateTable('router_presence')
        .set({ disconnected_at: toIso(at) })
        .where('router_id', '=', routerId)
        .where('controller_id', '=', controllerId)
        .where('disconnected_at', 'is', null)
        .executeTakeFirst();
      if (Number(released.numUpdatedRows) > 0) await recordChange(database, 'router-presence', routerId, at);
    },
    async releaseAll(controllerId, at) {
      const released = await db
        .updateTable('router_presence')
        .set({ disconnected_at: toIso(at) })
        .where('controller_id', '=', controllerId)
        .where('disconnected_at', 'is', null)
        .returning('router_id')
        .execute();
      for (const { router_id } of released) await recordChange(database, 'router-presence', router_id, at);
    },
    async find(routerIds, aliveSince) {
      const found = new Map<string, StoredPresence>();
      if (routerIds.length === 0) return found;
      const rows = await db
        .selectFrom('router_presence as p')
        .leftJoin('controllers as c', 'c.id', 'p.controller_id')
        .select(['p.router_id', 'p.controller_id', 'p.disconnected_at', 'p.hostname', 'p.version_info', 'p.supported_protocols', 'p.capabilities', 'p.link_listeners', 'c.is_online', 'c.last_heartbeat_at'])
        .where('p.router_id', 'in', [...new Set(routerIds)])
        .execute();
      const since = toIso(aliveSince);
      for (const row of rows) {
        const alive = controllerAlive(row, since);
        found.set(row.router_id, {
          controllerId: row.controller_id,
          up: row.disconnected_at === null,
          live: row.disconnected_at === null && alive,
          hostname: row.hostname,
          versionInfo: parseJson(row.version_info),
          supportedProtocols: parseJson(row.supported_protocols),
          capabilities: parseJson(row.capabilities),
          linkListeners: parseJson(row.link_listeners),
        });
      }
      return found;
    },
    async onlineRouters(aliveSince, ownControllerId) {
      const since = toIso(aliveSince);
      const rows = await db
        .selectFrom('router_presence as p')
        .innerJoin('edge_routers as r', 'r.id', 'p.router_id')
        .leftJoin('controllers as c', 'c.id', 'p.controller_id')
        .select(['r.id', 'r.name', 'r.fingerprint', 'r.disabled', 'p.controller_id', 'p.link_listeners', 'c.is_online', 'c.last_heartbeat_at'])
        .where('p.disconnected_at', 'is', null)
        .where('r.fingerprint', 'is not', null)
        .orderBy('r.id')
        .execute();
      const online: OnlineRouter[] = [];
      for (const row of rows) {
        if (!controllerAlive(row, since, ownControllerId) || toBool(row.disabled) || row.fingerprint === null) continue;
        online.push({ id: row.id, name: row.name, fingerprint: row.fingerprint, linkListeners: parseJson(row.link_listeners) });
      }
      return online;
    },
    async routingRouters(aliveSince, ownControllerId) {
      const since = toIso(aliveSince);
      const rows = await db
        .selectFrom('edge_routers as r')
        .leftJoin('router_presence as p', 'p.router_id', 'r.id')
        .leftJoin('controllers as c', 'c.id', 'p.controller_id')
        .select(['r.id', 'r.cost', 'r.no_traversal', 'r.disabled', 'p.controller_id', 'p.disconnected_at', 'c.is_online', 'c.last_heartbeat_at'])
        .execute();
      return rows.map((row) => {
        const up = row.controller_id !== null && row.disconnected_at === null;
        return { id: row.id, online: up && controllerAlive(row, since, ownControllerId) && !toBool(row.disabled), cost: Number(row.cost), noTraversal: toBool(row.no_traversal) };
      });
    },
  };
}
