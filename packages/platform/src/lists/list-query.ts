import {
  type AppliedFilter,
  type AppliedSort,
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_LIMIT,
  type ErrorDetail,
  FILTER_OPERATORS,
  type FilterOperator,
  LIST_QUERY_PARAMETERS,
  PAGE_MAX_OFFSET,
} from '@feira/contract';
import { type RefusalCode, type RefusalValues, refusalDetail, refuseDetails } from '../core/refusals.js';
import { parseFieldValue } from './field-values.js';
import { DEFAULT_OPERATORS, type ListField, type ListResource } from './list-resource.js';

/** One validated filter criterion: what SQL binds (`sqlValue`) and what meta echoes. */
export interface ParsedFilter {
  field: string;
  column: string;
  operator: FilterOperator;
  sqlValue: string | number | Array<string | number>;
  echo: AppliedFilter;
}

export interface ParsedListQuery {
  /** Limit applied, clamped to max_limit (spec-notes L1). */
  limit: number;
  maxLimit: number;
  /** null with cursor pagination. */
  offset: number | null;
  cursor: { firstPage: true } | { firstPage: false; token: string } | null;
  filters: ParsedFilter[];
  /** Sorts as the client asked (or the default), without the implicit id tie-breaker. */
  sorts: AppliedSort[];
}

const { limit: LIMIT, offset: OFFSET, paginate: PAGINATE, nextToken: NEXT_TOKEN, sort: SORT } = LIST_QUERY_PARAMETERS;
const CONTROL = new Set<string>(Object.values(LIST_QUERY_PARAMETERS));
const MAX_IN_VALUES = 100;
const MAX_FILTER_PARAMETERS = 50;
const DIGITS = /^\d{1,16}$/;

/** `status__in` → [`status`, `in`]; `status` → [`status`, `eq`]. */
function splitParameter(name: string): [string, string] {
  const at = name.lastIndexOf('__');
  return at === -1 ? [name, 'eq'] : [name.slice(0, at), name.slice(at + 2)];
}

/** Normalizes Fastify's parsed query (`string | string[]` per key) into ordered [name, value] pairs. */
export function queryPairs(query: unknown): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (query === null || typeof query !== 'object') return pairs;
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value])
      pairs.push([name, typeof item === 'string' ? item : String(item ?? '')]);
  }
  return pairs;
}

/** Where a parser reports a problem with one parameter: each becomes a `details[]` entry of the one 422. */
type Fail = <C extends RefusalCode>(field: string, code: C, ...values: RefusalValues<C>) => void;

/** What the parsers read of a list declaration (its rows and presenter play no part). */
type ListDeclaration = Omit<ListResource<unknown, unknown>, 'present'>;

/** Splits the pairs into the control parameters (each at most once) and the filters. */
function splitControl(pairs: Array<[string, string]>, fail: Fail) {
  const control = new Map<string, string>();
  const filterPairs: Array<[string, string]> = [];
  for (const [name, value] of pairs) {
    if (CONTROL.has(name)) {
      if (control.has(name)) fail(name, 'LIST_PARAMETER_REPEATED');
      control.set(name, value);
    } else {
      filterPairs.push([name, value]);
    }
  }
  return { control, filterPairs };
}

/** `_limit` (spec-notes L1): an integer ≥ 1, clamped to max_limit. */
function parseLimit(raw: string | undefined, maxLimit: number, fail: Fail): number {
  let limit = DEFAULT_LIST_LIMIT;
  if (raw !== undefined) {
    if (!DIGITS.test(raw) || Number(raw) < 1) fail(LIMIT, 'LIST_LIMIT_INVALID');
    else limit = Number(raw);
  }
  return Math.min(limit, maxLimit);
}

/** `_paginate` / `_next_token` (spec-notes L4): cursor pagination, from its first page or from a token. */
function parseCursor(paginate: string | undefined, token: string | undefined, fail: Fail): ParsedListQuery['cursor'] {
  if (paginate !== undefined && paginate !== 'cursor') fail(PAGINATE, 'LIST_PAGINATE_INVALID');
  if (token !== undefined) {
    if (token.length === 0) fail(NEXT_TOKEN, 'LIST_NEXT_TOKEN_EMPTY');
    return { firstPage: false, token };
  }
  return paginate === 'cursor' ? { firstPage: true } : null;
}

/** `_offset` (spec-notes L2, L3, L4): not with cursors; at most 5000 on massive collections. */
function parseOffset(raw: string | undefined, cursor: ParsedListQuery['cursor'], massive: boolean, fail: Fail): number | null {
  const offset = cursor ? null : 0;
  if (raw === undefined) return offset;
  if (cursor) fail(OFFSET, 'LIST_OFFSET_WITH_CURSOR');
  else if (!DIGITS.test(raw)) fail(OFFSET, 'LIST_OFFSET_INVALID');
  else if (massive && Number(raw) > PAGE_MAX_OFFSET) fail(OFFSET, 'LIST_OFFSET_TOO_DEEP', { max: PAGE_MAX_OFFSET });
  else return Number(raw);
  return offset;
}

