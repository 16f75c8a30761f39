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
      return sql`${column(node.field, context)} in (${sql.join(node.values.map((v) => param(v, context)))})`;
    case 'between':
      return sql`(${ordered(node.field, context)} >= ${param(node.lower, context)} and ${ordered(node.field, context)} < ${param(node.upper, context)})`;
    case 'contains':
      return compileContains(node.field, node.value, node.caseInsensitive, context);
  }
}

function negate(condition: Sql): Sql {
  return sql`(${condition}) is not true`;
}

function compileComparison(field: string, operator: string, value: FilterValue, context: Context): Sql {
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
  const target = caseInsensitive ? sql`lower(${column(field, context)})` : column(field, context);
  const needle = caseInsensitive ? sql`lower(${value})` : sql`${value}`;
  return context.dialect === 'postgres' ? sql`strpos(${target}, ${needle}) > 0` : sql`instr(${target}, ${needle}) > 0`;
}

/** The column of a public field name. */
export function fieldSpec(field: string, fields: FieldMap): FieldSpec {
  if (!Object.hasOwn(fields, field)) throw new Error(`filter field '${field}' is not in the field map`);
  return fields[field] as FieldSpec;
}

function column(field: string, context: Context): Sql {
  return sql.ref(fieldSpec(field, context.fields).column);
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
