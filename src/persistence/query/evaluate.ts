/**
 * The list-query language over a fixed, in-memory list (e.g. the identity types): the same parsed filter, sort and
 * page as a stored list, evaluated in JavaScript with the SQL meaning compile.ts gives it (a comparison with a
 * missing value is unknown, and `not P` holds when P is not true), so a client cannot tell the two apart.
 */
import type { FilterExpr, FilterValue } from './ast.js';
import type { ListQuery } from './list-params.js';

type Row = Readonly<Record<string, FilterValue | readonly string[] | null | undefined>>;
/** SQL's three values: true, false, unknown (null). */
type Truth = boolean | null;

/** The page of `rows` the query asks for, and how many rows match it in all. */
export function listInMemory<T>(rows: readonly T[], query: ListQuery, valuesOf: (row: T) => Row): { items: T[]; totalCount: number } {
  const matching = query.where === undefined ? [...rows] : rows.filter((row) => evaluate(query.where as FilterExpr, valuesOf(row)) === true);
  matching.sort((a, b) => {
    for (const key of query.sort) {
      const order = compareValues(valuesOf(a)[key.field], valuesOf(b)[key.field]);
      if (order !== 0) return key.direction === 'asc' ? order : -order;
    }
    return 0;
  });
  return { items: matching.slice(query.offset, query.offset + query.limit), totalCount: matching.length };
}

function evaluate(node: FilterExpr, row: Row): Truth {
  switch (node.kind) {
    case 'and': {
      const values = node.operands.map((operand) => evaluate(operand, row));
      return values.includes(false) ? false : values.includes(null) ? null : true;
    }
    case 'or': {
      const values = node.operands.map((operand) => evaluate(operand, row));
      return values.includes(true) ? true : values.includes(null) ? null : false;
    }
    case 'not':
      return evaluate(node.operand, row) !== true;
    case 'constant':
      return node.value;
    case 'isNull':
      return valueOf(row, node.field) === null;
    case 'compare': {
      const value = valueOf(row, node.field);
      if (value === null) return null;
      const order = compareValues(value, node.value);
      const results = { '=': order === 0, '!=': order !== 0, '<': order < 0, '<=': order <= 0, '>': order > 0, '>=': order >= 0 };
      return results[node.operator];
    }
    case 'in': {
      const value = valueOf(row, node.field);
      return value === null ? null : node.values.some((candidate) => compareValues(value, candidate) === 0);
    }
    case 'between': {
      const value = valueOf(row, node.field);
      return value === null ? null : compareValues(value, node.lower) >= 0 && compareValues(value, node.upper) < 0;
    }
    case 'contains': {
      const value = valueOf(row, node.field);
      if (value === null) return null;
      const text = String(value);
      return node.caseInsensitive ? text.toLowerCase().includes(node.value.toLowerCase()) : text.includes(node.value);
    }
    case 'set': {
      const elements = setOf(row, node.field);
      if (elements === null) return null;
      const outcomes = elements.map((element) => evaluate(node.condition, { ...row, [node.field]: element }));
      return node.quantifier === 'anyOf' ? outcomes.includes(true) : outcomes.every((outcome) => outcome === true);
    }
    case 'isEmpty': {
      const elements = setOf(row, node.field);
      return elements === null ? null : elements.length === 0;
    }
  }
}

function valueOf(row: Row, field: string): FilterValue | null {
  const value = row[field];
  return value === undefined || value === null || Array.isArray(value) ? null : (value as FilterValue);
}

function setOf(row: Row, field: string): readonly string[] | null {
  const value = row[field];
  return Array.isArray(value) ? value : null;
}

/** Ascending order; missing values first. */
function compareValues(a: Row[string], b: Row[string]): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    // Byte order of the UTF-8 text, as the stored lists compare (`collate "C"` on PostgreSQL).
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
