/**
 * The shape of one API operation: method, path, schemas (which both validate requests and feed the served
 * OpenAPI document), who may call it, and one handler call. Route tables are arrays of these, so the whole API
 * surface of a binding reads in one file.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { AuthContext } from '../../services/authentication/request-auth.js';
import type { ApiContext } from './api-context.js';

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

export interface RouteInput<S extends RouteSchema> {
  query: StaticOf<S['querystring']>;
  params: StaticOf<S['params']>;
  body: StaticOf<S['body']>;
  /** Set for every access level but `none`. */
  auth: AuthContext | undefined;
  api: ApiContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteDef<S extends RouteSchema = RouteSchema> {
  method: HttpMethod;
  /** Path relative to the API prefix, Fastify syntax (`/specs/:id`). */
  url: string;
  operationId: string;
  summary: string;
  tags: string[];
  access: Access;
  schema: S;
  /** Success status (default 200). */
  status?: number;
  /** Non-JSON success content types, for the OpenAPI document (e.g. `application/pkcs7-mime`). */
  produces?: string[];
  /** Non-JSON request body types the route reads as text (e.g. a PEM CSR), for the OpenAPI document. */
  consumes?: string[];
  /** Returns the JSON response body, or undefined when it wrote the reply itself. */
  handler(input: RouteInput<S>): Promise<unknown> | unknown;
}

/** Declares a route with its handler typed from its schemas. */
export function defineRoute<S extends RouteSchema>(def: RouteDef<S>): RouteDef {
  return def as unknown as RouteDef;
}
