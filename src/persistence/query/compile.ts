/**
 * Turns a checked filter tree into a Kysely boolean expression for SQLite or PostgreSQL. Every value is a
 * bound parameter and every identifier comes from the FieldMap, so filter text never becomes SQL text.
 *
 * Negation is two-valued: `not P` is compiled as `(P) is not true`, so a row whose column is NULL is outside
 * `field = v` and inside `not (field = v)` and `field != v`, as a client reading the filter would expect
 * (plain SQL `not` would drop the row from both).
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../database.js';
import type { FieldMap, FieldSpec, FilterExpr, FilterValue } from './ast.js';
import { resolveField } from './fields.js';

type Sql = RawBuilder<unknown>;

interface Context {
  fields: FieldMap;
  dialect: DialectName;
}

// PostgreSQL infers an untyped parameter's type from the column it meets, so `int_col < $1` with '2.5' fails
// to parse as integer; such numbers are sent as double precision instead. Small integers stay untyped so an
// index on an integer column can still be used.
const INT32_MAX = 2 ** 31 - 1;

/** The WHERE condition for `expr` on `dialect`; fields must be keys of `fields` (the parser checks this). */
export function compileFilter(expr: FilterExpr, fields: FieldMap, dialect: DialectName): Expression<SqlBool> {
  return compileNode(expr, { fields, dialect }) as RawBuilder<SqlBool>;
}

function compileNode(node: FilterExpr, context: Context): Sql {
  switch (node.kind) {
    case 'and':
    case 'or':
      return sql`(${sql.join(
        node.operands.map((operand) => compileNode(operand, context)),
        node.kind === 'and' ? sql` and ` : sql` or `,
      )})`;
    case 'not':
      // `is null` is never NULL itself, so its negation needs no `is not true` (and can use an index).
      if (node.operand.kind === 'isNull') return sql`${column(node.operand.field, context)} is not null`;
      return negate(compileNode(node.operand, context));
    case 'constant':
      return node.value ? sql`1 = 1` : sql`1 = 0`;
    case 'isNull':
      return sql`${column(node.field, context)} is null`;
    case 'compare':
      return compileComparison(node.field, node.operator, node.value, context);
    case 'in':
      // A tag's values may be strings and booleans at once: one equality each, since each reads the tag its own way.
      if (fieldSpec(node.field, context.fields).type === 'tag') {
        return sql`(${sql.join(
          node.values.map((value) => compileComparison(node.field, '=', value, context)),
          sql` or `,
        )})`;
      }
      return sql`${column(node.field, context)} in (${sql.join(node.values.map((v) => param(v, context)))})`;
    case 'set':
      return compileSet(node.quantifier, node.field, node.condition, context);
    case 'isEmpty': {
      const set = sql.ref(fieldSpec(node.field, context.fields).column);
      return context.dialect === 'postgres' ? sql`jsonb_array_length(cast(${set} as jsonb)) = 0` : sql`json_array_length(${set}) = 0`;
    }
    case 'between':
      return sql`(${ordered(node.field, context)} >= ${param(node.lower, context)} and ${ordered(node.field, context)} < ${param(node.upper, context)})`;
    case 'contains':
      return compileContains(node.field, node.value, node.caseInsensitive, context);
  }
}

function negate(condition: Sql): Sql {
  return sql`(${condition}) is not true`;
}

// The element of a set function's subquery; no list table has a column of this name.
const ELEMENT = 'svc_element';

/**
 * `anyOf(set) <condition>`: some element of the JSON array meets it; `allOf`: no element fails it (so an empty set
 * passes, as "every" does). The condition reads the element where it names the set.
 */
function compileSet(quantifier: 'anyOf' | 'allOf', field: string, condition: FilterExpr, context: Context): Sql {
  const set = sql.ref(fieldSpec(field, context.fields).column);
  const inner: Context = { ...context, fields: { ...context.fields, [field]: { column: `${ELEMENT}.value`, type: 'string' } } };
  const test = compileNode(condition, inner);
  const elements =
    context.dialect === 'postgres' ? sql`jsonb_array_elements_text(cast(${set} as jsonb)) as ${sql.raw(ELEMENT)}(value)` : sql`json_each(${set}) as ${sql.raw(ELEMENT)}`;
  return quantifier === 'anyOf' ? sql`exists (select 1 from ${elements} where ${test})` : sql`not exists (select 1 from ${elements} where (${test}) is not true)`;
}

