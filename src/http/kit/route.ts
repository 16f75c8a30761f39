/**
 * The shape of one API operation: method, path, schemas (which both validate requests and feed the served
 * OpenAPI document), who may call it, the domains it uses, and one handler call. Route tables are arrays of these,
 * so the whole API surface of a binding reads in one file. A handler receives only the domains its route names in
 * `uses` (docs/decisions/0021-domain-layout.md), so what an operation can reach reads in its definition.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { AuthContext } from '../../services/authentication/request-auth.js';
import type { Services } from '../../services/services.js';
import type { RouteApi } from './api-context.js';

/** The name of one domain (or shared part) of the composition root a route may use. */
export type DomainName = keyof Services;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: `none` (anonymous), `partial` (a session still answering auth queries is enough),
 * `session` (fully authenticated), `admin` (fully authenticated administrator).
 */
export type Access = 'none' | 'partial' | 'session' | 'admin';

export interface RouteSchema {
  querystring?: TSchema;
  params?: TSchema;
  headers?: TSchema;
  body?: TSchema;
  /** Every status the operation answers with a JSON body, by code. */
  response: Record<number, TSchema>;
}

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;

export interface RouteInput<S extends RouteSchema, U extends DomainName = DomainName> {
  query: StaticOf<S['querystring']>;
  params: StaticOf<S['params']>;
  body: StaticOf<S['body']>;
  /** Set for every access level but `none`. */
  auth: AuthContext | undefined;
  /** The domains the route named in `uses`, and no others. */
  domains: Pick<Services, U>;
  /** Where the route is served: binding, prefix, bind point, the served specs. */
  api: RouteApi;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteDef<S extends RouteSchema = RouteSchema, U extends DomainName = DomainName> {
  method: HttpMethod;
  /** Path relative to the API prefix, Fastify syntax (`/specs/:id`). */
  url: string;
  operationId: string;
  summary: string;
  tags: string[];
  access: Access;
  /** The domains the handler uses; only these reach it. */
  uses: readonly U[];
  schema: S;
  /** Success status (default 200). */
  status?: number;
  /** Non-JSON success content types, for the OpenAPI document (e.g. `application/pkcs7-mime`). */
  produces?: string[];
  /** Non-JSON request body types the route reads as text (e.g. a PEM CSR), for the OpenAPI document. */
  consumes?: string[];
  /** An empty `application/json` body reads as no body rather than a 400 (clients that send one: decision 0037). */
  emptyJsonBody?: boolean;
  /** Returns the JSON response body, or undefined when it wrote the reply itself. */
  handler(input: RouteInput<S, U>): Promise<unknown> | unknown;
  /**
   * The JSON response body at once when all it needs is kept in memory, else undefined (and `handler` answers). Only
   * a GET with no query or path parameters has one: such a route is answered by the memory lane (memory-lane.ts)
   * before Fastify handles the request at all (decision 0042), so what it returns must not depend on the request. An
   * answer kept from request to request is returned frozen, as the same object: the lane then writes its text once.
   */
  fromMemory?(input: MemoryRouteInput<U>): unknown;
}

/** What a route's `fromMemory` is given: the caller, its domains and where it is served; never the request. */
export interface MemoryRouteInput<U extends DomainName = DomainName> {
  auth: AuthContext;
  domains: Pick<Services, U>;
  api: RouteApi;
}

/** Declares a route with its handler typed from its schemas and its domains from `uses`. */
export function defineRoute<S extends RouteSchema, U extends DomainName = never>(def: RouteDef<S, U>): RouteDef {
  return def as unknown as RouteDef;
}
