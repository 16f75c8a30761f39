/**
 * The resources of the Management API as the edge commands see them, read from its OpenAPI document (the one the
 * controller serves, generated from the route table and the TypeBox schemas that validate requests). A resource is a
 * top-level collection with a list operation that needs a session; its item path gives get, update and delete, its
 * POST gives create, and the request body schemas give the fields. Under the item path, a GET answering a list is a
 * related list (`/identities/{id}/services`) and every other operation an action (`POST /identities/{id}/disable`).
 * Nothing here names a resource: a new one appears in the CLI as soon as the route table serves it.
 */

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

type Schema = Record<string, any>;

/** `identities` -> `identity`, `service-policies` -> `service-policy`, `configs` -> `config`, `audit-log` stays. */
export function singularOf(plural: string): string {
  if (plural.endsWith('ies')) return `${plural.slice(0, -3)}y`;
  if (plural.endsWith('s')) return plural.slice(0, -1);
  return plural;
}

/** `roleAttributes` -> `role-attributes`. */
export function kebabOf(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `service-policy` -> `servicePolicy`. */
export function camelOf(kebab: string): string {
  return kebab.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function jsonSchemaOf(content: Schema | undefined): Schema | undefined {
  return content?.['application/json']?.schema;
}

/** The schema without a `null` alternative, and whether null was one. */
function withoutNull(schema: Schema): { schema: Schema; nullable: boolean } {
  if (Array.isArray(schema.anyOf)) {
    const rest = schema.anyOf.filter((s: Schema) => s.type !== 'null');
    if (rest.length !== schema.anyOf.length) return { schema: rest.length === 1 ? rest[0] : { anyOf: rest }, nullable: true };
  }
  return { schema, nullable: false };
}

/** The listed values of an enum or an anyOf of constants, if that is what the schema is. */
function choicesOf(schema: Schema): string[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.every((v: unknown) => typeof v === 'string')) return schema.enum;
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((s: Schema) => typeof s.const === 'string')) return schema.anyOf.map((s: Schema) => s.const);
  return undefined;
}

function kindOf(schema: Schema): FieldKind {
  if (choicesOf(schema)) return 'string';
  if (schema.type === 'string' || schema.type === 'boolean' || schema.type === 'integer' || schema.type === 'number') return schema.type;
  if (schema.type === 'array' && schema.items?.type === 'string') return 'string-array';
  return 'object';
}

/** The fields of a request body schema, in the schema's order. */
export function fieldsOf(body: Schema | undefined): FieldSpec[] {
  if (!body?.properties) return [];
  const required = new Set<string>(body.required ?? []);
  return Object.entries(body.properties as Record<string, Schema>).map(([name, raw]) => {
    const { schema, nullable } = withoutNull(raw);
    const choices = choicesOf(schema);
    return {
      name,
      flag: kebabOf(name),
      kind: kindOf(schema),
      required: required.has(name),
      ...(choices ? { choices } : {}),
      nullable,
      ...(typeof schema.minimum === 'number' ? { minimum: schema.minimum } : {}),
      ...(typeof schema.maximum === 'number' ? { maximum: schema.maximum } : {}),
      ...(raw.description ?? schema.description ? { description: raw.description ?? schema.description } : {}),
    };
  });
}

const HIDDEN_COLUMNS = new Set(['_links', 'tags', 'createdAt', 'updatedAt']);
const MAX_COLUMNS = 6;
/** Ids of other things and timestamps (noise in a row), PEM documents and tokens (long, and not for a shoulder). */
const LONG_OR_SECRET = /(Id|At|Pem|[jJ]wt|[tT]oken)$|^(jwt|token)$/;

/** How well a property fits a table cell: words first, then lists of words, then yes/no and numbers; -1 never. */
function cellRank(schema: Schema): number {
  if (choicesOf(schema) || schema.type === 'string') return 0;
  if (schema.type === 'array' && schema.items?.type === 'string') return 1;
  if (schema.type === 'boolean' || schema.type === 'integer') return 2;
  // A reference shown by its name (a table cell prints an object's `name`).
  if (schema.type === 'object' && schema.properties?.name?.type === 'string') return 0;
  return -1;
}

/**
 * The default table columns: id and name, then what a person sets when creating one (the create body's fields, in
 * its order), then the other short facts of an item; never timestamps, ids of other things, nested documents or
 * nullable values, which do not fit a row, nor certificates and tokens.
 */
function columnsOf(item: Schema | undefined, createBody: Schema | undefined): string[] {
  const properties = (item?.properties ?? {}) as Record<string, Schema>;
  const columns = ['id', 'name'].filter((c) => c in properties);
  const settable = Object.keys((createBody?.properties ?? {}) as Record<string, Schema>);
  const order = (name: string) => (settable.includes(name) ? settable.indexOf(name) : settable.length);
  const candidates = Object.entries(properties)
    .filter(([name, schema]) => !columns.includes(name) && !HIDDEN_COLUMNS.has(name) && !LONG_OR_SECRET.test(name) && cellRank(schema) >= 0)
    .map(([name, schema], index) => ({ name, order: order(name), rank: cellRank(schema), index }))
    .sort((a, b) => a.order - b.order || a.rank - b.rank || a.index - b.index);
  return [...columns, ...candidates.map((c) => c.name)].slice(0, MAX_COLUMNS);
}

