/**
 * Services as operators manage them (`/edge/management/v1/services`; reference facts A1). Beyond the resource kit's
 * rules: each config must exist and no two may share a config type; `encryptionRequired` is set at create and an
 * edit that would change it is refused; the terminator strategy is one of the known ones; idle time is not
 * negative; role attributes are ones policies can select. Configs and the attribute index are written in the
 * service's transaction (repositories/services.ts).
 */
import { DEFAULT_TERMINATOR_STRATEGY, TERMINATOR_STRATEGIES, type Service } from '../../domain/service.js';
import type { Tags } from '../../domain/config.js';
import { ApiError } from '../../errors/api-error.js';
import type { ConfigRepository } from '../../persistence/repositories/configs.js';
import { SERVICE_TABLE, type ServiceRepository } from '../../persistence/repositories/services.js';
import { checkRoleAttributes } from '../role-attribute-input.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditedChanges } from '../audit/audited-changes.js';
import type { ListPage, RawListParams } from '../list-page.js';
import { resourceService, type ResourceScope, type ResourceService } from '../resource-service.js';
import { idIn, relatedPage } from './related-list.js';

/** A whole service (create, PUT); absent optional fields take their defaults, but see `encryptionRequired`. */
export interface ServiceInput {
  name: string;
  /** Default true at create; on PUT and PATCH it may only repeat the stored value. */
  encryptionRequired?: boolean;
  configs?: string[];
  roleAttributes?: string[];
  terminatorStrategy?: string;
  maxIdleTimeMillis?: number;
  tags?: Tags;
}

export type ServicePatch = Partial<ServiceInput>;

export interface ServiceService extends ResourceService<Service, ServiceInput, ServicePatch> {
  /** The services that carry config `configId`; 404 when no config has that id. */
  listForConfig(configId: string, params: RawListParams): Promise<ListPage<Service>>;
}

/** What an administrator sets; `encryptionRequired` is absent when an edit does not name it. */
type ServiceFields = Omit<Service, 'id' | 'createdAt' | 'updatedAt' | 'encryptionRequired'> & { encryptionRequired?: boolean };

const invalid = (field: string, reason: string, value?: unknown) =>
  new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });

export function createServiceService(deps: {
  services: ServiceRepository;
  configs: Pick<ConfigRepository, 'findById' | 'typesOf' | 'namesByIds'>;
  changes: AuditedChanges<Pick<ServiceRepository, 'insert' | 'update' | 'delete'>>;
  clock: Clock;
}): ServiceService {
  const { services, configs } = deps;

  const fields = (input: ServiceInput): ServiceFields => ({
    name: input.name,
    ...(input.encryptionRequired === undefined ? {} : { encryptionRequired: input.encryptionRequired }),
    configs: [...new Set(input.configs ?? [])].sort(),
    roleAttributes: input.roleAttributes ?? [],
    terminatorStrategy: input.terminatorStrategy ?? DEFAULT_TERMINATOR_STRATEGY,
    maxIdleTimeMillis: input.maxIdleTimeMillis ?? 0,
    tags: input.tags ?? {},
  });

  /** Each config exists; no two share a type (the reference: "duplicate configs … found for config type"). */
  async function requireConfigs(ids: readonly string[]): Promise<void> {
    const types = await configs.typesOf(ids);
    const missing = ids.find((id) => !types.has(id));
    if (missing !== undefined) {
      throw new ApiError('REFERENCED_ENTITY_NOT_FOUND', { message: `No config has the id '${missing}'`, cause: { field: 'configs', reason: 'does not exist', value: missing } });
    }
    const byType = new Map<string, string>();
    for (const id of ids) {
      const type = types.get(id) as string;
      const other = byType.get(type);
      if (other !== undefined) {
        const names = await configs.namesByIds([other, id]);
        throw invalid('configs', `holds two configs of one config type ('${names.get(other)}' and '${names.get(id)}'); a service takes at most one of each type`, id);
      }
      byType.set(type, id);
    }
  }

  async function check(service: ServiceFields, current: Service | undefined): Promise<void> {
    if (current && service.encryptionRequired !== undefined && service.encryptionRequired !== current.encryptionRequired) {
      throw invalid('encryptionRequired', 'is set at create and cannot be changed', service.encryptionRequired);
    }
    if (!(TERMINATOR_STRATEGIES as readonly string[]).includes(service.terminatorStrategy)) {
      throw invalid('terminatorStrategy', `must be one of ${TERMINATOR_STRATEGIES.join(', ')}`, service.terminatorStrategy);
    }
    if (!Number.isSafeInteger(service.maxIdleTimeMillis) || service.maxIdleTimeMillis < 0) {
      throw invalid('maxIdleTimeMillis', 'must be a whole number of milliseconds, 0 or more (0 = never idle out)', service.maxIdleTimeMillis);
    }
    checkRoleAttributes(service.roleAttributes, { kept: current?.roleAttributes });
    await requireConfigs(service.configs);
  }

  const kit = resourceService<Service, ServiceFields, ServiceInput, ServicePatch, ResourceScope<Service>>(
    { repository: services, fields: SERVICE_TABLE.fields, roleFilter: 'service', work: deps.changes, clock: deps.clock },
    {
      entityType: 'service',
      label: 'service',
      fields,
      patched: (current, patch) => fields({ ...current, encryptionRequired: undefined, ...withoutUndefined(patch) }),
      created: (service, id, now) => ({ ...service, encryptionRequired: service.encryptionRequired ?? true, id, createdAt: now, updatedAt: now }),
      check,
      auditDetails: (service) => ({
        name: service.name,
        configs: service.configs,
        roleAttributes: service.roleAttributes,
        encryptionRequired: service.encryptionRequired,
        terminatorStrategy: service.terminatorStrategy,
        maxIdleTimeMillis: service.maxIdleTimeMillis,
      }),
    },
  );

  return {
    ...kit,
    async listForConfig(configId, params) {
      if (!(await configs.findById(configId))) {
        throw new ApiError('NOT_FOUND', { message: `No config has the id '${configId}'`, cause: { field: 'id', value: configId } });
      }
      return relatedPage(params, SERVICE_TABLE.fields, idIn(await services.idsUsingConfig(configId)), (q) => services.list(q));
    },
  };
}

/** The fields a patch gives; one left out (or sent as undefined) keeps its stored value. */
function withoutUndefined(patch: ServicePatch): ServicePatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as ServicePatch;
}
