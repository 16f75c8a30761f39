/**
 * The generated part of `svc edge`: under each verb (list, get, create, update, delete) one sub-command per
 * resource of the catalogue that has that operation, named by its singular with its plural as an alias, its options
 * made from the request body schema. Nothing here names a resource.
 */
import { Argument, Command, Option } from 'commander';
import type { Output } from '../output.js';
import type { BodyOperation, ResourceSpec } from './catalogue.js';
import { fieldOptions, formOf, shorthandOptions, flagOf } from './field-options.js';
import { managementClient } from './management-client.js';
import { addRelationCommands } from './related-commands.js';
import {
  bodyOf,
  checkRequired,
  createEntity,
  deleteCommand,
  getCommand,
  listCommand,
  positionalFields,
  positionalLabel,
  positionalValues,
  updateCommand,
  withCreateDefaults,
  writeEnrollmentJwt,
} from './resource-commands.js';
import { addListOptions, addQueryOptions, listArgsOf, queryValues } from './list-output.js';
import { dataOption } from './json-input.js';
import { resourceAliases } from './upstream-habits.js';

export type Run = (action: () => Promise<number>) => Promise<void>;

const FIELD_KEY = 'field:';

/** Adds the field options of `operation` to `command`, each stored under `field:<name>`. */
export function addFieldOptions(command: Command, resource: ResourceSpec, operation: BodyOperation): void {
  for (const { field, option } of fieldOptions(operation.fields, resource.singular)) {
    option.attributeName = () => `${FIELD_KEY}${field.name}`;
    command.addOption(option);
  }
  for (const option of shorthandOptions(operation.fields)) {
    const name = option.attributeName();
    option.attributeName = () => `${FIELD_KEY}${name}`;
    command.addOption(option);
  }
}

/** The field values given as options, by field name. */
export function fieldValues(options: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (key.startsWith(FIELD_KEY)) values[key.slice(FIELD_KEY.length)] = value;
  return values;
}

function resourceCommand(parent: Command, resource: ResourceSpec, summary: string): Command {
  const command = parent.command(resource.singular).description(summary);
  if (resource.plural !== resource.singular) command.alias(resource.plural);
  for (const alias of resourceAliases(resource.singular)) command.alias(alias);
  return command;
}

/** `-j, --json`, as upstream spells it; `--output-json`, upstream's long spelling, is kept out of help. */
function addJsonOption(command: Command, description: string): Command {
  const upstream = new Option('--output-json').hideHelp();
  upstream.attributeName = () => 'json';
  return command.option('-j, --json', description).addOption(upstream);
}

/** One line per resource: its fields, required ones starred (for `svc edge create --help`). */
function fieldsSummary(resources: ResourceSpec[], pick: (r: ResourceSpec) => BodyOperation | undefined): string {
  const lines = resources.flatMap((r) => {
    const operation = pick(r);
    if (!operation) return [];
    return [`  ${r.singular}: ${operation.fields.map((f) => `--${flagOf(f, r.singular)}${f.required ? '*' : ''}`).join(' ') || '(no fields)'}`];
  });
  return `\nFields (* required):\n${lines.join('\n')}`;
}

