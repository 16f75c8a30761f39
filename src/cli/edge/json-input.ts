/**
 * JSON typed on the command line or kept in a file: `--data` and the object options take it inline, from a file
 * (`@FILE`, as curl's --data does) or from stdin (`-`). Broken JSON is refused naming where it is broken (line,
 * column and the path in the value), with the strict checks the HTTP API applies to the same body.
 */
import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { JsonTextError, parseStrictJson } from '../../shared/safe-json.js';

/** As deep as the API's bodies may nest (http/kit/json-body.ts): deeper would be refused there anyway. */
const MAX_DEPTH = 32;

/** Why JSON input was refused; `unreadable` when it was a file (or stdin) that could not be read at all. */
export class JsonInputError extends Error {
  constructor(
    message: string,
    readonly unreadable = false,
  ) {
    super(message);
    this.name = 'JsonInputError';
  }
}

/** Line and column (both 1-based) of the character at `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

/** `text` as a JSON object; `where` names it in a refusal (`'{"a":}'`, `file cfg.json`). */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseStrictJson(text, { maxDepth: MAX_DEPTH });
  } catch (error) {
    if (!(error instanceof JsonTextError)) throw error;
    const { line, column } = lineAndColumn(text, error.position);
    throw new JsonInputError(`${where} is not valid JSON at line ${line}, column ${column}: ${error.message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new JsonInputError(`${where} must hold a JSON object ({…}), not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** True when `text` is meant as inline JSON rather than a file name or key=value pairs. */
export function looksLikeJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

/** The text of a file. */
function readSource(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new JsonInputError(`cannot read '${file}' (${reason})`, true);
  }
}

/**
 * The JSON object `spec` gives: inline JSON, `@FILE`, or (`bareFile`, as --data always took) a file named without
 * the `@`. Stdin (`-`) is readDataObject's.
 */
export function readJsonObject(spec: string, options: { bareFile: boolean }): Record<string, unknown> {
  if (looksLikeJson(spec)) return parseJsonObject(spec, 'the inline JSON');
  const file = spec.startsWith('@') ? spec.slice(1) : options.bareFile ? spec : undefined;
  if (file === undefined) throw new JsonInputError(`'${spec}' is neither JSON nor @FILE`);
  return parseJsonObject(readSource(file), `file '${file}'`);
}

/** All of stdin, read through process.stdin (what a command's input is, also when the CLI runs inside a test). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object of `--data`: as readJsonObject with a bare file allowed, and `-` read from stdin. */
export async function readDataObject(spec: string): Promise<Record<string, unknown>> {
  if (spec === '-') return parseJsonObject(await readStdin(), 'stdin');
  return readJsonObject(spec, { bareFile: true });
}

/** The `--data` option of the commands that send a body. */
export function dataOption(): Option {
  return new Option('--data <json|@file|->', 'the fields as one JSON object: inline, @FILE (a bare FILE too) or - for stdin; options override it');
}
