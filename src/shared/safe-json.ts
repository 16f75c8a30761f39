/**
 * Strict JSON for request bodies: one linear, non-recursive pass checks the text against the JSON grammar
 * (RFC 8259) and the rules a request body must also follow, and only then is the value built by `JSON.parse`.
 * The extra rules:
 * - nesting at most `maxDepth` arrays/objects deep, so that nothing that walks the value later can run out of stack;
 * - no duplicate member names (RFC 8259 §4 leaves their meaning open; I-JSON, RFC 7493 §2.3, forbids them): a
 *   body that says `"isAdmin": false, "isAdmin": true` is refused instead of silently taking the last;
 * - no member named `__proto__` or `constructor` anywhere (the prototype-pollution vectors, whatever a later merge does);
 * - strings are well-formed Unicode (RFC 7493 §2.1: no unpaired surrogates) and hold no U+0000, which PostgreSQL text
 *   cannot store;
 * - numbers fit a double (RFC 7493 §2.2): `1e400` is refused rather than read as Infinity.
 * Work and memory are linear in the text whatever its shape; a refusal names what is wrong and where.
 */

/** Member names refused anywhere in a body. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

/** Why a text was refused: `message` says what and where; `path` locates it in the value (keys and indices). */
export class JsonTextError extends Error {
  readonly path: ReadonlyArray<string | number>;
  readonly position: number;

  constructor(message: string, path: ReadonlyArray<string | number>, position: number) {
    super(message);
    this.name = 'JsonTextError';
    this.path = path;
    this.position = position;
  }
}

type Frame = { kind: 'object'; keys: Set<string>; key: string | undefined } | { kind: 'array'; index: number };

/** What the scanner expects next. */
type Expect = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'colon' | 'comma-or-end' | 'done';

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Where the scanner is, as path segments for messages; `$` is the whole body. */
function pathOf(stack: readonly Frame[]): Array<string | number> {
  const path: Array<string | number> = [];
  for (const frame of stack) {
    if (frame.kind === 'array') path.push(frame.index);
    else if (frame.key !== undefined) path.push(frame.key);
  }
  return path;
}

/** `$`, `$.tags`, `$.roleAttributes[2]`, with long names shortened so a message stays short. */
export function describeJsonPath(path: ReadonlyArray<string | number>): string {
  let text = '$';
  for (const segment of path) {
    if (text.length > 200) return `${text}…`;
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += /^[A-Za-z_$][\w$]{0,39}$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment.length > 40 ? `${segment.slice(0, 40)}…` : segment)}]`;
  }
  return text;
}

/** A character of the text as a message shows it. */
function describeChar(code: number): string {
  return code >= 0x21 && code <= 0x7e ? `'${String.fromCharCode(code)}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Checks `text` and returns its value; throws JsonTextError naming the first problem. `maxDepth` counts containers:
 * `{}` is depth 1, `{"a": []}` depth 2.
 */
export function parseStrictJson(text: string, options: { maxDepth: number }): unknown {
  scan(text, options.maxDepth);
  try {
    return JSON.parse(text);
  } catch (error) {
    // The scan accepts exactly the JSON grammar, so this is not expected; refuse rather than guess.
    throw new JsonTextError(`not valid JSON (${(error as Error).message.slice(0, 100)})`, [], 0);
  }
}