export function addResourceCommands(edge: Command, catalogue: Map<string, ResourceSpec>, out: Output, run: Run): void {
  const resources = [...catalogue.values()].sort((a, b) => a.singular.localeCompare(b.singular));
  // The list paths, so a table can look up the names of the entities its columns refer to (names.ts).
  const paths = new Set(resources.map((r) => r.list.path));

  const list = edge
    .command('list')
    .alias('ls')
    .description("Lists the entities of a resource as a table (or JSON), with an optional filter; 'list RESOURCE RELATION ID|NAME' lists those related to one entity");
  for (const resource of resources) {
    const command = resourceCommand(list, resource, `${resource.list.summary}; columns ${resource.columns.join(', ')}`);
    addListOptions(command.argument('[filter]', `a filter such as 'name contains "x"'${resource.named ? ' or \'name = "x"\'' : ''}`), resource.columns);
    addQueryOptions(command, resource.listQuery, resource.singular).action((filter: string | undefined, options: Record<string, any>) =>
      run(() => listCommand(managementClient(), resource, { ...listArgsOf(filter, options), query: queryValues(options) }, out, paths)),
    );
    addRelationCommands(command, resource, out, run, paths);
  }

  const get = edge.command('get').alias('show').description('Prints one entity as JSON, named by id or name');
  for (const resource of resources.filter((r) => r.detail)) {
    const command = resourceCommand(get, resource, resource.detail?.summary ?? '').argument(resource.named ? '<id|name>' : '<id>');
    addJsonOption(command, 'accepted for habit: get always prints JSON').action((ref: string) => run(() => getCommand(managementClient(), resource, ref, out)));
  }

  const create = edge.command('create').description('Creates an entity from field options (or --data FILE)');
  for (const resource of resources) {
    const operation = resource.create;
    if (!operation) continue;
    const command = resourceCommand(create, resource, operation.summary);
    const positionals = positionalFields(operation);
    for (const field of positionals) {
      // A TYPE of listed values is checked in the action, once a type-first command line is turned round.
      const form = field.choices ? `${formOf(field)}, in any case` : field.kind === 'object' ? 'a JSON object or @FILE' : formOf(field);
      command.addArgument(new Argument(`[${positionalLabel(field).toLowerCase()}]`, `the ${field.name} (${form}), or --${flagOf(field, resource.singular)}`));
    }
    addFieldOptions(command, resource, operation);
    command.addOption(dataOption());
    if (operation.fields.some((f) => f.name === 'enrollment' && f.kind === 'object')) {
      command.option('--updb <username>', "a password enrollment for this username (same as --enrollment '{\"updb\":\"USER\"}')");
    }
    if (resource.enrolls) {
      command.addOption(new Option('-o, --output <file>', 'write the enrollment JWT to this file (a one-time enrollment is made if none is asked for)'));
      // Upstream's long name for -o.
      const upstream = new Option('--jwt-output-file <file>').hideHelp();
      upstream.attributeName = () => 'output';
      command.addOption(upstream);
    }
    addJsonOption(command, 'print the created entity as JSON');
    command.action((...args: unknown[]) =>
      run(async () => {
        const cmd = args[args.length - 1] as Command;
        const options = cmd.opts();
        const values = fieldValues(options);
        if (options.updb !== undefined) values.enrollment = { updb: options.updb };
        if (options.output !== undefined && values.enrollment === undefined && operation.fields.some((f) => f.name === 'enrollment')) values.enrollment = { ott: true };
        const given = args.slice(0, positionals.length).filter((a): a is string => typeof a === 'string');
        const body = withCreateDefaults(operation, await bodyOf(resource, operation, { values, positionals: positionalValues(resource, operation, given), data: options.data }));
        checkRequired(resource, operation, body);
        const client = managementClient();
        const created = await createEntity(client, catalogue, resource, body);
        if (options.json) out.print(JSON.stringify({ id: created.id, ...created.body }, null, 2));
        else out.print(`created ${resource.singular} ${typeof body.name === 'string' ? `${body.name} (${created.id})` : created.id}`);
        if (options.output !== undefined) {
          await writeEnrollmentJwt(client, resource, created.id, options.output);
          if (!options.json) out.print(`enrollment JWT written to ${options.output}`);
        }
        return 0;
      }),
    );
  }
  create.addHelpText('after', fieldsSummary(resources, (r) => r.create));

  const update = edge.command('update').description('Changes the given fields of an entity named by id or name');
  for (const resource of resources) {
    const operation = resource.update;
    if (!operation) continue;
    const command = resourceCommand(update, resource, operation.summary).argument(resource.named ? '<id|name>' : '<id>');
    addFieldOptions(command, resource, operation);
    command.addOption(dataOption());
    addJsonOption(command, 'print the updated entity as JSON');
    command.action((ref: string, options: Record<string, unknown>) =>
      run(async () => {
        const body = await bodyOf(resource, operation, { values: fieldValues(options), data: options.data as string | undefined });
        return updateCommand(managementClient(), catalogue, resource, ref, body, out, options.json === true);
      }),
    );
  }
  update.addHelpText('after', fieldsSummary(resources, (r) => r.update));

  const remove = edge.command('delete').description('Deletes entities named by id or name');
  for (const resource of resources.filter((r) => r.remove)) {
    const command = resourceCommand(remove, resource, resource.remove?.summary ?? '').argument(resource.named ? '<id|name...>' : '<id...>');
    addJsonOption(command, 'print what was deleted as JSON').action((refs: string[], options: { json?: boolean }) =>
      run(() => deleteCommand(managementClient(), resource, refs, out, options.json === true)),
    );
  }
}

/**
 * `svc edge --help`'s list of every resource and what can be done with it: the verbs, then its related lists
 * (`svc edge list RESOURCE RELATION ID|NAME`) and its actions (`svc edge do RESOURCE ACTION ID|NAME`).
 */
export function resourcesHelp(catalogue: Map<string, ResourceSpec>, source: string): string {
  const resources = [...catalogue.values()].sort((a, b) => a.singular.localeCompare(b.singular));
  const width = Math.max(...resources.map((r) => r.singular.length));
  const verbs = (r: ResourceSpec) => ['list', r.detail && 'get', r.create && 'create', r.update && 'update', r.remove && 'delete'].filter(Boolean).join(' ');
  const indent = ' '.repeat(width + 4);
  const lines = resources.flatMap((r) => [
    `  ${r.singular.padEnd(width)}  ${verbs(r)}`,
    ...(r.relations.length > 0 ? [`${indent}list ${r.singular} RELATION: ${r.relations.map((x) => x.name).join(' ')}`] : []),
    ...(r.actions.length > 0 ? [`${indent}do ${r.singular} ACTION: ${r.actions.map((x) => x.name).join(' ')}`] : []),
  ]);
  const forms = 'Related lists: svc edge list RESOURCE RELATION ID|NAME [FILTER]; actions: svc edge do RESOURCE ACTION ID|NAME';
  return `\nResources (${source}):\n${lines.join('\n')}\n${forms}`;
}
