/**
 * Command-line options from request body fields: one option per field, named by the field in kebab-case, whose
 * value is checked and converted by the field's schema (words, yes/no, numbers in range, comma-separated lists,
 * JSON objects). A bad value is refused by the parser with the option's name and the expected form (exit code 2).
 */
import { InvalidArgumentError, Option } from 'commander';
import type { FieldSpec } from './catalogue.js';
import { JsonInputError, looksLikeJson, readJsonObject } from './json-input.js';
import { choiceOf, shortFlagsOf } from './upstream-habits.js';

/** Option names the commands themselves use; a field of the same name gets the resource's name in front. */
const RESERVED = new Set(['data', 'json', 'help', 'output', 'limit', 'offset', 'sort']);

export interface FieldOption {
  field: FieldSpec;
  option: Option;
}

/** The flag (without dashes) a field is given by on the command line of `resource`. */
export function flagOf(field: FieldSpec, resource: string): string {
  return RESERVED.has(field.flag) ? `${resource}-${field.flag}` : field.flag;
}

/** What the value looks like, for help and errors. */
export function formOf(field: FieldSpec): string {
  switch (field.kind) {
    case 'boolean':
      return 'true|false';
    case 'integer':
    case 'number':
      return field.minimum !== undefined && field.maximum !== undefined ? `${field.kind} ${field.minimum}..${field.maximum}` : field.kind;
    case 'string-array':
      return 'a,b,…';
    case 'object':
      return 'JSON|@file|k=v,…';
    default:
      return field.choices ? field.choices.join('|') : 'text';
  }
}

function parseBoolean(text: string): boolean {
  if (text === 'true' || text === 'yes') return true;
  if (text === 'false' || text === 'no') return false;
  throw new InvalidArgumentError('expected true or false.');
}

function parseNumber(field: FieldSpec, text: string): number {
  const value = Number(text);
  const range = field.minimum !== undefined && field.maximum !== undefined ? ` from ${field.minimum} to ${field.maximum}` : '';
  const wrongKind = text.trim() === '' || !Number.isFinite(value) || (field.kind === 'integer' && !Number.isInteger(value));
  const outOfRange = (field.minimum !== undefined && value < field.minimum) || (field.maximum !== undefined && value > field.maximum);
  if (wrongKind || outOfRange) throw new InvalidArgumentError(`expected ${field.kind === 'integer' ? 'an integer' : 'a number'}${range}.`);
  return value;
}

/** `{"a":1}` as JSON, `@file.json` from a file, or `site=s1,env=prod` as an object of strings. */
function parseObject(text: string): Record<string, unknown> {
  if (looksLikeJson(text) || text.startsWith('@')) {
    try {
      return readJsonObject(text, { bareFile: false });
    } catch (error) {
      if (error instanceof JsonInputError) throw new InvalidArgumentError(`expected a JSON object, @FILE or key=value pairs separated by commas: ${error.message}.`);
      throw error;
    }
  }
  const object: Record<string, string> = {};
  for (const pair of text.split(',').filter((p) => p !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new InvalidArgumentError(`expected a JSON object, @FILE or key=value pairs separated by commas; '${pair}' has no key=value.`);
    object[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return object;
}

function fail(message: string): never {
  throw new InvalidArgumentError(message);
}

/** Converts the text of one field's value; `null` clears a nullable field. */
export function parseFieldValue(field: FieldSpec, text: string): unknown {
  if (field.nullable && text === 'null') return null;
  switch (field.kind) {
    case 'boolean':
      return parseBoolean(text);
    case 'integer':
    case 'number':
      return parseNumber(field, text);
    case 'string-array':
      return text === '' ? [] : text.split(',').map((item) => item.trim());
    case 'object':
      return parseObject(text);
    default:
      if (!field.choices) return text;
      // Upstream's habit: `dial` for Dial, `any` for AnyOf.
      return choiceOf(field.choices, text) ?? fail(`expected one of ${field.choices.join(', ')} (in any case).`);
  }
}

/** `required`, or what a create fills in when the field is left out (resource-commands.ts, withCreateDefaults). */
function requiredNote(field: FieldSpec): string | undefined {
  if (!field.required) return undefined;
  if (field.kind === 'boolean') return 'default false';
  if (field.choices?.includes('Default')) return 'default Default';
  return 'required';
}

/** One option per field, each storing its value under the field's own name. */
export function fieldOptions(fields: FieldSpec[], resource: string): FieldOption[] {
  const shorts = shortFlagsOf(fields);
  return fields.map((field) => {
    const flag = flagOf(field, resource);
    const value = field.kind === 'boolean' ? ' [true|false]' : ` <${formOf(field)}>`;
    const notes = [field.description, requiredNote(field), field.nullable ? "'null' clears it" : undefined].filter(Boolean);
    // Upstream's short letter (`-a` for role attributes); a yes/no field's goes to its shorthand (`-A`, `--admin`).
    const short = field.kind === 'boolean' ? undefined : shorts.get(field.name);
    // A list option given twice adds to the list (`--identity-roles @a --identity-roles @b`), as the comma does.
    const option = new Option(`${short ? `-${short}, ` : ''}--${flag}${value}`, notes.join('; ')).argParser((text: string, previous: unknown) => {
      const parsed = parseFieldValue(field, text);
      return field.kind === 'string-array' && Array.isArray(previous) && Array.isArray(parsed) ? [...previous, ...parsed] : parsed;
    });
    // Fields such as `noTraversal` are values of their own, not the negation of another option.
    option.negate = false;
    option.attributeName = () => field.name;
    return { field, option };
  });
}

/**
 * Short spellings for yes/no fields named `isX` (`--admin` for `--is-admin`), when no field already uses the
 * shorter name; each stores true under the field's name.
 */
export function shorthandOptions(fields: FieldSpec[]): Option[] {
  const taken = new Set(fields.map((f) => f.flag));
  const shorts = shortFlagsOf(fields);
  return fields
    .filter((f) => f.kind === 'boolean' && f.flag.startsWith('is-') && !taken.has(f.flag.slice(3)) && !RESERVED.has(f.flag.slice(3)))
    .map((f) => {
      const short = shorts.get(f.name);
      const option = new Option(`${short ? `-${short}, ` : ''}--${f.flag.slice(3)}`, `same as --${f.flag} true`);
      option.attributeName = () => f.name;
      return option;
    });
}
