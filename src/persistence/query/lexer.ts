/**
 * Splits a filter into tokens, each with its 0-based offset so the parser can say where a problem is.
 * Lexical errors (unterminated strings, bad escapes, stray characters, unknown operators) are thrown here.
 */
import { filterError } from './filter-error.js';

export type Token =
  /** An identifier or a keyword; keywords are recognised by the parser, case-insensitively. */
  | { kind: 'word'; text: string; offset: number }
  | { kind: 'string'; text: string; value: string; offset: number }
  | { kind: 'number'; text: string; value: number; offset: number }
  /** `datetime(...)`: `value` is the text between the parentheses, `valueOffset` where it starts. */
  | { kind: 'datetime'; text: string; value: string; valueOffset: number; offset: number }
  | { kind: 'operator'; text: '=' | '!=' | '<' | '<=' | '>' | '>='; offset: number }
  | { kind: 'punct'; text: '(' | ')' | '[' | ']' | ','; offset: number }
  /** Always the last token; `text` is empty and `offset` is the filter's length. */
  | { kind: 'end'; text: ''; offset: number };

const OPERATORS = new Set(['=', '!=', '<', '<=', '>', '>=']);
const OPERATOR_CHARS = /[=!<>]/;
const PUNCTUATION = new Set(['(', ')', '[', ']', ',']);
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', r: '\r', t: '\t', f: '\f' };
// Segments after a dot may hold `-` too, as tag keys do (`tags.service-id`).
const WORD = /[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /\s/;

/** Tokenizes the whole filter, ending with an `end` token. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  while (offset < text.length) {
    const char = text[offset] as string;
    if (WHITESPACE.test(char)) {
      offset++;
      continue;
    }
    const token = readToken(text, offset, char);
    tokens.push(token);
    offset = token.offset + token.text.length;
  }
  tokens.push({ kind: 'end', text: '', offset: text.length });
  return tokens;
}

function readToken(text: string, offset: number, char: string): Token {
  if (char === '"') return readString(text, offset);
  if (/\d/.test(char) || (char === '-' && /\d/.test(text[offset + 1] ?? ''))) return readNumber(text, offset);
  if (/[A-Za-z]/.test(char)) return readWord(text, offset);
  if (PUNCTUATION.has(char)) return { kind: 'punct', text: char as '(' | ')' | '[' | ']' | ',', offset };
  if (OPERATOR_CHARS.test(char)) return readOperator(text, offset);
  throw filterError({ text, offset }, `unexpected character '${char}'`);
}

function readString(text: string, start: number): Token {
  let value = '';
  let offset = start + 1;
  while (offset < text.length) {
    const char = text[offset] as string;
    if (char === '"') return { kind: 'string', text: text.slice(start, offset + 1), value, offset: start };
    if (char === '\\') {
      const escaped = ESCAPES[text[offset + 1] ?? ''];
      if (escaped === undefined) {
        throw filterError({ text, offset }, `unknown escape '\\${text[offset + 1] ?? ''}' in a string`, {
          hint: 'known escapes: \\" \\\\ \\n \\r \\t \\f',
        });
      }
      value += escaped;
      offset += 2;
      continue;
    }
    value += char;
    offset++;
  }
  throw filterError({ text, offset: start }, 'unterminated string starting', { hint: 'a string ends with "' });
}

function readNumber(text: string, offset: number): Token {
  NUMBER.lastIndex = offset;
  const raw = NUMBER.exec(text)?.[0] ?? '';
  // `12abc` or `1.2.3` is one mistyped word, not a number followed by something else.
  const glued = /^[A-Za-z0-9_.]*/.exec(text.slice(offset + raw.length))?.[0] ?? '';
  if (glued !== '') throw filterError({ text, offset }, `malformed number '${raw}${glued}'`);
  const value = Number(raw);
  if (!Number.isFinite(value)) throw filterError({ text, offset }, `number '${raw}' is out of range`);
  return { kind: 'number', text: raw, value, offset };
}

function readWord(text: string, offset: number): Token {
  WORD.lastIndex = offset;
  const word = WORD.exec(text)?.[0] ?? '';
  const next = text[offset + word.length];
  if (next === '.') throw filterError({ text, offset: offset + word.length }, `expected a name after '.' in '${word}.'`);
  if (word.toLowerCase() === 'datetime') {
    const open = skipWhitespace(text, offset + word.length);
    if (text[open] === '(') return readDatetime(text, offset, open);
  }
  return { kind: 'word', text: word, offset };
}

/** `datetime(...)`: the inside is kept raw; the parser validates it as RFC 3339. */
function readDatetime(text: string, start: number, open: number): Token {
  const close = text.indexOf(')', open);
  if (close < 0) throw filterError({ text, offset: start }, "unterminated 'datetime(' (missing ')')");
  const inner = text.slice(open + 1, close);
  const leading = inner.length - inner.trimStart().length;
  return {
    kind: 'datetime',
    text: text.slice(start, close + 1),
    value: inner.trim(),
    valueOffset: open + 1 + leading,
    offset: start,
  };
}

function readOperator(text: string, offset: number): Token {
  let end = offset;
  while (end < text.length && OPERATOR_CHARS.test(text[end] as string)) end++;
  const run = text.slice(offset, end);
  // The longest run of operator characters must be one operator, so `==` or `<>` is reported as such.
  if (!OPERATORS.has(run)) {
    throw filterError({ text, offset }, `unknown operator '${run}'`, { hint: 'operators: =, !=, <, <=, >, >=' });
  }
  return { kind: 'operator', text: run as '=' | '!=' | '<' | '<=' | '>' | '>=', offset };
}

function skipWhitespace(text: string, offset: number): number {
  let index = offset;
  while (index < text.length && WHITESPACE.test(text[index] as string)) index++;
  return index;
}
