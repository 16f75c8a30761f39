/**
 * The generic resource commands, for every resource of the catalogue alike: list (a table of the useful columns, or
 * JSON), get (the detail as JSON), create and update (a body from the field options, `--data FILE` and the
 * positional NAME [TYPE]), delete. Entities are named by id or name (resolve.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Output } from '../output.js';
import type { BodyOperation, FieldSpec, ResourceSpec } from './catalogue.js';
import { usageError } from '../cli-error.js';
import { flagOf } from './field-options.js';
import type { ManagementClient } from './management-client.js';
import { resolveId, resolveReferences } from './resolve.js';
import { printNamedList } from './names.js';
import { fetchList, type ListArgs } from './list-output.js';

const itemPath = (path: string, id: string) => path.replace('{id}', encodeURIComponent(id));

/** `svc edge list RESOURCE`: one page, or every page, as a table or JSON (list-output.ts). */
export async function listCommand(client: ManagementClient, resource: ResourceSpec, args: ListArgs, out: Output, paths: ReadonlySet<string>): Promise<number> {
  return printNamedList(client, await fetchList(client, resource.list.path, args, resource.singular), args.columns ?? resource.columns, args.json, out, paths);
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

/** The JSON object of `--data FILE` (`-` reads stdin). */
function readDataFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw usageError(`--data: cannot read '${file}': ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw usageError(`--data: '${file}' is not JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw usageError(`--data: '${file}' must hold a JSON object`);
  return value as Record<string, unknown>;
}

/** The positional fields of a create: NAME, then TYPE when the body has a `type` of listed values. */
export function positionalFields(operation: BodyOperation): FieldSpec[] {
  const name = operation.fields.find((f) => f.name === 'name' && f.kind === 'string');
  const type = operation.fields.find((f) => f.name === 'type' && f.choices);
  return [name, type].filter((f): f is FieldSpec => f !== undefined);
}

export interface BodyArgs {
  /** Field values from the options, by field name. */
  values: Record<string, unknown>;
  positionals: unknown[];
  data?: string;
}

/** The request body: `--data` first, then the positionals, then the field options (the most specific wins). */
export function bodyOf(resource: ResourceSpec, operation: BodyOperation, args: BodyArgs): Record<string, unknown> {
  const body: Record<string, unknown> = args.data !== undefined ? readDataFile(args.data) : {};
  positionalFields(operation).forEach((field, i) => {
    if (args.positionals[i] !== undefined) body[field.name] = args.positionals[i];
  });
  for (const field of operation.fields) if (args.values[field.name] !== undefined) body[field.name] = args.values[field.name];
  const known = new Set(operation.fields.map((f) => f.name));
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length > 0 && operation.fields.length > 0) {
    throw usageError(`--data: ${resource.plural} have no field ${unknown.map((k) => `'${k}'`).join(', ')} (fields: ${[...known].join(', ')})`);
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
  const how = missing.map((f) => (positional.includes(f.name) ? `${f.name.toUpperCase()} (or --${flagOf(f, resource.singular)})` : `--${flagOf(f, resource.singular)}`));
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
): Promise<number> {
  const operation = resource.update ?? usageFail(`${resource.plural} cannot be updated`);
  if (Object.keys(body).length === 0) throw usageError(`update ${resource.singular}: nothing to change; see 'svc edge update ${resource.singular} --help' for the fields`);
  const id = (await resolveId(client, resource, ref)) as string;
  await client.call(operation.method, itemPath(operation.path, id), { body: await resolveReferences(client, catalogue, body, resource) });
  out.print(`updated ${resource.singular} ${ref === id ? id : `${ref} (${id})`}`);
  return 0;
}

export async function deleteCommand(client: ManagementClient, resource: ResourceSpec, refs: string[], out: Output): Promise<number> {
  const operation = resource.remove ?? usageFail(`${resource.plural} cannot be deleted`);
  for (const ref of refs) {
    const id = (await resolveId(client, resource, ref)) as string;
    await client.call('DELETE', itemPath(operation.path, id));
    out.print(`deleted ${resource.singular} ${ref === id ? id : `${ref} (${id})`}`);
  }
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
