/**
 * The generic resource commands, for every resource of the catalogue alike: list (a table of the useful columns, or
 * JSON), get (the detail as JSON), create and update (a body from the field options, `--data FILE` and the
 * positional NAME [TYPE]), delete. Entities are named by id or name (resolve.ts).
 */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { Output } from '../output.js';
import type { BodyOperation, FieldSpec, ResourceSpec } from './catalogue.js';
import { usageError } from '../cli-error.js';
import { flagOf, parseFieldValue } from './field-options.js';
import { JsonInputError, readDataObject } from './json-input.js';
import { namesFirst } from './upstream-habits.js';
import type { ManagementClient } from './management-client.js';
import { resolveId, resolveReferences } from './resolve.js';
import { printNamedList } from './names.js';
import { fetchList, type ListArgs } from './list-output.js';

const itemPath = (path: string, id: string) => path.replace('{id}', encodeURIComponent(id));

/** `svc edge list RESOURCE`: one page, or every page, as a table or JSON (list-output.ts). */
export async function listCommand(
  client: ManagementClient,
  resource: ResourceSpec,
  args: ListArgs & { query?: Record<string, string> },
  out: Output,
  paths: ReadonlySet<string>,
): Promise<number> {
  const page = await fetchList(client, resource.list.path, args, resource.singular, args.query);
  return printNamedList(client, page, args.columns ?? resource.columns, args.json, out, paths);
}

export async function getCommand(client: ManagementClient, resource: ResourceSpec, ref: string, out: Output): Promise<number> {
  const detail = resource.detail ?? usageFail(`${resource.plural} have no detail operation`);
  const id = (await resolveId(client, resource, ref)) as string;
  out.print(JSON.stringify((await client.call('GET', itemPath(detail.path, id))).body?.data, null, 2));
  return 0;
}

function usageFail(message: string): never {
  throw usageError(message);
}

/**
 * The option a `--data` that could not be read was probably meant for: key=value pairs or a config's settings go
 * to an object option, anything else to the field options.
 */
function probablyMeant(resource: ResourceSpec, operation: BodyOperation, spec: string): string {
  const objects = operation.fields.filter((f) => f.kind === 'object').map((f) => `--${flagOf(f, resource.singular)}`);
  const data = operation.fields.find((f) => f.name === 'data' && f.kind === 'object');
  if (data) return `did you mean --${flagOf(data, resource.singular)} (the ${resource.singular}'s own data)?`;
  if (spec.includes('=') && objects.length > 0) return `key=value pairs go to an object option: ${objects.join(', ')}`;
  return `--data takes the whole body as JSON: inline ('{"name": …}'), @FILE or - for stdin; one field has its own option (see --help)`;
}

/** The JSON object of `--data` (inline, @FILE, a bare FILE or - for stdin). */
async function readData(resource: ResourceSpec, operation: BodyOperation, spec: string): Promise<Record<string, unknown>> {
  try {
    return await readDataObject(spec);
  } catch (error) {
    if (!(error instanceof JsonInputError)) throw error;
    if (!error.unreadable) throw usageError(`--data: ${error.message}`);
    throw usageError(`--data: '${spec}' is neither JSON nor a readable file: ${error.message}; ${probablyMeant(resource, operation, spec)}`);
  }
}

/** A field given by position on a create: NAME, TYPE, JSON. */
const POSITIONAL_LABELS: Record<string, string> = { name: 'NAME', data: 'JSON' };

export function positionalLabel(field: FieldSpec): string {
  return POSITIONAL_LABELS[field.name] ?? 'TYPE';
}

/**
 * The positional fields of a create: NAME; then TYPE when the body has a type of listed values (`type`, `typeId`)
 * or a type named by reference (a config's `configTypeId`); then, after a TYPE, JSON for a required object `data`
 * (a config's settings): upstream's `create config NAME TYPE JSON`.
 */
export function positionalFields(operation: BodyOperation): FieldSpec[] {
  const name = operation.fields.find((f) => f.name === 'name' && f.kind === 'string');
  const type = operation.fields.find((f) => f.kind === 'string' && (((f.name === 'type' || f.name === 'typeId') && f.choices) || /^[a-z]+TypeId$/.test(f.name)));
  const data = type && operation.fields.find((f) => f.name === 'data' && f.kind === 'object' && f.required);
  return [name, type, data].filter((f): f is FieldSpec => f !== undefined);
}

/**
 * The values of the positionals of a create, by field name: in the API's order whatever upstream habit wrote them
 * in (namesFirst), a TYPE of listed values in any case, JSON parsed. A bad one is refused naming it and its value.
 */
export function positionalValues(resource: ResourceSpec, operation: BodyOperation, given: string[]): Record<string, unknown> {
  const fields = positionalFields(operation);
  const values = namesFirst(fields.find((f) => positionalLabel(f) === 'TYPE'), given);
  const result: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    const text = values[i];
    if (text === undefined) return;
    try {
      result[field.name] = field.kind === 'string' && !field.choices ? text : parseFieldValue(field, text);
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      throw usageError(`create ${resource.singular}: ${positionalLabel(field)} '${text}' is invalid: ${error.message}`);
    }
  });
  return result;
}

export interface BodyArgs {
  /** Field values from the options, by field name. */
  values: Record<string, unknown>;
  /** Field values from the positionals, by field name (positionalValues). */
  positionals?: Record<string, unknown>;
  data?: string;
}

