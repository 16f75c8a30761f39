/**
 * `GET /current-api-session/service-updates` (issue 15, item 5; docs/decisions/0032-client-services.md): when the
 * caller's service list, or anything it says, last changed. SDKs poll it and list their services again only when it
 * moves, so it must move for every change the caller would see (a service, its configs and their types, a policy, a
 * posture check of a policy that selects the caller, the caller's attributes) and for nothing else.
 *
 * The engine gives a fingerprint of the list from its in-memory index. A poll with nothing changed anywhere since
 * this controller last answered the identity costs a map lookup after the index's one change-log read; after a
 * change, the fingerprint is recomputed once per identity (no store read while it is the same). When it moved, the
 * new time is written to the store, so every controller answers the same time, and a restart changes nothing.
 */
import type { Clock } from '../../shared/clock.js';
import type { ServiceUpdateMarkRepository } from '../../persistence/repositories/service-update-marks.js';
import type { RoleHolder } from '../../policy/roles.js';
import { holderKey } from '../../policy/service-reach-state.js';
import { createLru } from '../../shared/lru.js';
import type { PolicyEngine, ServiceListState } from './engine.js';

export interface ServiceUpdatesService {
  /** When `identity`'s service list last changed; `since` (the API session's start) when nothing is known before it. */
  lastChangeAt(identity: RoleHolder, since: Date): Promise<Date>;
  /** The same answer at once when it is known without reading the store (the common poll); else undefined. */
  lastChangeAtFromMemory(identity: RoleHolder): Date | undefined;
}

/** The last answer given for an identity, and the index version and list fingerprint it was given at. */
interface Seen {
  version: number;
  fingerprint: string;
  changedAt: Date;
}

/** Identities whose last answer a controller keeps in memory. */
const KEPT_IDENTITIES = 100_000;

export function createServiceUpdatesService(deps: {
  engine: Pick<PolicyEngine, 'serviceListState' | 'serviceListStateFromMemory'>;
  marks: ServiceUpdateMarkRepository;
  clock: Clock;
}): ServiceUpdatesService {
  const seen = createLru<string, Seen>(KEPT_IDENTITIES);

  /** The last answer, when the list is as it was then (the index did not move, or moved without changing it). */
  const unchanged = (key: string, known: Seen | undefined, quick: ServiceListState): Date | undefined => {
    if (!known || (quick.fingerprint !== undefined && known.fingerprint !== quick.fingerprint)) return undefined;
    if (known.version !== quick.version) seen.set(key, { ...known, version: quick.version });
    return known.changedAt;
  };

  return {
    lastChangeAtFromMemory(identity) {
      const key = holderKey(identity);
      const known = seen.get(key);
      const quick = known && deps.engine.serviceListStateFromMemory(identity, known.version);
      return quick && unchanged(key, known, quick);
    },

    async lastChangeAt(identity, since) {
      const key = holderKey(identity);
      const known = seen.get(key);
      const quick = await deps.engine.serviceListState(identity, known?.version);
      const same = unchanged(key, known, quick);
      if (same) return same;
      // The mark shared with other controllers is read, and maybe written, only from an index with every change
      // committed anywhere: a controller that lags (answering from memory on a store of its own) never stores a
      // list it no longer has as a change.
      const state = await deps.engine.serviceListState(identity, undefined, { strict: true });
      const { version, newestChangeAt } = state;
      if (known && known.fingerprint === state.fingerprint) {
        seen.set(key, { ...known, version });
        return known.changedAt;
      }
      const fingerprint = state.fingerprint as string;
      const stored = await deps.marks.find(identity.id);
      let changedAt: Date;
      if (stored && stored.fingerprint === fingerprint) changedAt = stored.changedAt;
      else {
        // The change is no later than the newest one the index holds; the time only ever moves forward.
        const newest = newestChangeAt || deps.clock.now().getTime();
        const proposed = stored ? new Date(Math.max(stored.changedAt.getTime() + 1, newest)) : new Date(newestChangeAt || since.getTime());
        // Two controllers may see one change at once: the first mark stored wins and both answer its time.
        changedAt = (await deps.marks.save(identity.id, { fingerprint, changedAt: proposed })).changedAt;
      }
      seen.set(key, { version, fingerprint, changedAt });
      return changedAt;
    },
  };
}