/** Whether a schema may be a string (a JWT is one; an auth policy's `extJwt` settings are not). */
function mayBeString(schema: unknown): boolean {
  const s = schema as Schema | undefined;
  return s?.type === 'string' || (Array.isArray(s?.anyOf) && s.anyOf.some(mayBeString));
}

/**
 * Whether a schema has a text property `jwt` or `…enrollmentJwt` anywhere (an enrollment's JWT on an identity or
 * router detail); not a reference such as an auth policy's `requireExtJwt` (a signer's id).
 */
function schemaHasJwt(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties && Object.entries(properties).some(([key, inner]) => (/^(jwt|\w*enrollmentJwt)$/i.test(key) && mayBeString(inner)) || schemaHasJwt(inner))) return true;
  const anyOf = (schema as { anyOf?: unknown[] }).anyOf;
  return Array.isArray(anyOf) && anyOf.some(schemaHasJwt);
}

const LIST_PARAMETERS = new Set(['limit', 'offset', 'filter', 'sort']);

/** The query parameters of an operation besides the list ones, as fields (their values become options). */
function queryFieldsOf(op: Schema): FieldSpec[] {
  const parameters = ((op.parameters ?? []) as Schema[]).filter((p) => p.in === 'query' && !LIST_PARAMETERS.has(p.name));
  const properties = Object.fromEntries(parameters.map((p) => [p.name, { ...p.schema, description: p.description ?? p.schema?.description }]));
  return fieldsOf({ properties, required: parameters.filter((p) => p.required).map((p) => p.name) });
}

/** The JSON schema of an operation's success answer, or undefined when it answers something else (a raw JWT). */
function answerSchemaOf(op: Schema): Schema | undefined {
  const success = Object.entries((op.responses ?? {}) as Record<string, Schema>).find(([status]) => /^2\d\d$/.test(status))?.[1];
  return jsonSchemaOf(success?.content);
}

/** The action of one operation under an entity of `resource` (`rest`: the path after `{id}/`). */
function actionOf(resource: { plural: string; enrolls: boolean }, path: string, rest: string, method: string, op: Schema): ActionSpec {
  const literal = rest.split('/').filter((segment) => !segment.startsWith('{'));
  // POST names a verb (disable, verify, re-enroll) and GET a document (jwt); DELETE removes the thing named.
  const verb = method === 'DELETE' ? 'delete-' : method === 'PUT' || method === 'PATCH' ? 'update-' : '';
  const name = `${verb}${literal.join('-')}`;
  const content = (op.requestBody?.content ?? {}) as Record<string, Schema>;
  const types = Object.keys(content);
  const textType = types.includes('application/json') ? undefined : types.find((t) => t.startsWith('text/') || t.startsWith('application/x-'));
  const answer = answerSchemaOf(op);
  const data = answer?.properties?.data;
  const kind: ActionSpec['answer'] = !data ? 'text' : data.type === 'object' && Object.keys(data.properties ?? {}).length === 0 ? 'none' : 'document';
  const writes: ActionSpec['writes'] =
    kind === 'text' ? 'answer' : kind === 'document' && schemaHasJwt(data) ? 'answer-jwt' : kind === 'none' && resource.enrolls && name.includes('enroll') ? 'entity-jwt' : undefined;
  return {
    name,
    summary: String(op.summary ?? ''),
    path,
    method,
    fields: fieldsOf(jsonSchemaOf(content)),
    params: [...rest.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
    query: queryFieldsOf(op),
    jsonBody: types.includes('application/json'),
    ...(textType
      ? { textBody: { contentType: types.includes('application/x-pem-file') ? 'application/x-pem-file' : textType, pem: types.some((t) => t.includes('pem')), required: op.requestBody?.required === true } }
      : {}),
    answer: kind,
    ...(writes ? { writes } : {}),
  };
}

/**
 * The related lists and actions under the entities of `plural`: every path `/{plural}/{id}/…`. A GET answering a
 * list at one segment below is a related list; every other operation is an action.
 */
function itemOperationsOf(paths: Record<string, Record<string, Schema>>, resource: { plural: string; enrolls: boolean }) {
  const relations: RelationSpec[] = [];
  const actions = new Map<string, ActionSpec>();
  const prefix = `/${resource.plural}/{id}/`;
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    for (const [lower, op] of Object.entries(operations)) {
      const method = lower.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
      const listed = answerSchemaOf(op)?.properties?.data;
      if (method === 'GET' && listed?.type === 'array') {
        if (!/^[a-z][a-z0-9-]*$/.test(rest)) continue;
        const created = jsonSchemaOf(paths[`/${rest}`]?.post?.requestBody?.content);
        relations.push({ name: rest, summary: String(op.summary ?? ''), path, query: queryFieldsOf(op), columns: columnsOf(listed.items, created) });
        continue;
      }
      const action = actionOf(resource, path, rest, method, op);
      // Two operations could share a name: the second gets its method in front.
      const name = actions.has(action.name) ? `${lower}-${action.name}` : action.name;
      actions.set(name, { ...action, name });
    }
  }
  return { relations: relations.sort((a, b) => a.name.localeCompare(b.name)), actions: [...actions.values()] };
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
