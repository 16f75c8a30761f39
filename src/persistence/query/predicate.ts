/**
 * The field conditions of the filter language (`field op value`, `contains`, `in [...]`, `between a and b`,
 * their `not` forms, a bare boolean field) and the type check of every literal against the FieldMap.
 */
import type { ComparisonOperator, FieldSpec, FieldType, FilterExpr, FilterValue } from './ast.js';
import { advance, errorAt, found, isKeyword, isPunct, lookupField, peek, type Cursor } from './cursor.js';
import { normaliseDatetime } from './datetime.js';
import { filterError } from './filter-error.js';
import type { Token } from './lexer.js';

const OPERATOR_LIST = '=, !=, <, <=, >, >=, contains, icontains, in, not in, between, not between';
const ORDERED_TYPES: readonly FieldType[] = ['string', 'number', 'datetime'];
const TYPE_NAMES: Readonly<Record<FieldType | 'null', string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  datetime: 'a datetime',
  stringSet: 'a set of strings',
  tags: 'a set of tags',
  tag: 'a string or a boolean',
  null: 'null',
};
const DATETIME_EXAMPLE = 'RFC 3339, e.g. datetime(2021-01-02T15:04:05Z)';

/** Parses the condition starting at the field name (or `anyOf(`/`allOf(`) under the cursor. */
export function parsePredicate(cursor: Cursor): FilterExpr {
  if (isKeyword(peek(cursor), 'anyof', 'allof') && isPunct(peek(cursor, 1), '(')) return parseSetCondition(cursor);
  const fieldToken = advance(cursor);
  const spec = lookupField(cursor, fieldToken);
  const field = fieldToken.text;
  if (spec.type === 'stringSet') {
    throw errorAt(cursor, fieldToken, `'${field}' is a set of values`, { hint: `write anyOf(${field}) = "x", allOf(${field}) = "x" or isEmpty(${field})` });
  }
  if (spec.type === 'tags') throw errorAt(cursor, fieldToken, `'${field}' holds several tags`, { hint: `name one: ${field}.<key> = "value"` });
  return parseCondition(cursor, field, spec);
}

/**
 * `anyOf(field) <operator> <value>` or `allOf(…)`: the operator applies to each element of a `stringSet` field.
 * The condition's field is the set's name, typed as one element (a string).
 */
function parseSetCondition(cursor: Cursor): FilterExpr {
  const functionToken = advance(cursor);
  const quantifier = functionToken.text.toLowerCase() === 'anyof' ? 'anyOf' : 'allOf';
  const field = setFieldArgument(cursor, functionToken);
  const condition = parseCondition(cursor, field, { column: '', type: 'string' });
  return { kind: 'set', quantifier, field, condition };
}

/** `( field )` after a set function, where the field must be a `stringSet`; returns its name. */
export function setFieldArgument(cursor: Cursor, functionToken: Token): string {
  advance(cursor); // '(' (checked by the caller)
  const fieldToken = peek(cursor);
  if (fieldToken.kind !== 'word') throw errorAt(cursor, fieldToken, `expected a field name in ${functionToken.text}(…)`, { hint: found(fieldToken) });
  const spec = lookupField(cursor, fieldToken);
  if (spec.type !== 'stringSet') {
    throw errorAt(cursor, fieldToken, `${functionToken.text}(…) needs a set field, but '${fieldToken.text}' is ${TYPE_NAMES[spec.type]}`);
  }
  advance(cursor);
  const close = peek(cursor);
  if (!isPunct(close, ')')) throw errorAt(cursor, close, `expected ')' after '${fieldToken.text}'`, { hint: found(close) });
  advance(cursor);
  return fieldToken.text;
}

/** The operator and value(s) after a field (or a set function) whose spec is known. */
function parseCondition(cursor: Cursor, field: string, spec: FieldSpec): FilterExpr {
  const next = peek(cursor);
  if (next.kind === 'operator') return parseComparison(cursor, field, spec);
  if (isKeyword(next, 'contains', 'icontains', 'in', 'between')) return parseKeywordOperator(cursor, field, spec);
  if (isKeyword(next, 'not')) {
    advance(cursor);
    if (!isKeyword(peek(cursor), 'contains', 'icontains', 'in', 'between')) {
      throw errorAt(cursor, peek(cursor), `expected contains, icontains, in or between after 'not'`, {
        hint: found(peek(cursor)),
      });
    }
    return { kind: 'not', operand: parseKeywordOperator(cursor, field, spec) };
  }
  // A boolean field alone means `field = true`, as in ZitiQL (`isAdmin and not disabled`).
  if (spec.type === 'boolean' && endsCondition(next)) return { kind: 'compare', field, operator: '=', value: true };
  const reason = next.kind === 'word' ? `unknown operator '${next.text}'` : `expected an operator after '${field}'`;
  throw errorAt(cursor, next, reason, { hint: `operators: ${OPERATOR_LIST}` });
}

function endsCondition(token: Token): boolean {
  return token.kind === 'end' || isPunct(token, ')') || isKeyword(token, 'and', 'or', 'sort', 'skip', 'limit');
}