/** `_sort`: field[:asc|:desc],… applied left to right; id ends every sort. */
function parseSort(raw: string | undefined, resource: ListDeclaration, fail: Fail): AppliedSort[] {
  let sorts: AppliedSort[] = [...resource.defaultSort];
  if (raw !== undefined) {
    sorts = [];
    const seen = new Set<string>();
    for (const criterion of raw.split(',')) {
      const [field = '', direction = 'asc', extra] = criterion.split(':');
      if (extra !== undefined || (direction !== 'asc' && direction !== 'desc')) {
        fail(SORT, 'LIST_SORT_DIRECTION_INVALID', { criterion: criterion.slice(0, 60) });
      } else if (field !== 'id' && !resource.sorts.includes(field)) {
        fail(SORT, 'LIST_SORT_FIELD_UNKNOWN', { field: field.slice(0, 60), sortable: [...resource.sorts, 'id'].join(', ') });
      } else if (seen.has(field)) {
        fail(SORT, 'LIST_SORT_FIELD_REPEATED', { field });
      } else {
        seen.add(field);
        sorts.push({ field, direction });
      }
    }
  }
  // Nothing after id can change the order: drop it so equal orders bind equal tokens.
  const idAt = sorts.findIndex((s) => s.field === 'id');
  return idAt === -1 ? sorts : sorts.slice(0, idAt + 1);
}

/** One filter parameter, `field=value` or `field__op=value` (lower-case field names only, spec rule 1); null when refused. */
function parseFilter(resource: ListDeclaration, name: string, raw: string, fail: Fail): ParsedFilter | null {
  const [fieldName, operatorName] = splitParameter(name);
  const field: ListField | undefined = Object.hasOwn(resource.fields, fieldName) ? resource.fields[fieldName] : undefined;
  if (!field) {
    fail(name, 'LIST_FILTER_FIELD_UNKNOWN', { field: fieldName.slice(0, 60) });
    return null;
  }
  const operator = (FILTER_OPERATORS as readonly string[]).includes(operatorName) ? (operatorName as FilterOperator) : null;
  const allowed = field.operators ?? DEFAULT_OPERATORS[field.type];
  if (!operator || !allowed.includes(operator) || (name.endsWith('__eq') && operator === 'eq')) {
    fail(name, 'LIST_FILTER_OPERATOR_UNSUPPORTED', {
      field: fieldName,
      allowed: allowed.map((op) => (op === 'eq' ? '=' : `__${op}`)).join(', '),
    });
    return null;
  }
  const filter = (sqlValue: ParsedFilter['sqlValue'], echo: AppliedFilter['value']): ParsedFilter => ({
    field: fieldName,
    column: field.column,
    operator,
    sqlValue,
    echo: { field: fieldName, operator, value: echo },
  });
  if (operator === 'in') {
    const items = raw.split(',');
    if (items.length > MAX_IN_VALUES) {
      fail(name, 'LIST_FILTER_TOO_MANY_VALUES', { max: MAX_IN_VALUES });
      return null;
    }
    const parsed = items.map((item) => parseFieldValue(field, item));
    const bad = parsed.find((p) => !p.ok);
    if (bad && !bad.ok) {
      fail(name, 'LIST_FILTER_VALUES_INVALID', { problem: bad.message });
      return null;
    }
    const good = parsed.flatMap((p) => (p.ok ? [p] : []));
    return filter(
      good.map((p) => p.sql),
      good.map((p) => p.echo),
    );
  }
  const parsed = parseFieldValue(field, raw);
  if (!parsed.ok) {
    fail(name, 'LIST_FILTER_VALUE_INVALID', { problem: parsed.message });
    return null;
  }
  if (operator === 'like' && raw.length === 0) {
    fail(name, 'LIST_VALUE_EMPTY');
    return null;
  }
  return filter(parsed.sql, parsed.echo);
}

/**
 * Validates a raw query string against a list declaration. Every problem
 * becomes one `details[]` entry of a single 422 (spec-notes L6: naming the
 * parameter, `location: "query"`); nothing the client sent is ever used as SQL.
 */
export function parseListQuery(resource: ListDeclaration, query: unknown): ParsedListQuery {
  const details: ErrorDetail[] = [];
  const fail: Fail = (field, code, ...values) => details.push(refusalDetail(code, field, 'query', ...values));
  const { control, filterPairs } = splitControl(queryPairs(query), fail);
  const maxLimit = resource.maxLimit ?? DEFAULT_MAX_LIMIT;
  const limit = parseLimit(control.get(LIMIT), maxLimit, fail);
  const cursor = parseCursor(control.get(PAGINATE), control.get(NEXT_TOKEN), fail);
  const offset = parseOffset(control.get(OFFSET), cursor, resource.massive ?? false, fail);
  const sorts = parseSort(control.get(SORT), resource, fail);
  if (filterPairs.length > MAX_FILTER_PARAMETERS) fail('(query)', 'LIST_TOO_MANY_FILTERS', { max: MAX_FILTER_PARAMETERS });
  const filters = filterPairs
    .slice(0, MAX_FILTER_PARAMETERS)
    .flatMap(([name, raw]) => parseFilter(resource, name, raw, fail) ?? []);
  if (details.length > 0) throw refuseDetails('LIST_QUERY_INVALID', details);
  return { limit, maxLimit, offset, cursor, filters, sorts };
}
