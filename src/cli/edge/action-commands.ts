/**
 * `svc edge do RESOURCE ACTION ID|NAME [MORE…] [options]`: every operation the Management API document declares
 * under an entity that is not a related list (`POST /identities/{id}/disable`, `DELETE /identities/{id}/mfa` as
 * `delete-mfa`, `POST /cas/{id}/verify`, `GET /cas/{id}/jwt`, `POST /edge-routers/{id}/re-enroll`). A JSON body's
 * fields are options as for create and update (or `--data FILE`); a PEM body is `--cert FILE`; further path
 * parameters (`{serviceId}`) are arguments named by id or name. Nothing here names a resource.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Output } from '../output.js';
import { usageError } from '../cli-error.js';
import type { ActionSpec, ResourceSpec } from './catalogue.js';
import { fieldOptions, flagOf } from './field-options.js';
import { managementClient } from './management-client.js';
import { resolveId, resolveReferences } from './resolve.js';
import { dataOption } from './json-input.js';
import { bodyOf, enrollmentJwtOf, writeEnrollmentJwt } from './resource-commands.js';
import { addFieldOptions, fieldValues, type Run } from './resource-tree.js';

const QUERY_KEY = 'query:';

/** The option a text body is given by: a PEM document is a certificate on this API (a CA's verification). */
const textOption = (action: ActionSpec) => (action.textBody?.pem ? 'cert' : 'body-file');

/** `serviceId` -> `service`: what an argument holding another entity's id is called in help. */
const argumentName = (param: string) => param.replace(/Ids?$/, '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function readText(option: string, file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw usageError(`--${option}: cannot read '${file}': ${(error as Error).message}`);
  }
}

export interface ActionArgs {
  ref: string;
  /** The values of the further path parameters, in order. */
  params: string[];
  options: Record<string, unknown>;
}

/** Runs `action` on the entity `args.ref` names and prints what it answers. */
export async function actionCommand(catalogue: Map<string, ResourceSpec>, resource: ResourceSpec, action: ActionSpec, args: ActionArgs, out: Output): Promise<number> {
  const { options } = args;
  const usage = `svc edge do ${resource.singular} ${action.name}`;
  let body: unknown;
  let contentType: string | undefined;
  if (action.textBody) {
    const file = options.text as string | undefined;
    if (file !== undefined) {
      body = readText(textOption(action), file);
      contentType = action.textBody.contentType;
    }
  } else if (action.jsonBody) {
    const fields = await bodyOf(resource, action, { values: fieldValues(options), data: options.data as string | undefined });
    const missing = action.fields.filter((f) => f.required && fields[f.name] === undefined);
    if (missing.length > 0) throw usageError(`${usage}: missing ${missing.map((f) => `--${flagOf(f, resource.singular)}`).join(', ')}; see '${usage} --help'`);
    body = fields;
  }
  const client = managementClient();
  const id = (await resolveId(client, resource, args.ref)) as string;
  let path = action.path.replace('{id}', encodeURIComponent(id));
  for (const [i, param] of action.params.entries()) {
    const resolved = await resolveReferences(client, catalogue, { [param]: args.params[i] });
    path = path.replace(`{${param}}`, encodeURIComponent(String(resolved[param])));
  }
  if (body !== undefined && typeof body === 'object') body = await resolveReferences(client, catalogue, body as Record<string, unknown>);
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(options)) if (key.startsWith(QUERY_KEY) && value !== undefined) query[key.slice(QUERY_KEY.length)] = String(value);
  const answer = await client.call(action.method, path, { query, body, contentType });

  const file = options.output as string | undefined;
  const label = `${resource.singular} ${args.ref === id ? id : `${args.ref} (${id})`}`;
  if (action.answer === 'text') {
    if (file === undefined) out.print(answer.text.trim());
    else {
      writeFileSync(file, answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`, { mode: 0o600 });
      out.print(`${action.name} ${label}: written to ${file}`);
    }
    return 0;
  }
  if (action.answer === 'document') {
    const data = answer.body?.data;
    if (file === undefined) out.print(JSON.stringify(data, null, 2));
    else {
      const jwt = enrollmentJwtOf(data);
      if (!jwt) throw usageError(`-o: the answer of ${action.name} carries no JWT to write`);
      writeFileSync(file, `${jwt}\n`, { mode: 0o600 });
      out.print(`${action.name} ${label}: JWT written to ${file}`);
    }
    return 0;
  }
  out.print(`${action.name} ${label}: done`);
  if (file !== undefined) {
    await writeEnrollmentJwt(client, resource, id, file);
    out.print(`enrollment JWT written to ${file}`);
  }
  return 0;
}

function addActionCommand(parent: Command, catalogue: Map<string, ResourceSpec>, resource: ResourceSpec, action: ActionSpec, out: Output, run: Run): void {
  const command = parent
    .command(action.name)
    .description(`${action.summary} (${action.method} ${action.path})`)
    .argument(resource.named ? `<${resource.singular}>` : `<${resource.singular}-id>`, `the ${resource.singular}, by id${resource.named ? ' or name' : ''}`);
  for (const param of action.params) command.argument(`<${argumentName(param)}>`, `the ${argumentName(param)}, by id or name`);
  if (action.jsonBody && action.fields.length > 0) {
    addFieldOptions(command, resource, action);
    command.addOption(dataOption());
  }
  if (action.textBody) {
    const what = action.textBody.pem ? 'the PEM certificate to send' : `the ${action.textBody.contentType} document to send`;
    const option = new Option(`--${textOption(action)} <file>`, `${what} (- for stdin)`).makeOptionMandatory(action.textBody.required);
    // Stored under one name whatever the flag, for actionCommand (set before adding: commander reads it then).
    option.attributeName = () => 'text';
    command.addOption(option);
  }
  for (const { field, option } of fieldOptions(action.query, resource.singular)) {
    option.attributeName = () => `${QUERY_KEY}${field.name}`;
    command.addOption(option);
  }
  const writes = {
    answer: `write the answer to this file instead of printing it`,
    'answer-jwt': 'write the JWT of the answer to this file (mode 0600) instead of printing the answer',
    'entity-jwt': `then write the ${resource.singular}'s new enrollment JWT to this file (mode 0600)`,
  };
  if (action.writes) command.option('-o, --output <file>', writes[action.writes]);
  command.action((...values: unknown[]) =>
    run(() => {
      const cmd = values[values.length - 1] as Command;
      const [ref, ...params] = cmd.processedArgs as string[];
      return actionCommand(catalogue, resource, action, { ref: ref as string, params, options: cmd.opts() }, out);
    }),
  );
}

/** Adds `svc edge do`, with one sub-command per resource that has actions and one per action under it. */
export function addActionCommands(edge: Command, catalogue: Map<string, ResourceSpec>, out: Output, run: Run): void {
  const resources = [...catalogue.values()].filter((r) => r.actions.length > 0).sort((a, b) => a.singular.localeCompare(b.singular));
  if (resources.length === 0) return;
  const doCommand = edge
    .command('do')
    .description('Runs an action on an entity named by id or name: every other operation of the Management API under RESOURCE/{id}/ (disable an identity, verify a CA, re-enroll an edge router…)');
  for (const resource of resources) {
    const parent = doCommand.command(resource.singular).description(`${resource.plural}: ${resource.actions.map((a) => a.name).join(', ')}`);
    if (resource.plural !== resource.singular) parent.alias(resource.plural);
    for (const action of resource.actions) addActionCommand(parent, catalogue, resource, action, out, run);
  }
}
