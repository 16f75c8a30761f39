/**
 * The controllers domain's builder: the controllers registered in the store (each registers itself at start, beats
 * a heartbeat while it runs and goes offline at close) and the version document every binding serves.
 */
import type { ControllerConfig } from '../../config/types.js';
import type { LoadedIdentity } from '../../pki/index.js';
import { certificateFingerprint } from '../../pki/index.js';
import type { Database } from '../../persistence/database.js';
import { createControllerRepository, type ControllerRepository } from '../../persistence/repositories/controllers.js';
import type { Clock } from '../../shared/clock.js';
import { createControllerService, type ControllerService } from './controllers.js';
import { ONLINE_WITHIN_MS, startHeartbeat, type Heartbeat } from './heartbeat.js';
import { buildVersionInfo, type BuildInfo, type VersionInfo } from './version.js';

export interface ControllersDomain {
  records: ControllerRepository;
  service: ControllerService;
  version: VersionInfo;
  /**
   * Refuses to start (throws) when another controller with this one's name (its server certificate's subject) but
   * another certificate is online on the store: the two would share one row and retire each other's signing keys.
   * Call before anything is written under the name.
   */
  checkNameFree(identity: Pick<LoadedIdentity, 'serverLeaf'>): Promise<void>;
  /** Starts the heartbeat of the registered controller `id` (heartbeat.ts). */
  startHeartbeat(id: string, onError: (error: unknown) => void): Heartbeat;
}

export function buildControllersDomain(database: Database, deps: { config: ControllerConfig; build: BuildInfo; clock: Clock }): ControllersDomain {
  const records = createControllerRepository(database);
  const { clock } = deps;
  return {
    records,
    service: createControllerService({ controllers: records, clock }),
    version: buildVersionInfo(deps.config, deps.build),
    async checkNameFree(identity) {
      const name = identity.serverLeaf.subject;
      const found = await records.findByName(name);
      if (!found || found.record.fingerprint === certificateFingerprint(identity.serverLeaf.toString('pem'))) return;
      const alive = found.record.isOnline && found.lastHeartbeatAt !== null && found.lastHeartbeatAt.getTime() > clock.now().getTime() - ONLINE_WITHIN_MS;
      if (alive) {
        throw new Error(
          `another controller named '${name}' (certificate ${found.record.fingerprint}) is running on this store; every controller sharing a store needs a server certificate with its own subject`,
        );
      }
    },
    startHeartbeat: (id, onError) => startHeartbeat({ controllers: records, id, clock, onError }),
  };
}
