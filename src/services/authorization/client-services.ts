/**
 * Services as a client sees them (client API `GET /services`, `GET /services/{id}`; issue 15, item 1;
 * docs/decisions/0032-client-services.md): the services the caller may dial or bind (an administrator sees every
 * service), each with the caller's `permissions`, the `config` data of the config types it asked for, and its
 * `postureQueries`: for each service policy that grants it the service, that policy's posture checks as evaluated for
 * the caller's API session. Membership and grants come from the one policy engine; nothing here decides them.
 */
import type { Config, ConfigType } from '../../domain/config.js';
import type { ServicePolicyType } from '../../domain/policy.js';
import { ApiError } from '../../errors/api-error.js';
import { paramError } from '../../persistence/query/filter-error.js';
import type { ListQuery } from '../../persistence/query/list-query.js';
import { SERVICE_FIELDS } from '../../persistence/repositories/services.js';
import type { ResourceRepository } from '../../persistence/resource-table.js';
import type { AuthContext } from '../authentication/request-auth.js';
import type { ListPage, RawListParams } from '../list-page.js';
import type { PolicyPostureQueries, PostureService } from '../posture/index.js';
import { roleFilterMembership, roleFilterOf, type RoleFilterParams } from '../role-filter.js';
import type { RequestedConfigTypes } from '../sessions/config-types.js';
import type { GrantedService, PolicyEngine, ReachService, ServiceGrant } from './engine.js';
import { idIn } from './related-list.js';

/** A service with what only the asking session fills in. */
export interface ClientService {
  /** The service as the index holds it: never changed, so a view of it may be kept while it is the same object. */
  service: ReachService;
  /** `Bind` then `Dial`, the ones the caller has. */
  permissions: readonly ServicePolicyType[];
  /** Config type name -> the data of the service's config of that type, for the types asked for. */
  config: Record<string, Record<string, unknown>>;
  postureQueries: PolicyPostureQueries[];
}

/** Who asks, and what their session asked for at login. */
export interface ClientServiceCaller {
  auth: Pick<AuthContext, 'kind' | 'session' | 'identity'>;
  sessionConfigTypes: RequestedConfigTypes;
}

/** The list parameters of `GET /services`: paging, filter, role filter and `configTypes` (repeatable). */
export type ClientServiceParams = RawListParams & RoleFilterParams & { configTypes?: string | readonly string[] };

export interface ClientServiceService {
  list(caller: ClientServiceCaller, params: ClientServiceParams): Promise<ListPage<ClientService>>;
  /** One service, or 404 when it does not exist or the caller may neither dial nor bind it. */
  get(caller: ClientServiceCaller, id: string, params: Pick<ClientServiceParams, 'configTypes'>): Promise<ClientService>;
}

/** The most `configTypes` values a request may name. */
export const MAX_CONFIG_TYPES = 100;
/** The permissions a caller has, `Bind` then `Dial`: one shared array per combination (never changed by anyone). */
const PERMISSIONS: Record<'bind' | 'dial' | 'both' | 'none', readonly ServicePolicyType[]> = { bind: ['Bind'], dial: ['Dial'], both: ['Bind', 'Dial'], none: [] };
const permissionsOf = (bind: boolean, dial: boolean) => PERMISSIONS[bind ? (dial ? 'both' : 'bind') : dial ? 'dial' : 'none'] as readonly ServicePolicyType[];

