/**
 * Config types as operators manage them (`/edge/management/v1/config-types`; reference facts A1). Beyond the
 * resource kit's rules: the schema must be a JSON Schema whose root is `type: object` (400 naming `schema`); a new
 * schema must still accept every config of the type, so stored configs never break their type; a type configs use
 * cannot be deleted (409). The well-known types (`intercept.v1`, `host.v1`, …) are seeded by migration 0013.
 */
import type { ConfigType, JsonObject, Tags } from '../../domain/config.js';
import { ApiError } from '../../errors/api-error.js';
import { NAMED_USERS, referencedEntityError } from '../referenced-entity.js';
import { CONFIG_TYPE_TABLE, type ConfigTypeRepository } from '../../persistence/repositories/config-types.js';
import type { ConfigRepository } from '../../persistence/repositories/configs.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';
import { configSchemaProblem, dataProblem, fieldPath } from './json-schema.js';

/** A whole config type (create, PUT); an absent schema accepts any object, absent tags are `{}`. */
export interface ConfigTypeInput {
  name: string;
  schema?: JsonObject;
  tags?: Tags;
}

export type ConfigTypePatch = Partial<ConfigTypeInput>;

export type ConfigTypeService = ResourceService<ConfigType, ConfigTypeInput, ConfigTypePatch>;

type ConfigTypeFields = Pick<ConfigType, 'name' | 'schema' | 'tags'>;

/** The schema of a type created without one: any JSON object. */
const ANY_OBJECT: JsonObject = { type: 'object' };

const invalidSchema = (reason: string, path: string, value?: unknown) =>
  new ApiError('COULD_NOT_VALIDATE', {
    message: `The request is invalid: schema ${reason}`,
    cause: { field: 'schema', reason, path: fieldPath('schema', path), ...(value === undefined ? {} : { value }) },
  });

export function createConfigTypeService(deps: {
  configTypes: ConfigTypeRepository;
  configs: Pick<ConfigRepository, 'countOfType' | 'namesOfType' | 'allOfType'>;
  changes: AuditedChanges<Pick<ConfigTypeRepository, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): ConfigTypeService {
  const { configs } = deps;
  const fields = (input: ConfigTypeInput): ConfigTypeFields => ({ name: input.name, schema: input.schema ?? ANY_OBJECT, tags: input.tags ?? {} });

  /** A changed schema must accept the configs already of the type; the first that breaks it is named. */
  async function requireConfigsStillValid(type: ConfigTypeFields, current: ConfigType): Promise<void> {
    if (JSON.stringify(type.schema) === JSON.stringify(current.schema)) return;
    for (const config of await configs.allOfType(current.id)) {
      const problem = dataProblem(type.schema, config.data);
      if (problem) {
        throw invalidSchema(`would not accept the data of config '${config.name}' (${fieldPath('data', problem.path)} ${problem.reason})`, '', config.id);
      }
    }
  }

  return resourceService<ConfigType, ConfigTypeFields, ConfigTypeInput, ConfigTypePatch, ResourceScope<ConfigType>>(
    { repository: deps.configTypes, fields: CONFIG_TYPE_TABLE.fields, work: deps.changes, clock: deps.clock },
    {
      entityType: 'config-type',
      label: 'config type',
      fields,
      patched: (current, patch) => fields({ name: patch.name ?? current.name, schema: patch.schema ?? current.schema, tags: patch.tags ?? current.tags }),
      async check(type, current) {
        const problem = configSchemaProblem(type.schema);
        if (problem) throw invalidSchema(problem.reason, problem.path);
        if (current) await requireConfigsStillValid(type, current);
      },
      async checkDelete(type) {
        const users = await configs.countOfType(type.id);
        if (users === 0) return;
        throw referencedEntityError({
          label: 'config type', name: type.name, id: type.id, singular: 'config', plural: 'configs', referencedBy: 'configs',
          total: users, users: await configs.namesOfType(type.id, NAMED_USERS), advice: `delete ${users === 1 ? 'that config' : 'those configs'} first`,
        });
      },
      auditDetails: (type) => ({ name: type.name, schema: type.schema }),
    },
  );
}
