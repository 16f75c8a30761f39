/**
 * What an entity name or a username may contain, and the key under which usernames are compared
 * (docs/decisions/0016-unambiguous-usernames.md). Pure rules: the services call them and name the field.
 *
 * A name (identity, auth policy, external JWT signer) must not hold characters that change how text around it is
 * shown or split: C0/C1 controls (NUL included), line and paragraph separators, the Unicode bidirectional formatting
 * characters (U+202E can make `report<U+202E>fdp.exe` show as `reportexe.pdf` in a console or a log) and unpaired
 * surrogates (stored differently by each dialect's driver). A username is a login credential, so it must also be
 * unambiguous: no white space at either end, no invisible formatting characters, no unassigned code points (their
 * normalisation may change in a later Unicode version), and it is compared by `usernameKey`.
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

/** `U+202E`: how a reason names a character. */
function codePointOf(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The reason text for the first character of `value` that `pattern` matches, with its 1-based position. */
function found(value: string, pattern: RegExp, what: string): string | undefined {
  const match = pattern.exec(value);
  if (!match) return undefined;
  // Positions count code points, as a person reading the name would.
  const position = [...value.slice(0, match.index)].length + 1;
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
