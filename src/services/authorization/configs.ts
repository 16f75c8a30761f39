/**
 * Configs as operators manage them (`/edge/management/v1/configs`; reference facts A1). Beyond the resource kit's
 * rules: the type must exist (400 REFERENCED_ENTITY_NOT_FOUND naming `configTypeId`) and is fixed at create; the data
 * must satisfy the type's schema (400 naming `data` and where inside it); a config a service carries cannot be
 * deleted (409). Reads carry the type's name for the detail's `configType` reference.
 */
import type { Config, ConfigWithType, JsonObject, Tags } from '../../domain/config.js';
import { ApiError } from '../../errors/api-error.js';
import { NAMED_USERS, referencedEntityError } from '../referenced-entity.js';
import type { ConfigTypeRepository } from '../../persistence/repositories/config-types.js';
import { CONFIG_TABLE, type ConfigRepository } from '../../persistence/repositories/configs.js';
import type { ServiceRepository } from '../../persistence/repositories/services.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { ListPage, RawListParams } from '../list-page.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';
import { dataProblem, fieldPath } from './json-schema.js';
import { idIn, relatedPage } from './related-list.js';

/**
 * A whole config. Create needs `configTypeId`; PUT may leave it out (the reference's configUpdate has no such field)
 * or repeat the current one.
 */
export interface ConfigInput {
  name: string;
  configTypeId?: string;
  data: JsonObject;
  tags?: Tags;
}

export type ConfigPatch = Partial<ConfigInput>;

export interface ConfigService extends ResourceService<ConfigWithType, ConfigInput, ConfigPatch> {
  /** The configs of type `configTypeId`; 404 when no type has that id. */
  listForType(configTypeId: string, params: RawListParams): Promise<ListPage<ConfigWithType>>;
  /** The configs service `serviceId` carries; 404 when no service has that id. */
  listForService(serviceId: string, params: RawListParams): Promise<ListPage<ConfigWithType>>;
}

/** What an administrator sets; `configTypeId` is absent when an edit does not name it. */
type ConfigFields = Pick<Config, 'name' | 'data' | 'tags'> & { configTypeId?: string };

const notFound = (label: string, id: string) => new ApiError('NOT_FOUND', { message: `No ${label} has the id '${id}'`, cause: { field: 'id', value: id } });

export function createConfigService(deps: {
  configs: ConfigRepository;
  configTypes: Pick<ConfigTypeRepository, 'findById' | 'namesByIds'>;
  services: Pick<ServiceRepository, 'findById' | 'idsUsingConfig' | 'namesByIds'>;
  changes: AuditedChanges<Pick<ConfigRepository, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): ConfigService {
  const { configs, configTypes, services } = deps;
  const fields = (input: ConfigInput): ConfigFields => ({
    name: input.name,
    ...(input.configTypeId === undefined ? {} : { configTypeId: input.configTypeId }),
    data: input.data,
    tags: input.tags ?? {},
  });

  /** The type must exist and, after create, stay the same; the data must satisfy its schema. */
  async function check(config: ConfigFields, current: Config | undefined): Promise<void> {
    if (current && config.configTypeId !== undefined && config.configTypeId !== current.configTypeId) {
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: 'The request is invalid: configTypeId cannot be changed after create',
        cause: { field: 'configTypeId', reason: 'cannot be changed after create', value: config.configTypeId },
      });
    }
    const typeId = current?.configTypeId ?? config.configTypeId ?? '';
    const type = await configTypes.findById(typeId);
    if (!type) {
      throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', { message: `No config type has the id '${typeId}'`, cause: { field: 'configTypeId', reason: 'does not exist', value: typeId } });
    }
    const problem = dataProblem(type.schema, config.data);
    if (problem) {
      const field = fieldPath('data', problem.path);
      throw new ApiError('COULD_NOT_VALIDATE', {
        message: `The request is invalid: ${field} ${problem.reason} (config type '${type.name}')`,
        cause: { field, reason: problem.reason, path: problem.path },
      });
    }
  }

  const kit = resourceService<Config, ConfigFields, ConfigInput, ConfigPatch, ResourceScope<Config>>(
    { repository: configs, fields: CONFIG_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'config',
      label: 'config',
      fields,
      patched: (current, patch) =>
        fields({ name: patch.name ?? current.name, configTypeId: patch.configTypeId ?? current.configTypeId, data: patch.data ?? current.data, tags: patch.tags ?? current.tags }),
      created: (config, id, now) => ({ ...config, configTypeId: config.configTypeId ?? '', id, createdAt: now, updatedAt: now }),
      check,
      async checkDelete(config) {
        const ids = await services.idsUsingConfig(config.id);
        if (ids.length === 0) return;
        // The first few by name (one bounded read), so the operator knows where to remove it.
        const users = [...(await services.namesByIds(ids.slice(0, NAMED_USERS)))].map(([id, name]) => ({ id, name }));
        throw referencedEntityError({
          label: 'config', name: config.name, id: config.id, singular: 'service', plural: 'services', referencedBy: 'services',
          total: ids.length, users, advice: `remove it from ${ids.length === 1 ? 'the service' : 'those services'} first`,
        });
      },
      auditDetails: (config) => ({ name: config.name, configTypeId: config.configTypeId, data: config.data }),
    },
  );

  /** The configs with their type's name. */
  async function withTypes(items: Config[]): Promise<ConfigWithType[]> {
    const names = await configTypes.namesByIds(items.map((config) => config.configTypeId));
    return items.map((config) => ({ ...config, configTypeName: names.get(config.configTypeId) ?? '' }));
  }
  const named = async (page: ListPage<Config>): Promise<ListPage<ConfigWithType>> => ({ ...page, items: await withTypes(page.items) });
  const one = async (config: Config) => (await withTypes([config]))[0] as ConfigWithType;

  return {
    list: async (params) => named(await kit.list(params)),
    get: async (id) => one(await kit.get(id)),
    create: async (actor, input) => one(await kit.create(actor, input)),
    replace: async (actor, id, input) => one(await kit.replace(actor, id, input)),
    patch: async (actor, id, patch) => one(await kit.patch(actor, id, patch)),
    delete: (actor, id) => kit.delete(actor, id),
    async listForType(configTypeId, params) {
      if (!(await configTypes.findById(configTypeId))) throw notFound('config type', configTypeId);
      return named(await relatedPage(params, CONFIG_TABLE.fields, { kind: 'compare', field: 'configTypeId', operator: '=', value: configTypeId }, (q) => configs.list(q)));
    },
    async listForService(serviceId, params) {
      if (!(await services.findById(serviceId))) throw notFound('service', serviceId);
      return named(await relatedPage(params, CONFIG_TABLE.fields, idIn(await configs.idsOfService(serviceId)), (q) => configs.list(q)));
    },
  };
}
