/**
 * `${NAME}` references in configuration values: replacing them from a table of variables, with `$${` standing for a
 * literal `${`. Pure; used by the YAML reader (yaml-source.ts) on every string value.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Substituted {
  /** The text with every resolvable reference replaced and every `$${` written as `${`. */
  readonly text: string;
  /** One sentence per reference that is malformed or names an unset variable (those are left as written). */
  readonly problems: string[];
}

/**
 * Replaces `${NAME}` references in `text` from `variables`. A reference runs from `${` to the next `}`; what lies
 * between must be a name (letters, digits, `_`, not starting with a digit). A `${` with no `}` after it is plain text.
 *
 * A scanner rather than a regular expression, so that the time is linear in the text: a pattern like
 * `\$\{([^}]*)\}` searched the rest of the text for a `}` from every `${`, which took seconds on a long value made
 * of `${` alone. Here each search for a `}` starts past the previous one, and once none is found, none is sought again.
 *
 * @example substituteReferences('https://${HOST}:$${PORT}', { HOST: 'ctrl' }) // { text: 'https://ctrl:${PORT}', problems: [] }
 */
export function substituteReferences(text: string, variables: Readonly<Record<string, string | undefined>>): Substituted {
  const problems: string[] = [];
  let out = '';
  let copied = 0;
  // The first `}` at or after the last search start, or -1 once the text is known to hold no more.
  let close = text.indexOf('}');
  for (let dollar = text.indexOf('$'); dollar >= 0; dollar = text.indexOf('$', dollar)) {
    if (text.startsWith('$${', dollar)) {
      out += `${text.slice(copied, dollar)}\${`;
      dollar += 3;
      copied = dollar;
      continue;
    }
    if (!text.startsWith('${', dollar) || close < 0) {
      dollar += 1;
      continue;
    }
    if (close < dollar + 2) close = text.indexOf('}', dollar + 2);
    if (close < 0) {
      dollar += 1;
      continue;
    }
    const whole = text.slice(dollar, close + 1);
    const name = text.slice(dollar + 2, close);
    out += text.slice(copied, dollar) + resolve(whole, name, variables, problems);
    dollar = close + 1;
    copied = dollar;
  }
  return { text: copied === 0 ? text : out + text.slice(copied), problems };
}

/** The value of one reference, or the reference as written after recording why it cannot be resolved. */
function resolve(whole: string, name: string, variables: Readonly<Record<string, string | undefined>>, problems: string[]): string {
  if (!NAME.test(name)) problems.push(`'${whole}' is not a valid variable reference`);
  else if (!Object.hasOwn(variables, name) || variables[name] === undefined) problems.push(`environment variable '${name}' is not set`);
  else return variables[name] as string;
  return whole;
}
