/**
 * What an operator who knows upstream's `ziti edge` commands types, understood by `svc edge` (decision 0073):
 * enum values in any case (`dial` for Dial, `any` for AnyOf), upstream's short options (`-a` for role attributes),
 * upstream's short resource names (`sp`, `erp`), the type before the name (`create identity user bob`), and for the
 * options svc does not have, a sentence saying what to type instead. Nothing here talks to a controller.
 */
import type { Command } from 'commander';
import type { FieldSpec } from './catalogue.js';

/** The first word of a value spelled in words (`Any` of `AnyOf`), when it has two letters or more. */
function firstWord(choice: string): string | undefined {
  const word = /^.[a-z0-9]+/.exec(choice)?.[0];
  return word !== undefined && word !== choice ? word : undefined;
}

/**
 * The value of `choices` that `text` means: the same in any case (`dial`, `ANYOF`), or the first word of a value in
 * words (`any` for AnyOf) when no other value has that first word. Undefined when it means none, or more than one.
 */
export function choiceOf(choices: readonly string[], text: string): string | undefined {
  if (choices.includes(text)) return text;
  const lower = text.toLowerCase();
  const folded = choices.filter((c) => c.toLowerCase() === lower);
  if (folded.length > 0) return folded.length === 1 ? folded[0] : undefined;
  const byWord = choices.filter((c) => firstWord(c)?.toLowerCase() === lower);
  return byWord.length === 1 ? byWord[0] : undefined;
}

/**
 * Upstream's short options, by the API field they set, in the order they are given out: where upstream gives one
 * letter to two fields of the same resource (`-t`: tags, but an edge router's tunneler flag), the first wins.
 */
const SHORT_FLAGS: ReadonlyArray<readonly [field: string, letter: string]> = [
  ['roleAttributes', 'a'],
  ['isAdmin', 'A'],
  ['name', 'n'],
  ['configs', 'c'],
  ['defaultHostingCost', 'c'],
  ['defaultHostingPrecedence', 'p'],
  ['postureCheckRoles', 'p'],
  ['authPolicyId', 'P'],
  ['externalId', 'x'],
  ['isTunnelerEnabled', 't'],
  ['macAddresses', 'm'],
  ['domains', 'd'],
  ['data', 'd'],
  ['tags', 't'],
];

/** Letters the commands use themselves: help, the output file, JSON output. */
const TAKEN = new Set(['h', 'o', 'j']);

/** The short letter of each field of `fields` that upstream gives one, by field name. */
export function shortFlagsOf(fields: readonly FieldSpec[]): Map<string, string> {
  const names = new Set(fields.map((f) => f.name));
  const used = new Set(TAKEN);
  const letters = new Map<string, string>();
  for (const [field, letter] of SHORT_FLAGS) {
    if (!names.has(field) || used.has(letter) || letters.has(field)) continue;
    letters.set(field, letter);
    used.add(letter);
  }
  return letters;
}

/** Upstream's short names of resources (`ziti edge create sp`, `list erps`), as aliases beside the plural. */
const RESOURCE_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'edge-router': ['er', 'ers'],
  'edge-router-policy': ['erp', 'erps'],
  'service-edge-router-policy': ['serp', 'serps'],
  'service-policy': ['sp', 'sps'],
};

export function resourceAliases(singular: string): readonly string[] {
  return RESOURCE_ALIASES[singular] ?? [];
}

/**
 * The positionals of a create in the API's order (NAME, then TYPE): upstream's type-first `identity user bob` and
 * `posture-check mac NAME` are turned round when the first word is a value of TYPE and the second is not.
 */
export function namesFirst(type: FieldSpec | undefined, values: readonly string[]): string[] {
  const [first, second, ...rest] = values;
  if (!type?.choices || first === undefined || second === undefined) return [...values];
  const typeFirst = choiceOf(type.choices, first) !== undefined && choiceOf(type.choices, second) === undefined;
  return typeFirst ? [second, first, ...rest] : [...values];
}

/** Upstream options svc spells otherwise or does without, and what to type instead. */
const INSTEAD: Readonly<Record<string, string>> = {
  '--csv': 'svc edge list prints a table, or JSON with -j; it has no CSV output',
  '-i': 'svc edge keeps one login: run svc edge login URL again to use another (or another XDG_CONFIG_HOME)',
  '--cli-identity': 'svc edge keeps one login: run svc edge login URL again to use another (or another XDG_CONFIG_HOME)',
  '-f': 'give JSON from a file with @FILE: --data @FILE for the whole body, --config-data @FILE for a config',
  '--json-file': 'give JSON from a file with @FILE: --data @FILE for the whole body, --config-data @FILE for a config',
  '-e': 'end-to-end encryption is --encryption-required true|false',
  '--encryption': 'end-to-end encryption is --encryption-required true|false',
  '--auth-policy': 'the auth policy is --auth-policy-id (or -P), by id or name',
  '--tags-json': '--tags takes JSON itself (or key=value pairs)',
  '--app-data-json': '--app-data takes JSON itself (or key=value pairs)',
  '--output-request-json': 'svc edge does not print requests; -j prints the result as JSON',
  '--verbose': 'svc edge does not print requests; -j prints the result as JSON',
  '--timeout': 'svc edge waits for the controller as long as the connection lives; stop it with Ctrl-C',
};

/** The options of `command`, as commander lists them in its help. */
function visibleOptions(command: Command): Array<{ short?: string; long?: string }> {
  return command.createHelp().visibleOptions(command);
}

/**
 * What to say about the unknown option `flag` on `command`, or undefined to leave it to commander (a long option
 * then gets commander's own did-you-mean). A short option gets the options it most likely stands for: those whose
 * long name starts with its letter, and for `-name` the long `--name`; failing that, the command's short options.
 */
export function unknownOptionAdvice(command: Command, flag: string): string | undefined {
  const instead = INSTEAD[flag];
  if (instead) return `error: unknown option '${flag}': ${instead}`;
  if (flag.startsWith('--') || !flag.startsWith('-')) return undefined;
  const options = visibleOptions(command);
  const spell = (o: { short?: string; long?: string }) => [o.short, o.long].filter(Boolean).join(', ');
  const word = flag.slice(1).toLowerCase();
  const sameWord = options.filter((o) => o.long?.toLowerCase() === `--${word}`);
  const sameLetter = options.filter((o) => o.long?.toLowerCase().startsWith(`--${word[0]}`) && !sameWord.includes(o));
  const candidates = [...sameWord, ...sameLetter];
  if (candidates.length > 0) return `error: unknown option '${flag}'\n(Did you mean ${candidates.map(spell).join(' or ')}?)`;
  const shorts = options.filter((o) => o.short).map((o) => o.short);
  return `error: unknown option '${flag}'\n(This command's short options: ${shorts.join(', ')}; see --help for the long ones)`;
}

/** Gives every command under `root` the advice above for unknown options. */
export function adviseOnUnknownOptions(root: Command): void {
  // commander leaves the refusal of an unknown option to this method, which it documents only in its source.
  const target = root as unknown as { unknownOption(flag: string): void; _allowUnknownOption?: boolean };
  const own = target.unknownOption.bind(root);
  target.unknownOption = (flag: string) => {
    if (target._allowUnknownOption) return;
    const advice = unknownOptionAdvice(root, flag);
    if (advice === undefined) own(flag);
    else root.error(advice, { code: 'commander.unknownOption' });
  };
  for (const sub of root.commands) adviseOnUnknownOptions(sub);
}
