/**
 * The resource kit's HTTP half (issue 13, point 2; docs/decisions/0022-resource-kit.md): the six operations of a
 * managed resource (list, create, detail, replace, patch, delete) built from its collection, its domain, its view
 * and its schemas. Each builder returns one route definition; a route table still lists them one by one, so every
 * operation of a binding reads in its table and nothing registers itself.
 *
 * @example
 * const policies = resourceRoutes({ collection: 'auth-policies', tags: ['Auth Policy'], uses: 'authPolicies', ... });
 * export const authPolicyRoutes = [policies.list({ operationId: 'listAuthPolicies', summary: 'Lists auth policies' }), ...];
 */
import type { Static, TSchema } from 'typebox';
import type { Actor } from '../../domain/audit.js';
import type { ListPage, RawListParams } from '../../services/list-page.js';
import type { RoleFilterParams } from '../../services/role-filter.js';
import type { Services } from '../../services/services.js';
import { ApiErrorBody, CreatedEnvelope, EmptyEnvelope, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { actorOf } from './actor.js';
import { envelope, listEnvelope, selfLink } from './envelope.js';
import { defineRoute, type Access, type DomainName, type RouteDef } from './route.js';

/** The operations a managed resource's service offers; `Item` is what list and get return. */
export interface ManagedResource<Item, Input, Patch> {
  list(params: RawListParams & RoleFilterParams): Promise<ListPage<Item>>;
  get(id: string): Promise<Item>;
  create(actor: Actor, input: Input): Promise<{ id: string }>;
  replace(actor: Actor, id: string, input: Input): Promise<unknown>;
  patch(actor: Actor, id: string, patch: Patch): Promise<unknown>;
  delete(actor: Actor, id: string): Promise<void>;
}

export interface ResourceRoutesOptions<D extends DomainName, Item, Input, Patch> {
  /** The path segment of the collection, e.g. `auth-policies`. */
  collection: string;
  tags: string[];
  /** Who may call (default `admin`). */
  access?: Access;
  /** The domain the routes use. */
  uses: D;
  /** The resource's service within that domain. */
  service(domains: Pick<Services, D>): ManagedResource<Item, Input, Patch>;
  /** The wire view of one item, and its schema (which also filters the output). */
  view(item: Item): unknown;
  itemSchema: TSchema;
}

/** What each builder is told: the operation's name and summary, and for some its extra answers. */
interface OperationOptions {
  operationId: string;
  summary: string;
  /** Statuses beyond the builder's own (e.g. 409 for a create that can collide). */
  responses?: Record<number, TSchema>;
}

/** A list's options: its query parameters when they are more than the list parameters (e.g. role filters). */
interface ListOptions extends OperationOptions {
  querystring?: TSchema;
}

/** A body schema and how its value becomes the service's input (default: as it is). */
interface BodyOptions<B extends TSchema, T> extends OperationOptions {
  body: B;
  toInput?(body: Static<B>): T;
}

const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const mutation = { 200: EmptyEnvelope, 400: ApiErrorBody, ...denied, 404: ApiErrorBody };

/**
 * The route builders of one resource.
 *
 * @example const signers = resourceRoutes({ collection: 'external-jwt-signers', uses: 'externalJwtSigners', service: (d) => d.externalJwtSigners, ... });
 */
export function resourceRoutes<D extends DomainName, Item, Input, Patch>(resource: ResourceRoutesOptions<D, Item, Input, Patch>) {
  const { collection, tags, view } = resource;
  const access = resource.access ?? 'admin';
  const uses = [resource.uses];
  const path = `/${collection}`;
  const as = <T>(value: unknown, convert?: (value: never) => T): T => (convert ? convert(value as never) : (value as T));

  /** PUT and PATCH: the body read as the service's input, one call, an empty envelope. */
  function change<B extends TSchema, T>(
    method: 'PUT' | 'PATCH',
    options: BodyOptions<B, T>,
    call: (service: ManagedResource<Item, Input, Patch>, actor: Actor, id: string, input: T) => Promise<unknown>,
  ): RouteDef {
    return defineRoute({
      method,
      url: `${path}/:id`,
      ...names(options),
      tags,
      access,
      uses,
      schema: { params: IdParams, body: options.body, response: { ...mutation, ...options.responses } },
      handler: async ({ domains, auth, params, body }) => {
        await call(resource.service(domains), actorOf(auth), params.id, as(body, options.toInput));
        return envelope({});
      },
    });
  }

  return {
    list(options: ListOptions): RouteDef {
      return defineRoute({
        method: 'GET',
        url: path,
        ...names(options),
        tags,
        access,
        uses,
        schema: { querystring: options.querystring ?? ListQueryParams, response: { 200: ListEnvelope(resource.itemSchema), 400: ApiErrorBody, ...denied, ...options.responses } },
        handler: async ({ domains, query }) => {
          const page = await resource.service(domains).list(query as RawListParams & RoleFilterParams);
          return listEnvelope(page.items.map(view), page.pagination, page.filterableFields);
        },
      });
    },
    create<B extends TSchema>(options: BodyOptions<B, Input>): RouteDef {
      return defineRoute({
        method: 'POST',
        url: path,
        ...names(options),
        tags,
        access,
        uses,
        status: 201,
        schema: { body: options.body, response: { 201: CreatedEnvelope, 400: ApiErrorBody, ...denied, ...options.responses } },
        handler: async ({ domains, auth, body }) => {
          const created = await resource.service(domains).create(actorOf(auth), as(body, options.toInput));
          return envelope({ id: created.id, _links: selfLink(collection, created.id) });
        },
      });
    },
    detail(options: OperationOptions): RouteDef {
      return defineRoute({
        method: 'GET',
        url: `${path}/:id`,
        ...names(options),
        tags,
        access,
        uses,
        schema: { params: IdParams, response: { 200: Envelope(resource.itemSchema), ...denied, 404: ApiErrorBody, ...options.responses } },
        handler: async ({ domains, params }) => envelope(view(await resource.service(domains).get(params.id))),
      });
    },
    replace<B extends TSchema>(options: BodyOptions<B, Input>): RouteDef {
      return change('PUT', options, (service, actor, id, input) => service.replace(actor, id, input));
    },
    patch<B extends TSchema>(options: BodyOptions<B, Patch>): RouteDef {
      return change('PATCH', options, (service, actor, id, patch) => service.patch(actor, id, patch));
    },
    delete(options: OperationOptions): RouteDef {
      return defineRoute({
        method: 'DELETE',
        url: `${path}/:id`,
        ...names(options),
        tags,
        access,
        uses,
        schema: { params: IdParams, response: { ...mutation, ...options.responses } },
        handler: async ({ domains, auth, params }) => {
          await resource.service(domains).delete(actorOf(auth), params.id);
          return envelope({});
        },
      });
    },
  };
}

function names(options: OperationOptions): { operationId: string; summary: string } {
  return { operationId: options.operationId, summary: options.summary };
}
