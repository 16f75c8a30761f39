/**
 * The wire views of config types, configs and services, shared by their route files and the lists that show one
 * from another (`/services/{id}/configs`, `/configs/{id}/services`, `/config-types/{id}/configs`).
 */
import type { ConfigType, ConfigWithType } from '../../domain/config.js';
import type { Service } from '../../domain/service.js';
import type { ReachService } from '../../services/authorization/engine.js';
import { selfLink } from '../kit/envelope.js';

/** A config type as sent. */
export function configTypeView(type: ConfigType) {
  return {
    id: type.id,
    name: type.name,
    schema: type.schema,
    tags: type.tags,
    createdAt: type.createdAt.toISOString(),
    updatedAt: type.updatedAt.toISOString(),
    _links: { ...selfLink('config-types', type.id), configs: { href: `./config-types/${type.id}/configs` } },
  };
}

/** A config as sent. */
export function configView(config: ConfigWithType) {
  return {
    id: config.id,
    name: config.name,
    configTypeId: config.configTypeId,
    configType: { id: config.configTypeId, name: config.configTypeName, entity: 'config-types', _links: selfLink('config-types', config.configTypeId) },
    data: config.data,
    tags: config.tags,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
    _links: { ...selfLink('configs', config.id), services: { href: `./configs/${config.id}/services` } },
  };
}

/**
 * A service as sent; what serviceDetail requires but only a client's own session fills is empty (schemas/service.ts).
 * Takes the index's read-only services too; the view only reads them (the casts drop `readonly` for the wire type).
 */
export function serviceView(service: Readonly<Omit<Service, 'configs' | 'roleAttributes' | 'tags'>> & Pick<ReachService, 'configs' | 'roleAttributes' | 'tags'>) {
  return {
    id: service.id,
    name: service.name,
    configs: service.configs as string[],
    config: {},
    encryptionRequired: service.encryptionRequired,
    maxIdleTimeMillis: service.maxIdleTimeMillis,
    roleAttributes: service.roleAttributes as string[],
    terminatorStrategy: service.terminatorStrategy,
    permissions: [],
    postureQueries: [],
    tags: service.tags as Service['tags'],
    createdAt: service.createdAt.toISOString(),
    updatedAt: service.updatedAt.toISOString(),
    _links: { ...selfLink('services', service.id), configs: { href: `./services/${service.id}/configs` } },
  };
}
