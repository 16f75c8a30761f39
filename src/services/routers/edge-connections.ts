/**
 * Which identities hold SDK channels at the routers connected to this controller (issue 45; decision 0083): what
 * routers report in IdentityConnections, kept in memory per router. An identity is connected while at least one of
 * those routers reports it; `onChange` hears each identity whose connected state flips, so the controller can tell
 * the others (a change-log entry) and its own status stream. Nothing is stored: a restarted controller learns the
 * sets again, as every router sends its whole set after each (re)connect.
 */
import type { IdentityConnections } from '../../control-protocol/bodies.js';

/**
 * Identities one router may report. Above a router's own channel limit (50,000 by default); a router reporting more
 * is misbehaving, and the extra ids are dropped rather than let grow the controller's memory.
 */
export const MAX_IDENTITIES_PER_ROUTER = 200_000;

export interface EdgeConnections {
  /** Whether some router connected here reports a channel of the identity. */
  has(identityId: string): boolean;
  /** Applies a router's report; answers how many ids were dropped for the bound (0 normally). */
  report(routerId: string, report: IdentityConnections): number;
  /** The router's control channel closed here (offline, deleted, disabled): its identities go. */
  routerGone(routerId: string): void;
  /** Identities connected here now (tests, metrics). */
  readonly size: number;
}

/**
 * @example
 * const connections = createEdgeConnections({ onChange: (id, connected) => console.log(id, connected) });
 * connections.report('router-1', { reset: true, connected: ['identity-1'], disconnected: [] });
 * connections.has('identity-1'); // true
 */
export function createEdgeConnections(deps: { onChange(identityId: string, connected: boolean): void; maxPerRouter?: number }): EdgeConnections {
  const max = deps.maxPerRouter ?? MAX_IDENTITIES_PER_ROUTER;
  const byRouter = new Map<string, Set<string>>();
  // Per identity, how many routers report it: connected while above zero.
  const routersOf = new Map<string, number>();

  const add = (identityId: string) => {
    const count = routersOf.get(identityId) ?? 0;
    routersOf.set(identityId, count + 1);
    if (count === 0) deps.onChange(identityId, true);
  };
  const remove = (identityId: string) => {
    const count = routersOf.get(identityId) ?? 0;
    if (count <= 1) {
      routersOf.delete(identityId);
      if (count === 1) deps.onChange(identityId, false);
    } else routersOf.set(identityId, count - 1);
  };

  return {
    has: (identityId) => routersOf.has(identityId),
    report(routerId, report) {
      let set = byRouter.get(routerId);
      if (!set) byRouter.set(routerId, (set = new Set()));
      const before = report.reset ? set : undefined;
      if (before) byRouter.set(routerId, (set = new Set()));
      let dropped = 0;
      for (const id of report.connected) {
        if (set.has(id)) continue;
        if (set.size >= max) {
          dropped++;
          continue;
        }
        set.add(id);
        // After a reset, an identity reported again keeps its count: no flip, nothing told.
        if (before?.delete(id)) continue;
        add(id);
      }
      for (const id of report.disconnected) {
        if (set.delete(id)) remove(id);
      }
      for (const id of before ?? []) remove(id);
      if (set.size === 0) byRouter.delete(routerId);
      return dropped;
    },
    routerGone(routerId) {
      const set = byRouter.get(routerId);
      byRouter.delete(routerId);
      for (const id of set ?? []) remove(id);
    },
    get size() {
      return routersOf.size;
    },
  };
}

/**
 * Writes one change per identity whose connected state flipped, one write at a time. An identity that flips again
 * before its write runs is written once: readers read the state then, not the flip.
 *
 * @example const noteChange = queuedChanges((id) => recordChange(database, 'identity-presence', id), console.warn);
 */
export function queuedChanges(write: (identityId: string) => Promise<void>, onError: (error: unknown) => void): (identityId: string) => void {
  const pending = new Set<string>();
  let running = false;
  async function drain(): Promise<void> {
    running = true;
    while (pending.size > 0) {
      const [next] = pending;
      pending.delete(next!);
      await write(next!).catch(onError);
    }
    running = false;
  }
  return (identityId) => {
    pending.add(identityId);
    if (!running) void drain();
  };
}
