/**
 * What every `svc edge list …` shares, whether the list is a resource's (`list services`) or one entity's related
 * list (`list identity services alice`): the list options, fetching one page or every page, and printing the items as
 * an aligned table with a results line, or as one JSON array.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Output } from '../output.js';
import { usageError } from '../cli-error.js';
import type { ManagementClient } from './management-client.js';
import { cellOf, tableLines } from './table.js';
import type { FieldSpec } from './catalogue.js';
import { fieldOptions } from './field-options.js';

const QUERY_KEY = 'query:';

/** Adds an option per query parameter of `fields` (`--within`), kept apart from the other options for queryValues. */
export function addQueryOptions(command: Command, fields: FieldSpec[], resource: string): Command {
  for (const { field, option } of fieldOptions(fields, resource)) {
    option.attributeName = () => `${QUERY_KEY}${field.name}`;
    command.addOption(option);
  }
  return command;
}

/** The query parameters given by the options addQueryOptions added, as text. */
export function queryValues(options: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(options)) if (key.startsWith(QUERY_KEY) && value !== undefined) query[key.slice(QUERY_KEY.length)] = String(value);
  return query;
}

export interface ListArgs {
  filter?: string;
  limit?: number;
  offset?: number;
  sort?: string;
  columns?: string[];
  json: boolean;
  /** Every page, not only the first (the controller answers 10 items unless asked for more, at most 500). */
  all?: boolean;
}

export interface Page {
  items: Record<string, unknown>[];
  pagination?: { offset: number; totalCount: number };
}

/** The page size `--all` asks for: the most the controller answers at once. */
const ALL_PAGE = 500;

/** A commander parser for a count option, naming the option when the text is not one. */
export function positiveInteger(name: string) {
  return (text: string) => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) throw new InvalidArgumentError(`expected a whole number (${name}).`);
    return value;
  };
}

/** Adds the list options to a list command; `columns` are the defaults its help names. */
export function addListOptions(command: Command, columns: readonly string[]): Command {
  return command
    .option('--limit <n>', 'at most this many (the controller caps it)', positiveInteger('--limit'))
    .option('--offset <n>', 'skip this many', positiveInteger('--offset'))
    .option('--sort <order>', "for example 'name desc'")
    .option('--columns <a,b>', `the columns to show (default ${columns.join(',')})`, (text: string) => text.split(','))
    .option('-j, --json', 'print the items as JSON instead of a table')
    .option('--all', 'every page (500 at a time) instead of the first; not with --limit or --offset');
}

/** The list arguments from a list command's parsed options. */
export function listArgsOf(filter: string | undefined, options: Record<string, any>): ListArgs {
  return { filter, limit: options.limit, offset: options.offset, sort: options.sort, columns: options.columns, json: options.json === true, all: options.all === true };
}

async function fetchPage(client: ManagementClient, path: string, query: Record<string, string | undefined>): Promise<Page> {
  const answer = await client.call('GET', path, { query });
  return { items: (answer.body?.data ?? []) as Record<string, unknown>[], pagination: answer.body?.meta?.pagination };
}

/**
 * The page the arguments ask for, or with `--all` every page, following offsets until the total the controller
 * reports; a page that comes back empty (entities deleted meanwhile) ends it too, so a shrinking list cannot loop.
 * `query` holds the list's own parameters (a related list's `policyType`).
 */
export async function fetchList(client: ManagementClient, path: string, args: ListArgs, what: string, query: Record<string, string> = {}): Promise<Page> {
  if (!args.all) return fetchPage(client, path, { ...query, filter: args.filter, limit: args.limit?.toString(), offset: args.offset?.toString(), sort: args.sort });
  if (args.limit !== undefined || args.offset !== undefined) {
    throw usageError(`list ${what}: --all fetches every page itself; leave out ${args.limit !== undefined ? '--limit' : '--offset'}`);
  }
  const items: Record<string, unknown>[] = [];
  for (;;) {
    const page = await fetchPage(client, path, { ...query, filter: args.filter, sort: args.sort, limit: String(ALL_PAGE), offset: String(items.length) });
    items.push(...page.items);
    const total = page.pagination?.totalCount;
    if (total === undefined || page.items.length === 0 || items.length >= total) return { items, pagination: { offset: 0, totalCount: Math.max(total ?? 0, items.length) } };
  }
}

/** Prints a page: JSON (one array), or a table of `columns` (items that are not objects one per line) and the results line. */
export function printList({ items, pagination: page }: Page, columns: readonly string[], json: boolean, out: Output): number {
  if (json) {
    out.print(JSON.stringify(items, null, 2));
    return 0;
  }
  if (columns.length === 0) for (const item of items) out.print(cellOf(item));
  else for (const line of tableLines([...columns], items)) out.print(line);
  if (page) out.print(items.length === 0 ? `results: none of ${page.totalCount}` : `results: ${page.offset + 1}-${page.offset + items.length} of ${page.totalCount}`);
  return 0;
}
