/**
 * The resources of the Management API as the edge commands see them, read from its OpenAPI document (the one the
 * controller serves, generated from the route table and the TypeBox schemas that validate requests). A resource is a
 * top-level collection with a list operation that needs a session; its item path gives get, update and delete, its
 * POST gives create, and the request body schemas give the fields. Under the item path, a GET answering a list is a
 * related list (`/identities/{id}/services`) and every other operation an action (`POST /identities/{id}/disable`).
 * Nothing here names a resource: a new one appears in the CLI as soon as the route table serves it.
 */
import { itemOperationsOf } from './item-operations.js';
import { columnsOf, fieldsOf, jsonSchemaOf, queryFieldsOf, schemaHasJwt, singularOf, type Schema } from './openapi-schema.js';

export { camelOf, fieldsOf, kebabOf, singularOf } from './openapi-schema.js';

export type FieldKind = 'string' | 'boolean' | 'integer' | 'number' | 'string-array' | 'object';

export interface FieldSpec {
  /** The API's name (camelCase). */
  name: string;
  /** The command-line flag without dashes (kebab-case). */
  flag: string;
  kind: FieldKind;
  required: boolean;
  /** The allowed values, when the schema lists them. */
  choices?: string[];
  /** null is accepted (the value `null` on the command line). */
  nullable: boolean;
  minimum?: number;
  maximum?: number;
  description?: string;
}

export interface Operation {
  summary: string;
  /** The operation's path under the API prefix, with `{id}` for the item. */
  path: string;
  method: string;
}

export interface BodyOperation extends Operation {
  fields: FieldSpec[];
}

/** A list under an entity: `services` of `/identities/{id}/services`. */
export interface RelationSpec {
  name: string;
  summary: string;
  path: string;
  /** The query parameters besides the list ones (limit, offset, filter, sort), as fields: `policyType`. */
  query: FieldSpec[];
  columns: string[];
}

/**
 * Any other operation under an entity: `disable` (POST `/identities/{id}/disable`), `delete-mfa` (DELETE
 * `/identities/{id}/mfa`), `jwt` (GET `/cas/{id}/jwt`). Its JSON body's fields are `fields`.
 */
export interface ActionSpec extends BodyOperation {
  name: string;
  /** The path parameters after `{id}`, each an entity named by id or name: `serviceId` of `…/policy-advice/{serviceId}`. */
  params: string[];
  query: FieldSpec[];
  /** A JSON body is declared (sent as `{}` when no field is given). */
  jsonBody: boolean;
  /** The body is a document sent as text, such as a PEM certificate. */
  textBody?: { contentType: string; pem: boolean; required: boolean };
  /** The answer: a document to print, nothing (an empty `data`), or a raw document (a JWT as `application/jwt`). */
  answer: 'document' | 'none' | 'text';
  /** What `-o FILE` writes: the raw answer, the JWT in the answer, or the entity's new enrollment JWT (re-enroll). */
  writes?: 'answer' | 'answer-jwt' | 'entity-jwt';
}

export interface ResourceSpec {
  /** The collection's path segment: `identities`, `service-policies`. */
  plural: string;
  /** `identity`, `service-policy`: what the commands name it by. */
  singular: string;
  /** List items carry a `name`, so the resource can be named by name wherever an id is accepted. */
  named: boolean;
  /** The columns a table shows by default. */
  columns: string[];
  /** The detail carries an enrollment JWT (identities, edge routers): `create … -o FILE.jwt` writes it. */
  enrolls: boolean;
  /** The list operation's own query parameters beyond filter, limit, offset and sort (the expiries' `within`). */
  listQuery: FieldSpec[];
  /** The property names of a list item (`serviceId` there says a body's `service` is a service's id: resolve.ts). */
  itemFields: string[];
  list: Operation;
  detail?: Operation;
  create?: BodyOperation;
  update?: BodyOperation;
  remove?: Operation;
  relations: RelationSpec[];
  actions: ActionSpec[];
}

/**
 * The resources of a Management API OpenAPI document, by singular name. A list anyone may read without a session
 * (`security: []`: the API specifications, the capabilities, the network JWTs) describes the controller, not
 * something administered, and is not a resource.
 */
export function catalogueOf(document: Schema): Map<string, ResourceSpec> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Schema>>;
  const resources = new Map<string, ResourceSpec>();
  for (const [path, operations] of Object.entries(paths)) {
    const match = /^\/([a-z][a-z0-9-]*)$/.exec(path);
    const list = operations.get;
    const listed = jsonSchemaOf(list?.responses?.['200']?.content)?.properties?.data;
    if (!match || !list || listed?.type !== 'array') continue;
    if (Array.isArray(list.security) && list.security.length === 0) continue;
    const plural = match[1] as string;
    const item = paths[`${path}/{id}`];
    const operation = (method: string, at: string, op: Schema | undefined): Operation | undefined =>
      op ? { summary: String(op.summary ?? ''), path: at, method } : undefined;
    const bodyOperation = (method: string, at: string, op: Schema | undefined): BodyOperation | undefined =>
      op ? { summary: String(op.summary ?? ''), path: at, method, fields: fieldsOf(jsonSchemaOf(op.requestBody?.content)) } : undefined;
    const itemPath = `${path}/{id}`;
    const enrolls = schemaHasJwt(jsonSchemaOf(item?.get?.responses?.['200']?.content));
    const spec: ResourceSpec = {
      plural,
      singular: singularOf(plural),
      named: 'name' in (listed.items?.properties ?? {}),
      columns: columnsOf(listed.items, jsonSchemaOf(operations.post?.requestBody?.content)),
      enrolls,
      itemFields: Object.keys(listed.items?.properties ?? {}),
      list: operation('GET', path, list) as Operation,
      listQuery: queryFieldsOf(list),
      detail: operation('GET', itemPath, item?.get),
      create: bodyOperation('POST', path, operations.post),
      update: item?.patch ? bodyOperation('PATCH', itemPath, item.patch) : bodyOperation('PUT', itemPath, item?.put),
      remove: operation('DELETE', itemPath, item?.delete),
      ...itemOperationsOf(paths, { plural, enrolls }),
    };
    resources.set(spec.singular, spec);
  }
  return resources;
}

/** The resource named `word` (singular or plural), if any. */
export function findResource(catalogue: Map<string, ResourceSpec>, word: string): ResourceSpec | undefined {
  return catalogue.get(word) ?? [...catalogue.values()].find((r) => r.plural === word);
}
