/**
 * Aligned text tables for lists: a header of column names, one row per item, cells cut to a readable width.
 */

const MAX_CELL = 48;

/** A value as a table cell: lists joined by commas, nothing as `-`, references by name, other objects as JSON. */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(',');
  if (typeof value === 'object') {
    // A reference to another entity ({id, name, …}) reads as its name.
    const name = (value as { name?: unknown }).name;
    return typeof name === 'string' ? name : JSON.stringify(value);
  }
  const text = String(value).replace(/\s+/g, ' ');
  return text === '' ? '-' : text;
}

function cut(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/** The lines of a table of `items` showing `columns`. */
export function tableLines(columns: string[], items: Record<string, unknown>[]): string[] {
  const rows = items.map((item) => columns.map((c) => cut(cellOf(item[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('  ');
  return [line(columns), ...rows.map(line)];
}