function scan(text: string, maxDepth: number): void {
  const stack: Frame[] = [];
  const length = text.length;
  let i = 0;
  // Widened: closures (afterValue, close) assign it, which narrowing cannot see.
  let expect = 'value' as Expect;

  const fail = (message: string, at = i): never => {
    throw new JsonTextError(message, pathOf(stack), at);
  };
  const unexpected = (): never =>
    fail(i >= length ? 'the body ends before the JSON value does' : `unexpected ${describeChar(text.charCodeAt(i))} at character ${i + 1}${where()}`);
  const where = () => (stack.length === 0 ? '' : ` (in ${describeJsonPath(pathOf(stack))})`);
  const afterValue = () => {
    expect = stack.length === 0 ? 'done' : 'comma-or-end';
  };

  /** Checks the string starting at the quote at `start`; returns the index after its closing quote. */
  const scanString = (start: number): number => {
    let j = start + 1;
    while (j < length) {
      const c = text.charCodeAt(j);
      if (c === 0x22) return j + 1;
      if (c === 0x5c) {
        const e = text.charCodeAt(j + 1);
        if (e === 0x75) {
          const hex = text.slice(j + 2, j + 6);
          if (!HEX4.test(hex)) fail(`a bad \\u escape at character ${j + 1}${where()}`, j);
          const unit = parseInt(hex, 16);
          if (unit === 0) fail(`a string holds U+0000, which cannot be stored, at character ${j + 1}${where()}`, j);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate must be followed at once by an escaped low one (RFC 7493 §2.1).
            const next = text.slice(j + 6, j + 12);
            const low = /^\\u[0-9a-fA-F]{4}$/.test(next) ? parseInt(next.slice(2), 16) : -1;
            if (low < 0xdc00 || low > 0xdfff) fail(`a string holds an unpaired surrogate at character ${j + 1}${where()}`, j);
            j += 12;
            continue;
          }
          if (unit >= 0xdc00 && unit <= 0xdfff) fail(`a string holds an unpaired surrogate at character ${j + 1}${where()}`, j);
          j += 6;
          continue;
        }
        // " \ / b f n r t
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          j += 2;
          continue;
        }
        fail(`a bad escape at character ${j + 1}${where()}`, j);
      }
      if (c < 0x20) fail(`a string holds the control character ${describeChar(c)} unescaped at character ${j + 1}${where()}`, j);
      if (c >= 0xd800 && c <= 0xdfff) {
        const pair = c <= 0xdbff && j + 1 < length && text.charCodeAt(j + 1) >= 0xdc00 && text.charCodeAt(j + 1) <= 0xdfff;
        if (!pair) fail(`a string holds an unpaired surrogate at character ${j + 1}${where()}`, j);
        j += 2;
        continue;
      }
      j++;
    }
    return fail(`a string that starts at character ${start + 1} is not closed${where()}`, start);
  };

  const open = (frame: Frame) => {
    if (stack.length >= maxDepth) fail(`the body nests deeper than ${maxDepth} levels at ${describeJsonPath(pathOf(stack))}`);
    stack.push(frame);
    i++;
  };
  const close = () => {
    stack.pop();
    i++;
    afterValue();
  };

  for (;;) {
    // Whitespace per RFC 8259 §2: space, tab, line feed, carriage return.
    while (i < length) {
      const w = text.charCodeAt(i);
      if (w !== 0x20 && w !== 0x09 && w !== 0x0a && w !== 0x0d) break;
      i++;
    }
    if (i >= length) {
      if (expect === 'done') return;
      unexpected();
    }
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    switch (expect) {
      case 'done':
        unexpected();
        break;
      case 'value-or-end':
      case 'value': {
        if (expect === 'value-or-end' && c === 0x5d) {
          close();
          break;
        }
        if (c === 0x7b) {
          open({ kind: 'object', keys: new Set(), key: undefined });
          expect = 'key-or-end';
        } else if (c === 0x5b) {
          open({ kind: 'array', index: 0 });
          expect = 'value-or-end';
        } else if (c === 0x22) {
          i = scanString(i);
          afterValue();
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          NUMBER.lastIndex = i;
          const match = NUMBER.exec(text);
          if (!match) unexpected();
          const literal = (match as RegExpExecArray)[0];
          if (!Number.isFinite(Number(literal))) fail(`the number at character ${i + 1}${where()} is too large to represent`);
          i += literal.length;
          afterValue();
        } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
          i += 4;
          afterValue();
        } else if (text.startsWith('false', i)) {
          i += 5;
          afterValue();
        } else {
          unexpected();
        }
        break;
      }
      case 'key-or-end':
      case 'key': {
        if (expect === 'key-or-end' && c === 0x7d) {
          close();
          break;
        }
        if (c !== 0x22) unexpected();
        const end = scanString(i);
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        const frame = top as Extract<Frame, { kind: 'object' }>;
        frame.key = key;
        if (FORBIDDEN_KEYS.has(key)) fail(`the key '${key}' is not accepted (at ${describeJsonPath(pathOf(stack))})`);
        if (frame.keys.has(key)) fail(`duplicate key at ${describeJsonPath(pathOf(stack))}`);
        frame.keys.add(key);
        i = end;
        expect = 'colon';
        break;
      }
      case 'colon':
        if (c !== 0x3a) unexpected();
        i++;
        expect = 'value';
        break;
      case 'comma-or-end': {
        const frame = top as Frame;
        if (c === 0x2c) {
          i++;
          if (frame.kind === 'array') {
            frame.index++;
            expect = 'value';
          } else {
            frame.key = undefined;
            expect = 'key';
          }
        } else if (c === (frame.kind === 'object' ? 0x7d : 0x5d)) {
          close();
        } else {
          unexpected();
        }
        break;
      }
    }
  }
}
