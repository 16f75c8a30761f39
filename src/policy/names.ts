/**
 * What an entity name or a username may contain, and the key under which usernames are compared
 * (docs/decisions/0016-unambiguous-usernames.md). Pure rules: the services call them and name the field.
 *
 * A name (identity, auth policy, external JWT signer) must not hold characters that change how text around it is
 * shown or split: C0/C1 controls (NUL included), line and paragraph separators, the Unicode bidirectional formatting
 * characters (U+202E can make `report<U+202E>fdp.exe` show as `reportexe.pdf` in a console or a log) and unpaired
 * surrogates (stored differently by each dialect's driver). A username is a login credential, so it must also be
 * unambiguous: no white space at either end, no invisible formatting characters, no unassigned code points (their
 * normalisation may change in a later Unicode version), and it is compared by `usernameKey`. Role attributes follow
 * the username rules too, and must be in NFC (`unambiguousTextProblem`; decision 0059).
 */

/** The username length the spec allows, in UTF-16 code units as the rest of the API counts. */
export const USERNAME_MIN_LENGTH = 4;
export const USERNAME_MAX_LENGTH = 100;

/**
 * C0 controls, DEL, C1 controls, U+2028/U+2029, and the bidirectional marks and embeddings/overrides/isolates
 * (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** With the `u` flag a well-formed pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Format characters (zero-width space and joiners, word joiner, soft hyphen, BOM, tags, ...): invisible in a username. */
const INVISIBLE = /\p{Cf}/u;
const UNASSIGNED = /\p{Cn}/u;
const EDGE_WHITE_SPACE = /^\s|\s$/u;

/**
 * The Unicode names of the characters these rules refuse most often (white space, invisible and bidirectional ones),
 * so that a refusal says what the reader cannot see. Others are named by code point alone: the full name list is a
 * megabyte Node does not carry.
 */
const CHARACTER_NAMES: Record<number, string> = {
  0x00: 'NULL', 0x09: 'CHARACTER TABULATION', 0x0a: 'LINE FEED', 0x0d: 'CARRIAGE RETURN', 0x20: 'SPACE',
  0xa0: 'NO-BREAK SPACE', 0xad: 'SOFT HYPHEN', 0x61c: 'ARABIC LETTER MARK', 0x1680: 'OGHAM SPACE MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR', 0x2002: 'EN SPACE', 0x2003: 'EM SPACE', 0x2009: 'THIN SPACE', 0x200a: 'HAIR SPACE',
  0x200b: 'ZERO WIDTH SPACE', 0x200c: 'ZERO WIDTH NON-JOINER', 0x200d: 'ZERO WIDTH JOINER', 0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK', 0x2028: 'LINE SEPARATOR', 0x2029: 'PARAGRAPH SEPARATOR', 0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING', 0x202c: 'POP DIRECTIONAL FORMATTING', 0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE', 0x202f: 'NARROW NO-BREAK SPACE', 0x205f: 'MEDIUM MATHEMATICAL SPACE', 0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE', 0x2067: 'RIGHT-TO-LEFT ISOLATE', 0x2068: 'FIRST STRONG ISOLATE', 0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3000: 'IDEOGRAPHIC SPACE', 0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE`, or `U+0378` for a character without a name here: how a reason names a character. */
function codePointOf(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const name = CHARACTER_NAMES[code];
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}${name ? ` ${name}` : ''}`;
}

/**
 * The reason text for the first character of `value` that `pattern` matches, with its 1-based position counted from
 * `offset` characters before `value` (the `#` of a role, when `value` is what follows it).
 */
function found(value: string, pattern: RegExp, what: string, offset = 0): string | undefined {
  const match = pattern.exec(value);
  if (!match) return undefined;
  // Positions count code points, as a person reading the name would.
  const position = [...value.slice(0, match.index)].length + 1 + offset;
  return `must not contain ${what} (${codePointOf(match[0])} at character ${position})`;
}

/**
 * What is wrong with an entity name, as a reason to put after the field name, or undefined when it is acceptable.
 * Length and uniqueness are the caller's (each entity has its own limits).
 *
 * @example nameProblem('ops\u202Etxt') // 'must not contain control or bidirectional formatting characters (U+202E at character 4)'
 */
