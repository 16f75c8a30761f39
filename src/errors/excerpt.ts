/**
 * Bounded, escaped renderings of what a client sent, for error bodies. Whatever a request held (a 1 MiB string,
 * arrays nested thousands deep, a key full of control characters) and whatever a service put in a cause (a cyclic
 * object), what is echoed is short and printable, and computing it takes bounded time and stack: rendering an error
 * can neither throw nor overflow. A rejected value is echoed as an excerpt of at most 64 characters.
 */

/** Longest excerpt of a rejected value (`cause.value`), ellipsis not counted. */
export const VALUE_EXCERPT_CHARS = 64;
/** Longest message, reason or other cause text, ellipsis not counted. */
export const TEXT_EXCERPT_CHARS = 512;

const ELLIPSIS = '…';
/** Controls, invisible format characters (bidi overrides, zero-width, BOM), line/paragraph separators, lone surrogates. */
const UNSAFE = /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs})$/u;

function escapeCodePoint(ch: string): string {
  let out = '';
  for (let k = 0; k < ch.length; k++) out += `\\u${ch.charCodeAt(k).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with unsafe characters (and the backslash) escaped as `\uXXXX` (`\\`), cut to `max` characters with an
 * ellipsis. Reads at most about `max` characters of `text`, however long it is.
 */
export function printable(text: string, max = TEXT_EXCERPT_CHARS): string {
  let out = '';
  // for-of walks code points, so a cut never splits a surrogate pair; it stops as soon as the budget is spent.
  for (const ch of text) {
    const piece = ch === '\\' ? '\\\\' : UNSAFE.test(ch) ? escapeCodePoint(ch) : ch;
    if (out.length + piece.length > max) return out + ELLIPSIS;
    out += piece;
  }
  return out;
}

/**
 * Compact JSON-like text of `value`, stopping once `budget` characters are written: an explicit stack instead of
 * recursion, so depth and cycles cost nothing beyond the budget.
 */
function boundedJson(value: unknown, budget: number): string {
  let out = '';
  type Item = { text: string } | { value: unknown };
  const stack: Item[] = [{ value }];
  while (stack.length > 0 && out.length <= budget) {
    const item = stack.pop() as Item;
    if ('text' in item) {
      out += item.text;
      continue;
    }
    const v = item.value;
    if (v === null || v === undefined) out += 'null';
    else if (typeof v === 'string') out += JSON.stringify(v.length > budget ? v.slice(0, budget + 1) : v);
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') out += String(v);
    else if (typeof v === 'function' || typeof v === 'symbol') out += `[${typeof v}]`;
    else if (Array.isArray(v)) {
      out += '[';
      const pending: Item[] = [];
      for (let k = 0; k < v.length && pending.length <= budget; k++) {
        if (k > 0) pending.push({ text: ',' });
        pending.push({ value: v[k] });
      }
      pending.push({ text: ']' });
      for (let k = pending.length - 1; k >= 0; k--) stack.push(pending[k] as Item);
    } else {
      out += '{';
      const pending: Item[] = [];
      for (const key in v as object) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        if (pending.length > 0) pending.push({ text: ',' });
        pending.push({ text: `${JSON.stringify(key.length > budget ? key.slice(0, budget + 1) : key)}:` }, { value: (v as Record<string, unknown>)[key] });
        if (pending.length > budget) break;
      }
      pending.push({ text: '}' });
      for (let k = pending.length - 1; k >= 0; k--) stack.push(pending[k] as Item);
    }
  }
  return out;
}

/**
 * What an error body may echo of a rejected value: numbers, booleans and null as they are (non-finite numbers as
 * text), strings as a printable excerpt, anything else as a printable excerpt of its JSON text.
 */
export function excerpt(value: unknown, max = VALUE_EXCERPT_CHARS): string | number | boolean | null | undefined {
  try {
    if (value === undefined || value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
    if (typeof value === 'string') return printable(value, max);
    return printable(boundedJson(value, max + 1), max);
  } catch {
    // A getter or proxy that throws: say so rather than fail the error answer.
    return '[unprintable value]';
  }
}

const MAX_CAUSE_KEYS = 16;
const MAX_CAUSE_ITEMS = 16;
const MAX_CAUSE_DEPTH = 3;

/**
 * A copy of an error cause that is safe to send: at most 16 keys and 16 items per level and 3 levels deep, texts
 * printable and cut to 512 characters, and every `value` an excerpt of at most 64.
 */
export function renderCause(cause: unknown): Record<string, unknown> {
  const rendered = renderNode(cause, 0, undefined);
  return rendered !== null && typeof rendered === 'object' && !Array.isArray(rendered) ? (rendered as Record<string, unknown>) : { value: rendered };
}

function renderNode(node: unknown, depth: number, key: string | undefined): unknown {
  try {
    if (key === 'value') return excerpt(node);
    if (node === null || typeof node === 'boolean') return node;
    if (typeof node === 'number') return Number.isFinite(node) ? node : String(node);
    if (typeof node === 'string') return printable(node);
    if (typeof node !== 'object') return excerpt(node, TEXT_EXCERPT_CHARS);
    if (depth >= MAX_CAUSE_DEPTH) return excerpt(node, TEXT_EXCERPT_CHARS);
    if (Array.isArray(node)) return node.slice(0, MAX_CAUSE_ITEMS).map((item) => renderNode(item, depth + 1, undefined));
    const out: Record<string, unknown> = {};
    let count = 0;
    for (const name in node) {
      if (!Object.prototype.hasOwnProperty.call(node, name)) continue;
      if (count++ >= MAX_CAUSE_KEYS) break;
      const value = renderNode((node as Record<string, unknown>)[name], depth + 1, name);
      // defineProperty: a key named __proto__ stays an ordinary key of the copy.
      if (value !== undefined) Object.defineProperty(out, printable(name, 64), { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } catch {
    return '[unprintable value]';
  }
}
