/**
 * Reading the Management API's OpenAPI document for the edge commands: names (plural to singular, kebab and camel
 * case), the fields of a request body, the useful columns of a listed item, query parameters and answer schemas.
 * catalogue.ts builds resources from these; nothing here knows a resource.
 */
import type { FieldKind, FieldSpec } from './catalogue.js';

export type Schema = Record<string, any>;

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

export function jsonSchemaOf(content: Schema | undefined): Schema | undefined {
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
/** Ids of other things and timestamps (noise in a row, but for an expiry), PEM documents and tokens (long, and not for a shoulder). */
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
 * The default table columns: id and name, then whether it is online and its version for what runs (routers,
 * controllers: the first thing an operator looks for), then what a person sets when creating one (the create body's
 * fields, in its order), then the other short facts of an item; never timestamps, ids of other things, nested
 * documents or nullable values, which do not fit a row, nor certificates and tokens.
 */
export function columnsOf(item: Schema | undefined, createBody: Schema | undefined): string[] {
  const properties = (item?.properties ?? {}) as Record<string, Schema>;
  const columns = ['id', 'name', 'isOnline', 'isVerified', 'version'].filter((c) => c in properties);
  const settable = Object.keys((createBody?.properties ?? {}) as Record<string, Schema>);
  const order = (name: string) => (settable.includes(name) ? settable.indexOf(name) : settable.length);
  const candidates = Object.entries(properties)
    .filter(([name, schema]) => !columns.includes(name) && !HIDDEN_COLUMNS.has(name) && !LONG_OR_SECRET.test(name) && cellRank(schema) >= 0)
    .map(([name, schema], index) => ({ name, order: order(name), rank: cellRank(schema), index }))
    .sort((a, b) => a.order - b.order || a.rank - b.rank || a.index - b.index);
  // When a row has an end (an enrollment, a certificate on the expiry board), when it ends is worth its column.
  const ends = 'expiresAt' in properties ? ['expiresAt'] : [];
  return [...[...columns, ...candidates.map((c) => c.name)].slice(0, MAX_COLUMNS - ends.length), ...ends];
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
export function schemaHasJwt(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties && Object.entries(properties).some(([key, inner]) => (/^(jwt|\w*enrollmentJwt)$/i.test(key) && mayBeString(inner)) || schemaHasJwt(inner))) return true;
  const anyOf = (schema as { anyOf?: unknown[] }).anyOf;
  return Array.isArray(anyOf) && anyOf.some(schemaHasJwt);
}

const LIST_PARAMETERS = new Set(['limit', 'offset', 'filter', 'sort']);

/** The query parameters of an operation besides the list ones, as fields (their values become options). */
export function queryFieldsOf(op: Schema): FieldSpec[] {
  const parameters = ((op.parameters ?? []) as Schema[]).filter((p) => p.in === 'query' && !LIST_PARAMETERS.has(p.name));
  const properties = Object.fromEntries(parameters.map((p) => [p.name, { ...p.schema, description: p.description ?? p.schema?.description }]));
  return fieldsOf({ properties, required: parameters.filter((p) => p.required).map((p) => p.name) });
}

/** The JSON schema of an operation's success answer, or undefined when it answers something else (a raw JWT). */
export function answerSchemaOf(op: Schema): Schema | undefined {
  const success = Object.entries((op.responses ?? {}) as Record<string, Schema>).find(([status]) => /^2\d\d$/.test(status))?.[1];
  return jsonSchemaOf(success?.content);
}
