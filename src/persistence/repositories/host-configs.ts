/**
 * The host configs of services (issue 43, HostedServices): for a page of service ids, each service's `host.v1` or
 * `host.v2` config data, in one query over services, their configs and config types.
 */
import type { Database } from '../database.js';
import { parseJson, toBool } from './row-values.js';

export type HostConfigType = 'host.v1' | 'host.v2';

export interface ServiceHostConfig {
  serviceId: string;
  serviceName: string;
  encryptionRequired: boolean;
  configType: HostConfigType;
  config: Record<string, unknown>;
}

/** Service ids per query: within both dialects' bound on parameters. */
const BATCH = 500;

export interface HostConfigRepository {
  /** The host configs of the services among `serviceIds`, ordered by service id then type (v1 before v2). */
  ofServices(serviceIds: readonly string[]): Promise<ServiceHostConfig[]>;
}

export function createHostConfigRepository(database: Database): HostConfigRepository {
  const { db } = database;
  return {
    async ofServices(serviceIds) {
      const found: ServiceHostConfig[] = [];
      for (let i = 0; i < serviceIds.length; i += BATCH) {
        const rows = await db
          .selectFrom('services as s')
          .innerJoin('service_configs as sc', 'sc.service_id', 's.id')
          .innerJoin('config_types as ct', 'ct.id', 'sc.config_type_id')
          .innerJoin('configs as c', 'c.id', 'sc.config_id')
          .select(['s.id', 's.name', 's.encryption_required', 'ct.name as type_name', 'c.data'])
          .where('s.id', 'in', serviceIds.slice(i, i + BATCH))
          .where('ct.name', 'in', ['host.v1', 'host.v2'])
          .orderBy('s.id')
          .orderBy('ct.name')
          .execute();
        for (const row of rows) {
          found.push({ serviceId: row.id, serviceName: row.name, encryptionRequired: toBool(row.encryption_required), configType: row.type_name as HostConfigType, config: parseJson(row.data) });
        }
      }
      return found;
    },
  };
}