/** The request body: `--data` first, then the positionals, then the field options (the most specific wins). */
export async function bodyOf(resource: ResourceSpec, operation: BodyOperation, args: BodyArgs): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = args.data !== undefined ? await readData(resource, operation, args.data) : {};
  Object.assign(body, args.positionals ?? {});
  for (const field of operation.fields) if (args.values[field.name] !== undefined) body[field.name] = args.values[field.name];
  const known = new Set(operation.fields.map((f) => f.name));
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length > 0 && operation.fields.length > 0) {
    const data = operation.fields.find((f) => f.name === 'data' && f.kind === 'object');
    const hint = data ? `; did you mean --${flagOf(data, resource.singular)} (the ${resource.singular}'s own data)?` : '';
    throw usageError(`--data: ${resource.plural} have no field ${unknown.map((k) => `'${k}'`).join(', ')} (fields: ${[...known].join(', ')})${hint}`);
  }
  return body;
}

/**
 * What a create leaves out that a person would not want to spell: a required yes/no is no, and a required choice
 * that offers `Default` is `Default` (an identity's type).
 */
export function withCreateDefaults(operation: BodyOperation, body: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...body };
  for (const field of operation.fields) {
    if (!field.required || filled[field.name] !== undefined) continue;
    if (field.kind === 'boolean') filled[field.name] = false;
    else if (field.choices?.includes('Default')) filled[field.name] = 'Default';
  }
  return filled;
}

/** Refuses a create that lacks a required field, naming each with how to give it. */
export function checkRequired(resource: ResourceSpec, operation: BodyOperation, body: Record<string, unknown>): void {
  const positional = positionalFields(operation).map((f) => f.name);
  const missing = operation.fields.filter((f) => f.required && body[f.name] === undefined);
  if (missing.length === 0) return;
  const how = missing.map((f) => (positional.includes(f.name) ? `${positionalLabel(f)} (or --${flagOf(f, resource.singular)})` : `--${flagOf(f, resource.singular)}`));
  throw usageError(`create ${resource.singular}: missing ${how.join(', ')}; see 'svc edge create ${resource.singular} --help'`);
}

export interface CreateResult {
  id: string;
  body: Record<string, unknown>;
}

export async function createEntity(client: ManagementClient, catalogue: Map<string, ResourceSpec>, resource: ResourceSpec, body: Record<string, unknown>): Promise<CreateResult> {
  const operation = resource.create ?? usageFail(`${resource.plural} cannot be created`);
  const resolved = await resolveReferences(client, catalogue, body, resource);
  const answer = await client.call('POST', operation.path, { body: resolved });
  return { id: String(answer.body?.data?.id ?? ''), body: resolved };
}

export async function updateCommand(
  client: ManagementClient,
  catalogue: Map<string, ResourceSpec>,
  resource: ResourceSpec,
  ref: string,
  body: Record<string, unknown>,
  out: Output,
  json = false,
): Promise<number> {
  const operation = resource.update ?? usageFail(`${resource.plural} cannot be updated`);
  if (Object.keys(body).length === 0) throw usageError(`update ${resource.singular}: nothing to change; see 'svc edge update ${resource.singular} --help' for the fields`);
  const id = (await resolveId(client, resource, ref)) as string;
  await client.call(operation.method, itemPath(operation.path, id), { body: await resolveReferences(client, catalogue, body, resource) });
  if (json && resource.detail) out.print(JSON.stringify((await client.call('GET', itemPath(resource.detail.path, id))).body?.data, null, 2));
  else out.print(`updated ${resource.singular} ${ref === id ? id : `${ref} (${id})`}`);
  return 0;
}

/**
 * Upstream's `delete RESOURCE where FILTER` deletes what a filter matches; svc deletes only what is named, so unless
 * an entity is named `where`, say how to do it in two steps.
 */
async function refuseWhere(client: ManagementClient, resource: ResourceSpec, refs: string[]): Promise<void> {
  if (refs[0] !== 'where' || refs.length < 2) return;
  try {
    await resolveId(client, resource, 'where');
  } catch {
    const filter = refs.slice(1).join(' ');
    throw usageError(`delete ${resource.singular} takes ids or names, not 'where FILTER': list them with svc edge list ${resource.plural} '${filter}', then svc edge delete ${resource.singular} NAME…`);
  }
}

export async function deleteCommand(client: ManagementClient, resource: ResourceSpec, refs: string[], out: Output, json = false): Promise<number> {
  const operation = resource.remove ?? usageFail(`${resource.plural} cannot be deleted`);
  await refuseWhere(client, resource, refs);
  const deleted: Array<{ id: string; ref: string }> = [];
  for (const ref of refs) {
    const id = (await resolveId(client, resource, ref)) as string;
    await client.call('DELETE', itemPath(operation.path, id));
    deleted.push({ id, ref });
    if (!json) out.print(`deleted ${resource.singular} ${ref === id ? id : `${ref} (${id})`}`);
  }
  if (json) out.print(JSON.stringify(deleted, null, 2));
  return 0;
}

/** The first string under a key ending in `jwt` in `value` (an enrollment's JWT on an identity or router detail). */
export function enrollmentJwtOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (/jwt$/i.test(key) && typeof inner === 'string' && inner !== '') return inner;
    const found = enrollmentJwtOf(inner);
    if (found) return found;
  }
  return undefined;
}

/** Writes the enrollment JWT of the entity `id` to `file` (mode 0600: it is a one-time credential). */
export async function writeEnrollmentJwt(client: ManagementClient, resource: ResourceSpec, id: string, file: string): Promise<void> {
  const detail = resource.detail ?? usageFail(`${resource.plural} have no detail operation`);
  const jwt = enrollmentJwtOf((await client.call('GET', itemPath(detail.path, id))).body?.data);
  if (!jwt) throw usageError(`-o: the new ${resource.singular} has no pending enrollment to write`);
  writeFileSync(file, `${jwt}\n`, { mode: 0o600 });
}