export function createClientServiceService(deps: {
  engine: Pick<PolicyEngine, 'visibleServices' | 'visibleService' | 'postureChecks'>;
  configs: Pick<ResourceRepository<Config>, 'list'>;
  configTypes: Pick<ResourceRepository<ConfigType>, 'list'>;
  posture: Pick<PostureService, 'policyPostureQueries'>;
}): ClientServiceService {
  const byIds = (ids: readonly string[]): ListQuery => ({ where: idIn(ids), sort: [], limit: Math.max(1, ids.length), offset: 0 });

  /**
   * The config types a request wants: the `configTypes` parameter when given (ids or names, or `all`; a value
   * naming no type is refused, naming it), else those the session asked for at login.
   */
  async function wantedTypes(param: ClientServiceParams['configTypes'], session: RequestedConfigTypes): Promise<{ all: boolean; ids: Set<string> }> {
    const values = param === undefined ? undefined : typeof param === 'string' ? [param] : [...param];
    if (values === undefined || values.length === 0) return { all: session.all, ids: new Set(session.ids) };
    if (values.length > MAX_CONFIG_TYPES) throw paramError('INVALID_FILTER', 'configTypes', values.length, `must name at most ${MAX_CONFIG_TYPES} config types`);
    if (values.some((value) => value.toLowerCase() === 'all')) return { all: true, ids: new Set() };
    const { items } = await deps.configTypes.list({
      where: { kind: 'or', operands: [idIn(values), { kind: 'in', field: 'name', values }] },
      sort: [],
      limit: values.length * 2,
      offset: 0,
    });
    const ids = new Set<string>();
    for (const value of values) {
      const type = items.find((item) => item.id === value || item.name === value);
      if (!type) throw paramError('INVALID_FILTER', 'configTypes', value, `'${value}' names no config type (give config type ids or names, or 'all')`);
      ids.add(type.id);
    }
    return { all: false, ids };
  }

  /** The page's services, in the engine's order, with what the caller's session adds. */
  async function dressed(caller: ClientServiceCaller, page: GrantedService[], wanted: { all: boolean; ids: Set<string> }): Promise<ClientService[]> {
    if (page.length === 0) return [];
    const configs = await configsOf(page.map((item) => item.service), wanted);
    const postures = await postureOf(caller, page.flatMap((item) => item.grants));
    // Run for every service of a page (a hundred): plain loops, no intermediate arrays.
    return page.map(({ service, grants }) => {
      let dial = false;
      let bind = false;
      const postureQueries: PolicyPostureQueries[] = [];
      for (const grant of grants) {
        if (grant.type === 'Dial') dial = true;
        else bind = true;
        const queries = postures.get(grant.id);
        if (queries) postureQueries.push(queries);
      }
      // Object.fromEntries defines each type name as an own property, whatever the name (`__proto__` included).
      const entries: Array<[string, Record<string, unknown>]> = [];
      if (configs.size > 0) {
        for (const configId of service.configs) {
          const found = configs.get(configId);
          if (found) entries.push(found);
        }
      }
      const config = entries.length === 0 ? {} : Object.fromEntries(entries);
      return { service, permissions: permissionsOf(bind, dial), config, postureQueries };
    });
  }

  /** Config id -> [type name, data] for the wanted types' configs of `services` (two reads for the page). */
  async function configsOf(services: readonly { configs: readonly string[] }[], wanted: { all: boolean; ids: Set<string> }): Promise<Map<string, [string, Record<string, unknown>]>> {
    const configIds = [...new Set(services.flatMap((service) => service.configs))];
    if (configIds.length === 0 || (!wanted.all && wanted.ids.size === 0)) return new Map();
    const { items: configs } = await deps.configs.list(byIds(configIds));
    const chosen = configs.filter((config) => wanted.all || wanted.ids.has(config.configTypeId));
    if (chosen.length === 0) return new Map();
    const { items: types } = await deps.configTypes.list(byIds([...new Set(chosen.map((config) => config.configTypeId))]));
    const typeNames = new Map(types.map((type) => [type.id, type.name]));
    return new Map(chosen.flatMap((config) => {
      const name = typeNames.get(config.configTypeId);
      return name === undefined ? [] : [[config.id, [name, config.data]] as const];
    }));
  }

  /**
   * Policy id -> its posture queries for the caller's session, for every policy in `grants`. The checks each policy
   * names come with the grants, and the checks themselves, from memory; the session's reports are read only when
   * there are any checks.
   */
  async function postureOf(caller: ClientServiceCaller, grants: ServiceGrant[]): Promise<Map<string, PolicyPostureQueries>> {
    const policies = new Map(grants.map((grant) => [grant.id, grant]));
    if (policies.size === 0) return new Map();
    const wantedChecks = [...new Set([...policies.values()].flatMap((grant) => grant.postureCheckIds))];
    if (wantedChecks.length === 0) {
      // No policy here names a check: each passes as it is, and nothing about the session needs reading.
      return new Map([...policies.values()].map((grant) => [grant.id, { policyId: grant.id, policyType: grant.type, isPassing: true, postureQueries: [] }]));
    }
    const checks = await deps.engine.postureChecks(wantedChecks);
    const checkById = new Map(checks.map((check) => [check.id, check]));
    const queries = await deps.posture.policyPostureQueries(
      caller.auth,
      [...policies.values()].map((grant) => ({ id: grant.id, type: grant.type, checks: grant.postureCheckIds.flatMap((id) => checkById.get(id) ?? []) })),
    );
    return new Map(queries.map((query) => [query.policyId, query]));
  }

  return {
    async list(caller, params) {
      const { configTypes, roleFilter, roleSemantic, ...list } = params;
      const filter = roleFilterOf({ roleFilter, roleSemantic });
      const wanted = await wantedTypes(configTypes, caller.sessionConfigTypes);
      const page = await deps.engine.visibleServices(caller.auth.identity, list, {
        fields: SERVICE_FIELDS,
        everyService: caller.auth.identity.isAdmin,
        within: filter ? [roleFilterMembership(filter)] : [],
      });
      return { ...page, items: await dressed(caller, page.items, wanted) };
    },
    async get(caller, id, params) {
      const wanted = await wantedTypes(params.configTypes, caller.sessionConfigTypes);
      const visible = await deps.engine.visibleService(caller.auth.identity, id, caller.auth.identity.isAdmin);
      const [service] = visible ? await dressed(caller, [visible], wanted) : [];
      if (!service) throw new ApiError('NOT_FOUND', { message: `No service the caller may see has the id '${id}'`, cause: { field: 'id', value: id } });
      return service;
    },
  };
}
