/**
 * The live status watch (issue 45): turns what changed, at this controller or at another sharing the store, into
 * the status events the live status stream pushes. It follows the change feed (decision 0035): here at commit,
 * elsewhere as soon as PostgreSQL announces the change (LISTEN/NOTIFY), at worst at the feed's next poll.
 *
 * - Routers: a `router-presence` change (a control channel came up or went down at some controller) is answered by
 *   reading that router's status, as every API shows it, and publishing it.
 * - Identities: an `identity-presence` change (an API session of the identity began or ended: login, logout,
 *   revocation, the sweep) is answered by reading when the identity's liveness ends, decided as its `hasApiSession`
 *   is (decision 0010). While it lives, one timer waits for that moment and reads again (activity or a refresh may
 *   have moved it on). The event carries `hasEdgeRouterConnection` as this controller's routers report it
 *   (decision 0083); a flip of it is written as an `identity-presence` change too, so it is pushed when it changes.
 *   Nothing is ever scanned: the work and the memory grow with the identities that change and
 *   are online, never with the identities there are.
 */
import type { SessionPresenceRepository } from '../../persistence/repositories/session-presence.js';
import type { Clock } from '../../shared/clock.js';
import { createLru } from '../../shared/lru.js';
import type { ChangeFeed, FeedEvent } from '../change-feed/index.js';
import type { RouterStatusReader } from '../routers/presence.js';
import type { StatusEvents } from './status-events.js';

/** The longest a Node timer waits; a later end is read again then (and waited for again). */
const LONGEST_WAIT_MS = 2_147_483_647;
/** Identities last told offline, remembered so a change heard twice (at commit, then from the log) is told once. */
const REMEMBERED_OFFLINE = 10_000;

export interface LiveStatusWatch {
  /** Identities online here now, each with its one timer (tests, and the bound). */
  readonly online: number;
  close(): void;
}

export function watchLiveStatus(deps: {
  feed: ChangeFeed;
  events: StatusEvents;
  routers: RouterStatusReader;
  /** The identity's name, read once per change (not once per stream). */
  identities: { findById(id: string): Promise<{ name: string } | undefined> };
  sessions: { presence: Pick<SessionPresenceRepository, 'latestOf'>; legacyTimeoutMs: number; accessTokenLifetimeMs: number };
  /** Identities with SDK channels at the routers connected here; none without. */
  edge?: { has(identityId: string): boolean };
  clock: Clock;
  /** A read failed: the state is read again at the next change. */
  onError(error: unknown): void;
}): LiveStatusWatch {
  const { events, clock, sessions } = deps;
  // Identities online here, each with the timer at the end of its liveness.
  const online = new Map<string, NodeJS.Timeout>();
  const offline = createLru<string, true>(REMEMBERED_OFFLINE);
  // Reads under way, per identity: true when another was asked for meanwhile (it runs after, on the newer state).
  const reading = new Map<string, boolean>();
  // Identities last told with hasEdgeRouterConnection true (bounded by the identities routers report here).
  const toldConnected = new Set<string>();

  /** When the identity's liveness ends (ms since the epoch; 0 without sessions), as `hasApiSession` decides it. */
  async function liveUntil(identityId: string): Promise<number> {
    const now = clock.now().getTime();
    const latest = await sessions.presence.latestOf(identityId, {
      legacyActiveAfter: new Date(now - sessions.legacyTimeoutMs),
      accessIssuedAfter: new Date(now - sessions.accessTokenLifetimeMs),
      now: new Date(now),
    });
    return Math.max(
      latest.legacyActivity ? latest.legacyActivity.getTime() + sessions.legacyTimeoutMs : 0,
      latest.oidcCreated ? latest.oidcCreated.getTime() + sessions.accessTokenLifetimeMs : 0,
      latest.refreshExpiry ? latest.refreshExpiry.getTime() : 0,
    );
  }

  async function readIdentity(identityId: string): Promise<void> {
    const until = await liveUntil(identityId);
    const now = clock.now().getTime();
    const wasOnline = online.has(identityId);
    const wasOffline = offline.get(identityId) === true;
    clearTimeout(online.get(identityId));
    const isOnline = until > now;
    if (isOnline) {
      const timer = setTimeout(() => identityChanged(identityId), Math.min(until - now + 1, LONGEST_WAIT_MS));
      timer.unref();
      online.set(identityId, timer);
      offline.delete(identityId);
    } else {
      online.delete(identityId);
      offline.set(identityId, true);
    }
    const connected = deps.edge?.has(identityId) ?? false;
    const wasConnected = toldConnected.has(identityId);
    if (connected) toldConnected.add(identityId);
    else toldConnected.delete(identityId);
    // An identity neither online nor offline here is told either way: the page may show it as it was at load.
    if ((isOnline ? wasOnline : wasOffline) && connected === wasConnected) return;
    const name = (await deps.identities.findById(identityId))?.name;
    events.publish({ kind: 'identity', id: identityId, ...(name === undefined ? {} : { name }), hasApiSession: isOnline, hasEdgeRouterConnection: connected, at: new Date(now) });
  }

  function identityChanged(identityId: string): void {
    if (reading.has(identityId)) {
      reading.set(identityId, true);
      return;
    }
    reading.set(identityId, false);
    void readIdentity(identityId)
      .catch((error: unknown) => deps.onError(error))
      .finally(() => {
        const again = reading.get(identityId);
        reading.delete(identityId);
        if (again) identityChanged(identityId);
      });
  }

  // Router reads one after another, so an older read never publishes after a newer one.
  let routerReads = Promise.resolve();
  function routersChanged(routerIds: string[]): void {
    routerReads = routerReads
      .then(async () => {
        const status = await deps.routers.statusOf(routerIds);
        for (const [id, one] of status) {
          const version = one.isOnline ? one.versionInfo?.version : undefined;
          events.publish({ kind: 'router', id, isOnline: one.isOnline, ...(version ? { version } : {}), at: clock.now() });
        }
      })
      .catch((error: unknown) => deps.onError(error));
  }

  function heard(event: FeedEvent): void {
    if (event.kind === 'reset') {
      // Changes were missed: what this controller thinks online is read again (those it thinks offline were told).
      offline.clear();
      for (const identityId of new Set([...online.keys(), ...toldConnected])) identityChanged(identityId);
      return;
    }
    const routerIds = new Set<string>();
    for (const { entityType, entityId } of event.changes) {
      if (entityType === 'identity-presence') identityChanged(entityId);
      // A deleted identity's sessions go with it, with no session change of their own.
      else if (entityType === 'identity' && online.has(entityId)) identityChanged(entityId);
      else if (entityType === 'router-presence') routerIds.add(entityId);
    }
    if (routerIds.size > 0) routersChanged([...routerIds]);
  }

  const unsubscribe = deps.feed.subscribe(heard);
  return {
    get online() {
      return online.size;
    },
    close() {
      unsubscribe();
      for (const timer of online.values()) clearTimeout(timer);
      online.clear();
    },
  };
}