export function nameProblem(value: string): string | undefined {
  return found(value, CONTROL, 'control or bidirectional formatting characters') ?? found(value, LONE_SURROGATE, 'unpaired surrogate code units');
}

/**
 * What is wrong with a username (length, white space at either end, and everything `nameProblem` refuses), or
 * undefined when it is acceptable. Whether it is in use is a question for the store, by `usernameKey`.
 *
 * @example usernameProblem(' alice') // 'must not begin or end with white space'
 */
export function usernameProblem(value: string): string | undefined {
  if (value.length < USERNAME_MIN_LENGTH || value.length > USERNAME_MAX_LENGTH) {
    return `must be ${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} characters (got ${value.length})`;
  }
  if (EDGE_WHITE_SPACE.test(value)) return 'must not begin or end with white space';
  return nameProblem(value) ?? found(value, INVISIBLE, 'invisible formatting characters') ?? found(value, UNASSIGNED, 'unassigned code points');
}

/**
 * Where `value` differs from its NFC form, as a reason, or undefined when it is in NFC (Unicode Standard Annex #15):
 * the characters of the differing stretch and what NFC writes there, e.g. `e` + U+0301 for `é` (U+00E9).
 */
function notNfcProblem(value: string, offset: number): string | undefined {
  const nfc = value.normalize('NFC');
  if (nfc === value) return undefined;
  const given = [...value];
  const normal = [...nfc];
  let start = 0;
  while (given[start] === normal[start]) start++;
  let tail = 0;
  while (tail < Math.min(given.length, normal.length) - start && given[given.length - 1 - tail] === normal[normal.length - 1 - tail]) tail++;
  const codes = (chars: string[]) => chars.map((ch) => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
  const stretch = given.slice(start, given.length - tail);
  const first = start + 1 + offset;
  const where = stretch.length === 1 ? `character ${first}` : `characters ${first} to ${first + stretch.length - 1}`;
  return `must be in Unicode normalisation form NFC: ${where} (${codes(stretch)}) must be sent as ${codes(normal.slice(start, normal.length - tail))}`;
}

/**
 * What is wrong with a text that policies match exactly (a role attribute, the name in a `#attribute` role), or
 * undefined: the username rules but length (white space at either end, controls, bidirectional, invisible and
 * unassigned characters, unpaired surrogates) and, since two spellings of one text would never match each other, any
 * text not in NFC. Positions count from `offset` characters before `value`.
 *
 * @example unambiguousTextProblem('east\u200b') // 'must not contain invisible formatting characters (U+200B ZERO WIDTH SPACE at character 5)'
 */
export function unambiguousTextProblem(value: string, offset = 0): string | undefined {
  const edge = EDGE_WHITE_SPACE.exec(value);
  if (edge) return `must not begin or end with white space (${codePointOf(edge[0])} at character ${[...value.slice(0, edge.index)].length + 1 + offset})`;
  return (
    found(value, CONTROL, 'control or bidirectional formatting characters', offset) ??
    found(value, LONE_SURROGATE, 'unpaired surrogate code units', offset) ??
    found(value, INVISIBLE, 'invisible formatting characters', offset) ??
    found(value, UNASSIGNED, 'unassigned code points', offset) ??
    notNfcProblem(value, offset)
  );
}

/**
 * The key two usernames collide on: NFKC (so the fullwidth `ａｌｉｃｅ` and the ligature `ﬁ` become `alice` and `fi`),
 * then case-folded. JavaScript has no Unicode case folding, so the fold is `toUpperCase()` then `toLowerCase()`: the
 * round trip also folds what lower-casing alone leaves apart (`ß` and `ss`, `ς` and `σ`). Both are locale-independent.
 * The last NFKC recomposes what case mapping may decompose (`İ` lower-cases to `i` plus U+0307), so equal keys mean
 * canonically equal text. Changing this function changes stored keys: it needs a migration that recomputes them.
 *
 * @example usernameKey('ＡＬＩＣＥ') === usernameKey('alice') // true
 */
export function usernameKey(value: string): string {
  return value.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
