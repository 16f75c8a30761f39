/**
 * The shapes of the Edge API list-query language (ZitiQL) once parsed and type-checked: the field map a
 * list operation exposes, the boolean filter tree, and the sort/skip/limit clauses written inside a filter.
 * The tree is dialect-free; compile.ts turns it into SQL.
 */

/**
 * The value types a filterable field can have; they decide which literals and operators it accepts. Besides the
 * scalar types: `stringSet`, a JSON array of strings (role attributes, policy roles) read through `anyOf(field)`,
 * `allOf(field)` and `isEmpty(field)`; `tags`, a JSON object read one key at a time as `tags.<key>`; and `tag`, one
 * such key's value (a string or a boolean), which a `tags` field resolves to (fields.ts).
 */
export type FieldType = 'string' | 'number' | 'boolean' | 'datetime' | 'stringSet' | 'tags' | 'tag';

/** One filterable field: the stored column it reads and its type (and, for a `tag`, the key in the column's object). */
export interface FieldSpec {
  column: string;
  type: FieldType;
  key?: string;
}

/** Public field name (as clients write it, e.g. `createdAt`) -> stored column. */
export type FieldMap = Readonly<Record<string, FieldSpec>>;

/**
 * A literal after type checking. Its JS type follows the field type; datetimes are already normalised
 * to the stored text form `YYYY-MM-DDTHH:mm:ss.sssZ` so they compare as text.
 */
export type FilterValue = string | number | boolean;

export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type SortDirection = 'asc' | 'desc';

export interface SortKey {
  field: string;
  direction: SortDirection;
}

/**
 * The boolean filter tree. `field` is always the public name, checked against the FieldMap.
 * Negated operators (`not in`, `not between`, `not contains`, `not icontains`, `!= null`) are written as a
 * `not` node around the positive form so the compiler has one place that decides what negation means.
 */
export type FilterExpr =
  | { kind: 'and'; operands: FilterExpr[] }
  | { kind: 'or'; operands: FilterExpr[] }
  | { kind: 'not'; operand: FilterExpr }
  | { kind: 'constant'; value: boolean }
  | { kind: 'compare'; field: string; operator: ComparisonOperator; value: FilterValue }
  | { kind: 'isNull'; field: string }
  | { kind: 'contains'; field: string; value: string; caseInsensitive: boolean }
  | { kind: 'in'; field: string; values: FilterValue[] }
  | { kind: 'between'; field: string; lower: FilterValue; upper: FilterValue }
  /**
   * `anyOf(field) <condition>` / `allOf(field) <condition>` on a `stringSet` field: some / every element meets the
   * condition, whose own `field` is the set's name standing for one element (allOf of an empty set holds, as "every").
   */
  | { kind: 'set'; quantifier: 'anyOf' | 'allOf'; field: string; condition: FilterExpr }
  /** `isEmpty(field)` on a `stringSet` field. */
  | { kind: 'isEmpty'; field: string };

/** A whole parsed filter parameter: each part is absent when the text did not write it. */
export interface ParsedFilter {
  where?: FilterExpr;
  sort?: SortKey[];
  skip?: number;
  /** As written: a positive integer, `-1`, or `'none'` (both meaning "the largest page"). */
  limit?: number | 'none';
}
