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
import { PlatformError } from '../core/platform-error.js';
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
  /** Limit applied, clamped to max_limit (SPEC-DECISIONS L1). */
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

/**
 * Validates a raw query string against a list declaration. Every problem
 * becomes one `details[]` entry of a single 422 (SPEC-DECISIONS L6: naming the
 * parameter, `location: "query"`); nothing the client sent is ever used as SQL.
 */
export function parseListQuery(resource: ListResource<unknown, unknown>, query: unknown): ParsedListQuery {
  const details: ErrorDetail[] = [];
  const fail = (field: string, message: string, slug = 'INVALID_PARAMETER_VALUE') =>
    details.push({ field, location: 'query', message, slug });
  const pairs = queryPairs(query);
  const maxLimit = resource.maxLimit ?? DEFAULT_MAX_LIMIT;

  const control = new Map<string, string>();
  const filterPairs: Array<[string, string]> = [];
  for (const [name, value] of pairs) {
    if (CONTROL.has(name)) {
      if (control.has(name)) fail(name, 'must be given at most once');
      control.set(name, value);
    } else {
      filterPairs.push([name, value]);
    }
  }

  // _limit (SPEC-DECISIONS L1): an integer ≥ 1, clamped to max_limit.
  let limit = DEFAULT_LIST_LIMIT;
  const rawLimit = control.get(LIMIT);
  if (rawLimit !== undefined) {
    if (!DIGITS.test(rawLimit) || Number(rawLimit) < 1) fail(LIMIT, 'must be an integer of at least 1');
    else limit = Number(rawLimit);
  }
  limit = Math.min(limit, maxLimit);

  // _paginate / _next_token (SPEC-DECISIONS L4).
  let cursor: ParsedListQuery['cursor'] = null;
  const paginate = control.get(PAGINATE);
  const token = control.get(NEXT_TOKEN);
  if (paginate !== undefined && paginate !== 'cursor') fail(PAGINATE, 'the only accepted value is cursor');
  if (token !== undefined) {
    if (token.length === 0) fail(NEXT_TOKEN, 'is empty: follow meta.links.next exactly');
    cursor = { firstPage: false, token };
  } else if (paginate === 'cursor') {
    cursor = { firstPage: true };
  }

  // _offset (SPEC-DECISIONS L2, L3, L4).
  let offset: number | null = cursor ? null : 0;
  const rawOffset = control.get(OFFSET);
  if (rawOffset !== undefined) {
    if (cursor) fail(OFFSET, 'is not available with cursor pagination (_paginate=cursor or _next_token)');
    else if (!DIGITS.test(rawOffset)) fail(OFFSET, 'must be an integer of at least 0');
    else if (resource.massive && Number(rawOffset) > PAGE_MAX_OFFSET)
      fail(OFFSET, `must be at most ${PAGE_MAX_OFFSET} on this collection: use _paginate=cursor to go further`);
    else offset = Number(rawOffset);
  }

  // _sort: field[:asc|:desc],… applied left to right; id ends every sort.
  let sorts: AppliedSort[] = [...resource.defaultSort];
  const rawSort = control.get(SORT);
  if (rawSort !== undefined) {
    sorts = [];
    const seen = new Set<string>();
    for (const criterion of rawSort.split(',')) {
      const [field = '', direction = 'asc', extra] = criterion.split(':');
      if (extra !== undefined || (direction !== 'asc' && direction !== 'desc')) {
        fail(SORT, `"${criterion.slice(0, 60)}": the direction must be asc or desc`);
      } else if (field !== 'id' && !resource.sorts.includes(field)) {
        fail(SORT, `"${field.slice(0, 60)}" is not a sortable field (sortable: ${[...resource.sorts, 'id'].join(', ')})`);
      } else if (seen.has(field)) {
        fail(SORT, `"${field}" is given more than once`);
      } else {
        seen.add(field);
        sorts.push({ field, direction });
      }
    }
  }
  // Nothing after id can change the order: drop it so equal orders bind equal tokens.
  const idAt = sorts.findIndex((s) => s.field === 'id');
  if (idAt !== -1) sorts = sorts.slice(0, idAt + 1);

  // Filters: field=value, field__op=value; lower-case field names only (spec rule 1).
  if (filterPairs.length > MAX_FILTER_PARAMETERS) fail('(query)', `at most ${MAX_FILTER_PARAMETERS} filters`);
  const filters: ParsedFilter[] = [];
  for (const [name, raw] of filterPairs.slice(0, MAX_FILTER_PARAMETERS)) {
    const [fieldName, operatorName] = splitParameter(name);
    const field: ListField | undefined = Object.hasOwn(resource.fields, fieldName) ? resource.fields[fieldName] : undefined;
    if (!field) {
      fail(name, `"${fieldName.slice(0, 60)}" is not a filterable field of this list`, 'UNKNOWN_PARAMETER');
      continue;
    }
    const operator = (FILTER_OPERATORS as readonly string[]).includes(operatorName) ? (operatorName as FilterOperator) : null;
    const allowed = field.operators ?? DEFAULT_OPERATORS[field.type];
    if (!operator || !allowed.includes(operator) || (name.endsWith('__eq') && operator === 'eq')) {
      fail(
        name,
        `unsupported operator for ${fieldName} (allowed: ${allowed.map((op) => (op === 'eq' ? '=' : `__${op}`)).join(', ')})`,
      );
      continue;
    }
    if (operator === 'in') {
      const items = raw.split(',');
      if (items.length > MAX_IN_VALUES) {
        fail(name, `at most ${MAX_IN_VALUES} values`);
        continue;
      }
      const parsed = items.map((item) => parseFieldValue(field, item));
      const bad = parsed.find((p) => !p.ok);
      if (bad && !bad.ok) {
        fail(name, `every value ${bad.message}`);
        continue;
      }
      const good = parsed.flatMap((p) => (p.ok ? [p] : []));
      filters.push({
        field: fieldName,
        column: field.column,
        operator,
        sqlValue: good.map((p) => p.sql),
        echo: { field: fieldName, operator, value: good.map((p) => p.echo) },
      });
      continue;
    }
    const parsed = parseFieldValue(field, raw);
    if (!parsed.ok) {
      fail(name, parsed.message);
      continue;
    }
    if (operator === 'like' && raw.length === 0) {
      fail(name, 'must not be empty');
      continue;
    }
    filters.push({
      field: fieldName,
      column: field.column,
      operator,
      sqlValue: parsed.sql,
      echo: { field: fieldName, operator, value: parsed.echo },
    });
  }

  if (details.length > 0) throw new PlatformError('UNPROCESSABLE_ENTITY', { details });
  return { limit, maxLimit, offset, cursor, filters, sorts };
}
