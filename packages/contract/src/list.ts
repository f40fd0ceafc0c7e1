import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * List conventions ("List operations (common conventions)" and "List response
 * envelope" in the spec; spec-notes L1–L9): the query parameter names, the
 * filter operators and the envelope every list operation returns.
 */

/** Control parameters of every list operation. Everything else in the query string is a filter. */
export const LIST_QUERY_PARAMETERS = {
  limit: '_limit',
  offset: '_offset',
  paginate: '_paginate',
  nextToken: '_next_token',
  sort: '_sort',
} as const;

/** Spec "Limits": default page size. */
export const DEFAULT_LIST_LIMIT = 20;
/** spec-notes L1: `max_limit` is 100 unless a resource says otherwise. */
export const DEFAULT_MAX_LIMIT = 100;
/** Spec "Limits" PAGE_MAX_OFFSET / spec-notes L3: largest `_offset` on massive collections. */
export const PAGE_MAX_OFFSET = 5000;

/**
 * Filter operators: `field=value` is `eq`; the others are the suffix after a
 * double underscore (`field__gte=10`). `like` is a case-insensitive "contains"
 * where `%` and `_` are literal (spec-notes L7); `in` takes a comma-separated list.
 */
export const FILTER_OPERATORS = ['eq', 'like', 'in', 'gt', 'gte', 'lt', 'lte'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** A scalar filter value as echoed in `meta.filters` (typed by the field: numbers stay numbers). */
export const FilterScalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** spec-notes L8: one applied filter criterion. */
export const AppliedFilter = Type.Object({
  field: Type.String({ description: 'Dotted field name, e.g. `customer.id`' }),
  operator: Type.Union(FILTER_OPERATORS.map((op) => Type.Literal(op))),
  value: Type.Union([FilterScalar, Type.Array(FilterScalar)], { description: 'An array for `in`' }),
});
export type AppliedFilter = Static<typeof AppliedFilter>;

/** spec-notes L8: one applied sort criterion, in the order applied. */
export const AppliedSort = Type.Object({
  field: Type.String(),
  direction: Type.Union(SORT_DIRECTIONS.map((d) => Type.Literal(d))),
});
export type AppliedSort = Static<typeof AppliedSort>;

export const ListMeta = Type.Object({
  page: Type.Object({
    limit: Type.Integer({ description: 'Page size applied (clamped to max_limit, spec-notes L1)' }),
    offset: Type.Union([Type.Integer(), Type.Null()], { description: 'null with cursor pagination' }),
    count: Type.Union([Type.Integer(), Type.Null()], { description: 'Records on this page; null with cursor pagination' }),
    max_limit: Type.Integer(),
  }),
  links: Type.Object({
    previous: Type.Union([Type.String(), Type.Null()]),
    self: Type.String(),
    next: Type.Union([Type.String(), Type.Null()], { description: 'With cursor pagination it carries `_next_token`' }),
  }),
  filters: Type.Array(AppliedFilter),
  sorts: Type.Array(AppliedSort),
  total: Type.Optional(Type.Integer({ description: 'Offset pagination on ordinary collections only (spec-notes L5)' })),
});
export type ListMeta = Static<typeof ListMeta>;

/** The list response envelope for records of schema `item`. */
export const ListEnvelope = <T extends TSchema>(item: T) => Type.Object({ meta: ListMeta, results: Type.Array(item) });

export interface ListEnvelopeOf<T> {
  meta: ListMeta;
  results: T[];
}