/**
 * One tag's value read as `value`'s type (text for a string, 1/0 or true/false for a boolean), NULL when the tag is
 * missing or of the other type; without a value (`= null`), whatever it holds. The key is always a bound parameter.
 */
function tagValue(spec: FieldSpec, value: FilterValue | undefined, context: Context): Sql {
  const tags = sql.ref(spec.column);
  const key = spec.key ?? '';
  if (context.dialect === 'postgres') {
    const json = sql`cast(${tags} as jsonb)`;
    const member = sql`${json} -> cast(${key} as text)`;
    const text = sql`${json} ->> cast(${key} as text)`;
    if (value === undefined) return text;
    if (typeof value === 'boolean') return sql`(case when jsonb_typeof(${member}) = 'boolean' then cast(${text} as boolean) end)`;
    return sql`(case when jsonb_typeof(${member}) = 'string' then ${text} end)`;
  }
  // SQLite JSON path: the key quoted, so that any character it may hold is a plain key character.
  const path = `$."${key}"`;
  if (value === undefined) return sql`json_extract(${tags}, ${path})`;
  if (typeof value === 'boolean') return sql`(case json_type(${tags}, ${path}) when 'true' then 1 when 'false' then 0 end)`;
  return sql`(case when json_type(${tags}, ${path}) = 'text' then json_extract(${tags}, ${path}) end)`;
}

function compileComparison(field: string, operator: string, value: FilterValue, context: Context): Sql {
  const spec = fieldSpec(field, context.fields);
  if (spec.type === 'tag') {
    const equal = sql`${tagValue(spec, value, context)} = ${param(value, context)}`;
    if (operator === '=') return equal;
    if (operator === '!=') return negate(equal);
    throw new Error(`not an operator for a tag: ${operator}`);
  }
  if (operator === '=') return sql`${column(field, context)} = ${param(value, context)}`;
  if (operator === '!=') return negate(sql`${column(field, context)} = ${param(value, context)}`);
  return sql`${ordered(field, context)} ${sql.raw(rangeOperator(operator))} ${param(value, context)}`;
}

/** Only the four fixed range operators reach sql.raw; anything else is a bug, not input. */
function rangeOperator(operator: string): string {
  if (operator === '<' || operator === '<=' || operator === '>' || operator === '>=') return operator;
  throw new Error(`not a range operator: ${operator}`);
}

// SQLite's LIKE ignores ASCII case, so substring tests use instr/strpos, which never do.
function compileContains(field: string, value: string, caseInsensitive: boolean, context: Context): Sql {
  const spec = fieldSpec(field, context.fields);
  const text = spec.type === 'tag' ? tagValue(spec, value, context) : column(field, context);
  const target = caseInsensitive ? sql`lower(${text})` : text;
  const needle = caseInsensitive ? sql`lower(${value})` : sql`${value}`;
  return context.dialect === 'postgres' ? sql`strpos(${target}, ${needle}) > 0` : sql`instr(${target}, ${needle}) > 0`;
}

/** The spec of a public field name (a key of the map, or `tags.<key>`: fields.ts). */
export function fieldSpec(field: string, fields: FieldMap): FieldSpec {
  const spec = resolveField(fields, field);
  if (spec === undefined) throw new Error(`filter field '${field}' is not in the field map`);
  return spec;
}

/** The column of a field, or for a tag its value whatever its type (`tags.x = null`). */
function column(field: string, context: Context): Sql {
  const spec = fieldSpec(field, context.fields);
  return spec.type === 'tag' ? tagValue(spec, undefined, context) : sql.ref(spec.column);
}

/**
 * The column as it takes part in ordering (`<`, `between`, `order by`): text compares byte-wise on both
 * dialects, because PostgreSQL would otherwise use the database locale and order differently from SQLite.
 */
export function orderedColumn(spec: FieldSpec, dialect: DialectName): Sql {
  const ref = sql.ref(spec.column);
  const isText = spec.type === 'string' || spec.type === 'datetime';
  return dialect === 'postgres' && isText ? sql`${ref} collate "C"` : ref;
}

function ordered(field: string, context: Context): Sql {
  return orderedColumn(fieldSpec(field, context.fields), context.dialect);
}

/** A bound parameter; booleans stay booleans (the SQLite plugin binds them as 1/0). */
function param(value: FilterValue, context: Context): Sql {
  const needsCast = typeof value === 'number' && !(Number.isInteger(value) && Math.abs(value) <= INT32_MAX);
  if (context.dialect === 'postgres' && needsCast) return sql`cast(${value} as double precision)`;
  return sql`${value}`;
}
