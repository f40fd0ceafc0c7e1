import type { AppliedSort, FilterOperator } from '@feira/contract';

/**
 * How a field's query-string values are typed (spec-notes L6: a value of
 * the wrong type is a 422 naming the parameter):
 * - `string`: free text, every operator (`like` is a case-insensitive contains).
 * - `id`: an opaque identifier (UUID, customer id): `eq`, `in`.
 * - `enum`: one of `values`: `eq`, `in`.
 * - `integer`, `number`: decimal numbers; `eq`, `in` and the ranges.
 * - `money`: a decimal with at most 2 places in the API, integer cents in the column.
 * - `datetime`: ISO 8601 (`2026-01-15` or `2026-01-15T12:00:00Z`, any offset),
 *   compared as the UTC `toISOString()` text the columns hold.
 */
export type ListFieldType = 'string' | 'id' | 'enum' | 'integer' | 'number' | 'money' | 'datetime';

export interface ListField {
  /**
   * The SQL column this public field maps to (`customer.id` → `customer_id`).
   * Written by the developer, never taken from the request. With a joined base
   * query, qualify it (`o.status`); the row key read for cursors is the part
   * after the dot.
   */
  column: string;
  type: ListFieldType;
  /** Allowed values of an `enum` field. */
  values?: readonly string[];
  /** Restricts the operators (defaults depend on the type, see DEFAULT_OPERATORS). */
  operators?: readonly FilterOperator[];
  /** The column may hold NULL: such a field cannot be a sort key (keyset pagination needs total order). */
  nullable?: boolean;
}

export const DEFAULT_OPERATORS: Record<ListFieldType, readonly FilterOperator[]> = {
  string: ['eq', 'like', 'in', 'gt', 'gte', 'lt', 'lte'],
  id: ['eq', 'in'],
  enum: ['eq', 'in'],
  integer: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
  number: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
  money: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
  datetime: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
};

/**
 * The declaration of one list: what may be filtered and sorted, and how a row
 * becomes a result. Every list route declares one (records, admin sellers and
 * clients, webhook deliveries, the quote log) and hands it to `runList`.
 */
export interface ListResource<Row, Result> {
  /** Stable name; cursor tokens are bound to it so a token of one list is refused by another. */
  name: string;
  /** Public field name (lower case, dotted for nested objects) → column and type. Always include `id`. */
  fields: Readonly<Record<string, ListField>>;
  /** Public names of the fields allowed in `_sort` (`id` is always allowed and always the final tie-breaker). */
  sorts: readonly string[];
  /** Applied when `_sort` is absent. */
  defaultSort: readonly AppliedSort[];
  /** spec-notes L1: 100 unless the resource says otherwise. */
  maxLimit?: number;
  /** Massive collections (orders, transactions): `_offset` ≤ 5000 and no `total` (spec-notes L3, L5). */
  massive?: boolean;
  /** Turns a selected row into the record the API returns. */
  present(row: Row): Result;
}

/** Identity function that checks a declaration's type; declarations live beside their routes. */
export function defineListResource<Row, Result>(resource: ListResource<Row, Result>): ListResource<Row, Result> {
  for (const field of [...resource.sorts, ...resource.defaultSort.map((s) => s.field)]) {
    const declared = resource.fields[field];
    if (!declared) throw new Error(`list ${resource.name}: sort field ${field} is not declared`);
    if (declared.nullable) throw new Error(`list ${resource.name}: nullable field ${field} cannot be a sort key`);
  }
  if (!resource.fields.id) throw new Error(`list ${resource.name}: the id field must be declared`);
  return resource;
}

/** The key under which a row carries a column (`o.status` → `status`). */
export function rowKeyOf(column: string): string {
  const dot = column.lastIndexOf('.');
  return dot === -1 ? column : column.slice(dot + 1);
}
