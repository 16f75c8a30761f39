/**
 * The controllers domain's builder: the controllers registered in the store (each registers itself at start and
 * goes offline at close) and the version document every binding serves.
 */
import type { ControllerConfig } from '../../config/types.js';
import type { Database } from '../../persistence/database.js';
import { createControllerRepository, type ControllerRepository } from '../../persistence/repositories/controllers.js';
import { createControllerService, type ControllerService } from './controllers.js';
import { buildVersionInfo, type BuildInfo, type VersionInfo } from './version.js';

export interface ControllersDomain {
  records: ControllerRepository;
  service: ControllerService;
  version: VersionInfo;
}

export function buildControllersDomain(database: Database, deps: { config: ControllerConfig; build: BuildInfo }): ControllersDomain {
  const records = createControllerRepository(database);
  return { records, service: createControllerService({ controllers: records }), version: buildVersionInfo(deps.config, deps.build) };
}
