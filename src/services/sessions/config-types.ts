/**
 * The config types an API session asked for at login (reference `configTypes` of `authenticate` and of the OIDC
 * login; spec: `z_ct` carries "configuration type ids requested during authentication"). Each value may be a type's
 * id or its name; the session keeps ids, in the order asked, once each. `all` (any case) stands for every type, now
 * and later, and is kept as `all`. A value that names no config type is dropped, not refused: SDKs and tunnelers send
 * a fixed list of the types they understand, and a network without one of them must still let them log in
 * (docs/decisions/0029-posture-responses.md). The services list reads the kept ids by default.
 */
import type { ApiSession } from '../../domain/identity.js';
import type { ConfigType } from '../../domain/config.js';
import type { ResourceRepository } from '../../persistence/resource-table.js';

/** What the session wants with its services: every type, or the types of these ids. */
export interface RequestedConfigTypes {
  all: boolean;
  ids: string[];
}

export interface SessionConfigTypes {
  /** The ids (or `all`) that the values given at login name, for the session to keep. */
  resolve(requested: readonly string[]): Promise<string[]>;
  /** What a session asked for at login (no store read: the session holds the resolved ids). */
  of(session: Pick<ApiSession, 'configTypes'>): RequestedConfigTypes;
}

export const ALL_CONFIG_TYPES = 'all';

export function createSessionConfigTypes(deps: { configTypes: Pick<ResourceRepository<ConfigType>, 'existingIds' | 'findByName'> }): SessionConfigTypes {
  return {
    async resolve(requested) {
      if (requested.length === 0) return [];
      if (requested.some((value) => value.toLowerCase() === ALL_CONFIG_TYPES)) return [ALL_CONFIG_TYPES];
      const ids = await deps.configTypes.existingIds(requested);
      const kept = new Set<string>();
      for (const value of requested) {
        if (ids.has(value)) kept.add(value);
        else {
          const byName = await deps.configTypes.findByName(value);
          if (byName) kept.add(byName.id);
        }
      }
      return [...kept];
    },
    of(session) {
      const all = session.configTypes.includes(ALL_CONFIG_TYPES);
      return { all, ids: all ? [] : [...session.configTypes] };
    },
  };
}
