import type { ListFieldType } from '../list-resource.js';

/**
 * A plain in-memory reference of the list conventions, written independently
 * of the engine: the property test checks that the database answers exactly
 * what filtering and sorting an array would.
 */

export interface ModelField {
  type: ListFieldType;
  values?: readonly string[];
}

export interface ModelFilter {
  field: string;
  operator: 'eq' | 'like' | 'in' | 'gt' | 'gte' | 'lt' | 'lte';
  /** The raw query-string value. */
  raw: string;
}

export interface ModelSort {
  field: string;
  direction: 'asc' | 'desc';
}

type Scalar = string | number | null;

export function valueAt(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return null;
    current = (current as Record<string, unknown>)[part];
  }
  return current ?? null;
}

/** The comparable form of a record's value (money in cents, like the column). */
function stored(type: ListFieldType, value: unknown): Scalar {
  if (value === null || value === undefined) return null;
  if (type === 'money') return Math.round(Number(value) * 100);
  return value as Scalar;
}

/** The comparable form of a query value. */
function typed(type: ListFieldType, raw: string): Scalar {
  switch (type) {
    case 'money':
      return Math.round(Number(raw) * 100);
    case 'integer':
    case 'number':
      return Number(raw);
    case 'datetime':
      return new Date(/T/.test(raw) ? raw : `${raw}T00:00:00Z`).toISOString();
    default:
      return raw;
  }
}

/** Code-point order for strings (what SQLite BINARY and PostgreSQL "C" do), numeric order for numbers. */
function compare(a: Scalar, b: Scalar): number {
  if (a === b) return 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : 1;
  const sa = Buffer.from(String(a), 'utf8');
  const sb = Buffer.from(String(b), 'utf8');
  return Buffer.compare(sa, sb);
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function matches(field: ModelField, value: Scalar, filter: ModelFilter): boolean {
  if (value === null) return false;
  switch (filter.operator) {
    case 'eq':
      return compare(value, typed(field.type, filter.raw)) === 0;
    case 'in':
      return filter.raw.split(',').some((item) => compare(value, typed(field.type, item)) === 0);
    case 'like':
      return asciiLower(String(value)).includes(asciiLower(filter.raw));
    case 'gt':
      return compare(value, typed(field.type, filter.raw)) > 0;
    case 'gte':
      return compare(value, typed(field.type, filter.raw)) >= 0;
    case 'lt':
      return compare(value, typed(field.type, filter.raw)) < 0;
    case 'lte':
      return compare(value, typed(field.type, filter.raw)) <= 0;
  }
}

/** Filters (AND) and sorts (left to right, then id) an array of API records. */
export function listInMemory<T extends { id: string }>(
  records: readonly T[],
  fields: Readonly<Record<string, ModelField>>,
  filters: readonly ModelFilter[],
  sorts: readonly ModelSort[],
): T[] {
  const kept = records.filter((record) =>
    filters.every((filter) => {
      const field = fields[filter.field] as ModelField;
      return matches(field, stored(field.type, valueAt(record, filter.field)), filter);
    }),
  );
  // id ends every order, in the direction of the last criterion.
  const order = sorts.some((s) => s.field === 'id')
    ? sorts
    : [...sorts, { field: 'id', direction: sorts.at(-1)?.direction ?? ('asc' as const) }];
  return kept.sort((a, b) => {
    for (const sort of order) {
      const type = (fields[sort.field] as ModelField).type;
      const c = compare(stored(type, valueAt(a, sort.field)), stored(type, valueAt(b, sort.field)));
      if (c !== 0) return sort.direction === 'asc' ? c : -c;
    }
    return 0;
  });
}
