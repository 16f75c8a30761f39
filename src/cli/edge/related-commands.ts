/**
 * The related lists of `svc edge list RESOURCE RELATION ID|NAME [FILTER]`: every `GET /{resource}/{id}/{relation}`
 * the Management API document declares (`/identities/{id}/services`), as a sub-command of the resource's own list
 * command, with the list options and one option per other query parameter the document declares (`--policy-type`).
 * The parent is named by id or name; the output is the list's table, or JSON. Nothing here names a resource.
 */
import type { Command } from 'commander';
import type { Output } from '../output.js';
import type { RelationSpec, ResourceSpec } from './catalogue.js';
import { fieldOptions } from './field-options.js';
import { managementClient, type ManagementClient } from './management-client.js';
import { resolveId } from './resolve.js';
import { addListOptions, fetchList, listArgsOf, type ListArgs } from './list-output.js';
import { printNamedList } from './names.js';
import { closestMatch } from '../../shared/text-distance.js';

export type Run = (action: () => Promise<number>) => Promise<void>;

const QUERY_KEY = 'query:';

/** Prints the entities related to the one `ref` names: a table with the results line, or JSON; `--all` as for lists. */
export async function relatedListCommand(
  client: ManagementClient,
  resource: ResourceSpec,
  relation: RelationSpec,
  ref: string,
  args: ListArgs & { query: Record<string, string> },
  out: Output,
  paths: ReadonlySet<string>,
): Promise<number> {
  const id = (await resolveId(client, resource, ref)) as string;
  const page = await fetchList(client, relation.path.replace('{id}', encodeURIComponent(id)), args, `${resource.singular} ${relation.name}`, args.query);
  return printNamedList(client, page, args.columns ?? relation.columns, args.json, out, paths);
}

/** `(did you mean services?)` when one relation is close to `word`. */
function suggestion(word: string, names: string[]): string {
  const close = closestMatch(word, names) ?? names.find((name) => name.startsWith(word));
  return close ? ` (did you mean ${close}?)` : '';
}

/**
 * A word where a filter was expected that cannot be one (filters need an operator; `true` and `false` are the only
 * filters of one word), or more than one operand: a related list was meant, under a name the resource does not have.
 */
function unknownRelation(operands: string[]): string | undefined {
  const first = operands[0];
  if (first === undefined) return undefined;
  if (operands.length > 1 || (/^[a-z][a-z0-9-]*$/.test(first) && first !== 'true' && first !== 'false')) return first;
  return undefined;
}

/**
 * Adds `list` (the resource's list command) one sub-command per related list. The list keeps its own `[filter]`;
 * a word there that can only be a relation's name is refused with the names the resource has (exit code 2).
 */
export function addRelationCommands(list: Command, resource: ResourceSpec, out: Output, run: Run, paths: ReadonlySet<string>): void {
  if (resource.relations.length === 0) return;
  const names = resource.relations.map((r) => r.name);
  // Extra operands are checked below (an unknown relation) rather than refused as "too many arguments".
  list.allowExcessArguments(true);
  list.hook('preAction', (hooked, acting) => {
    if (acting !== hooked) return;
    const word = unknownRelation(hooked.args);
    if (word === undefined) return;
    const [first, second, ...rest] = hooked.args;
    if (second !== undefined && names.includes(second)) {
      const words = [resource.singular, second, first, ...rest].map((w) => (/^[\w@.:-]+$/.test(w as string) ? w : `'${w}'`));
      const spelled = `svc edge list ${words.join(' ')}`;
      hooked.error(`error: the relation comes before the ${resource.singular}: ${spelled}`, { exitCode: 2, code: 'svc.relationOrder' });
    }
    hooked.error(
      `error: ${resource.plural} have no related list '${word}'${suggestion(word, names)}; they have: ${names.join(', ')} (svc edge list ${resource.singular} RELATION ID|NAME)`,
      { exitCode: 2, code: 'svc.unknownRelation' },
    );
  });
  const parent = resource.named ? `<${resource.singular}>` : `<${resource.singular}-id>`;
  for (const relation of resource.relations) {
    // command() rather than addCommand(): the sub-command inherits the program's exit and output settings.
    const command = list
      .command(relation.name)
      .description(`${relation.summary}; columns ${relation.columns.join(', ')}`)
      .argument(parent, `the ${resource.singular}, by id${resource.named ? ' or name' : ''}`)
      .argument('[filter]', `a filter on the ${relation.name}, such as 'name contains "x"'`);
    addListOptions(command, relation.columns);
    for (const { field, option } of fieldOptions(relation.query, resource.singular)) {
      option.attributeName = () => `${QUERY_KEY}${field.name}`;
      command.addOption(option);
    }
    command.action((ref: string, filter: string | undefined, _options: unknown, self: Command) =>
      run(() => {
        // The list's own options of the same name (--json, --limit…) are parsed by the list before it hands over
        // to the relation, wherever they stand: optsWithGlobals() reads them from there.
        const options: Record<string, any> = self.optsWithGlobals();
        const query: Record<string, string> = {};
        for (const [key, value] of Object.entries(options)) if (key.startsWith(QUERY_KEY) && value !== undefined) query[key.slice(QUERY_KEY.length)] = String(value);
        const args = { ...listArgsOf(filter, options), query };
        return relatedListCommand(managementClient(), resource, relation, ref, args, out, paths);
      }),
    );
  }
}