function parseComparison(cursor: Cursor, field: string, spec: FieldSpec): FilterExpr {
  const operatorToken = advance(cursor);
  const operator = operatorToken.text as ComparisonOperator;
  const valueToken = peek(cursor);
  if (isKeyword(valueToken, 'null')) {
    if (operator !== '=' && operator !== '!=') {
      throw errorAt(cursor, valueToken, `null can only be compared with = or !=, not '${operator}'`);
    }
    advance(cursor);
    const isNull: FilterExpr = { kind: 'isNull', field };
    return operator === '=' ? isNull : { kind: 'not', operand: isNull };
  }
  if (operator !== '=' && operator !== '!=') requireOrdered(cursor, operatorToken, field, spec);
  const value = parseValue(cursor, field, spec, operatorToken);
  return { kind: 'compare', field, operator, value };
}

/** `contains`, `icontains`, `in` or `between` under the cursor (any `not` already consumed). */
function parseKeywordOperator(cursor: Cursor, field: string, spec: FieldSpec): FilterExpr {
  const operatorToken = advance(cursor);
  const keyword = operatorToken.text.toLowerCase();
  if (keyword === 'in') return { kind: 'in', field, values: parseList(cursor, field, spec, operatorToken) };
  if (keyword === 'between') {
    requireOrdered(cursor, operatorToken, field, spec);
    const lower = parseValue(cursor, field, spec, operatorToken);
    const andToken = peek(cursor);
    if (!isKeyword(andToken, 'and')) {
      throw errorAt(cursor, andToken, `expected 'and' between the bounds of 'between'`, { hint: found(andToken) });
    }
    advance(cursor);
    return { kind: 'between', field, lower, upper: parseValue(cursor, field, spec, andToken) };
  }
  if (spec.type !== 'string' && spec.type !== 'tag') {
    throw errorAt(cursor, operatorToken, `'${keyword}' needs a string field, but '${field}' is ${TYPE_NAMES[spec.type]}`);
  }
  const value = parseValue(cursor, field, spec, operatorToken) as string;
  return { kind: 'contains', field, value, caseInsensitive: keyword === 'icontains' };
}

function requireOrdered(cursor: Cursor, operatorToken: Token, field: string, spec: FieldSpec): void {
  if (ORDERED_TYPES.includes(spec.type)) return;
  throw errorAt(cursor, operatorToken, `'${operatorToken.text}' cannot be used on ${spec.type} field '${field}'`, {
    hint: `a ${spec.type} field takes = or !=`,
  });
}

/** `[v, ...]`: a non-empty list of values of the field's type. */
function parseList(cursor: Cursor, field: string, spec: FieldSpec, operatorToken: Token): FilterValue[] {
  const open = peek(cursor);
  if (!isPunct(open, '[')) {
    throw errorAt(cursor, open, `expected '[' after '${operatorToken.text}'`, { hint: found(open) });
  }
  advance(cursor);
  if (isPunct(peek(cursor), ']')) throw errorAt(cursor, open, `the list after '${operatorToken.text}' must not be empty`);
  const values: FilterValue[] = [];
  let previous = open;
  for (;;) {
    values.push(parseValue(cursor, field, spec, previous));
    const separator = peek(cursor);
    if (isPunct(separator, ']')) break;
    if (!isPunct(separator, ',')) {
      throw errorAt(cursor, separator, `expected ',' or ']'`, {
        hint: `in the list opened at column ${open.offset + 1}; ${found(separator)}`,
      });
    }
    previous = advance(cursor);
  }
  advance(cursor);
  return values;
}

/** One literal, checked against the field's type; `after` is the token it follows, for messages. */
function parseValue(cursor: Cursor, field: string, spec: FieldSpec, after: Token): FilterValue {
  const token = peek(cursor);
  const type = literalType(token);
  if (type === undefined) {
    throw errorAt(cursor, token, `expected a value after '${after.text}'`, { hint: found(token) });
  }
  if (type === 'null') throw errorAt(cursor, token, `null can only be used with = and !=`);
  const value = convert(cursor, token, spec.type, type);
  if (value === undefined) {
    throw errorAt(cursor, token, `field '${field}' expects ${TYPE_NAMES[spec.type]}, found ${TYPE_NAMES[type]}`, {
      hint: spec.type === 'datetime' ? DATETIME_EXAMPLE : undefined,
    });
  }
  advance(cursor);
  return value;
}

function literalType(token: Token): FieldType | 'null' | undefined {
  if (token.kind === 'string' || token.kind === 'number' || token.kind === 'datetime') return token.kind;
  if (isKeyword(token, 'true', 'false')) return 'boolean';
  if (isKeyword(token, 'null')) return 'null';
  return undefined;
}

/** The literal as a value of `fieldType`, undefined when the types do not fit; a bad date-time throws. */
function convert(cursor: Cursor, token: Token, fieldType: FieldType, literal: FieldType): FilterValue | undefined {
  if (token.kind === 'datetime' || (token.kind === 'string' && fieldType === 'datetime')) {
    if (fieldType !== 'datetime') return undefined;
    const normalised = normaliseDatetime(token.value);
    if (normalised !== undefined) return normalised;
    // Point at the date itself, not at `datetime(`, since that is what needs fixing.
    const offset = token.kind === 'datetime' ? token.valueOffset : token.offset;
    throw filterError({ text: cursor.text, offset }, `invalid datetime '${token.value}'`, { hint: DATETIME_EXAMPLE });
  }
  // A tag's value is a string or a boolean (spec: tags); the literal says which is meant.
  const fits = literal === fieldType || (fieldType === 'tag' && (literal === 'string' || literal === 'boolean'));
  if (!fits) return undefined;
  if (token.kind === 'string' || token.kind === 'number') return token.value;
  return token.text.toLowerCase() === 'true';
}
