/**
 * The list engine: one implementation of the spec's "List operations (common
 * conventions)" and "List response envelope" (spec-notes L1–L9) for every
 * list route of the platform: records, admin lists, webhook deliveries, the
 * quote log.
 *
 * Usage: declare the list once, then serve it with `listRoute` (list-route.ts),
 * which hands the raw query and URL to `runList` with a tenant-scoped base
 * query and gives the OpenAPI document the same declaration. The engine validates (422 naming the
 * parameter), adds filters, sorts and the keyset condition with Kysely (values
 * are always bound parameters; columns come only from the declaration), and
 * returns the exact envelope.
 *
 * ```ts
 * const sellerList = defineListResource({
 *   name: 'admin.sellers',
 *   fields: {
 *     id: { column: 'id', type: 'id' },
 *     login: { column: 'login', type: 'string' },
 *     created_at: { column: 'created_at', type: 'datetime' },
 *   },
 *   sorts: ['login', 'created_at'],
 *   defaultSort: [{ field: 'created_at', direction: 'asc' }],
 *   present: (row: { id: string; login: string; created_at: string }) => row,
 * });
 *
 * listRoute(app, {
 *   url: '/admin/v1/sellers',
 *   list: sellerList,
 *   preHandler: requireAdminToken,
 *   schema: { operationId: 'adminListSellers', tags: ['admin'] },
 *   base: (request) => request.server.platform.database.db.selectFrom('sellers').selectAll(),
 * });
 * ```
 *
 * The base query must select every sort column under its own name (selectAll
 * does): the cursor is built from those values. Add an index on
 * (tenant, sort column, id) for each allowed sort.
 */
import type { AppliedSort, ListEnvelopeOf } from '@feira/contract';
import { LIST_QUERY_PARAMETERS, PAGE_MAX_OFFSET } from '@feira/contract';
import type { FastifyRequest } from 'fastify';
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { refuseField } from '../core/refusals.js';
import { bindingOf, cursorKey, signCursor, verifyCursor } from './cursor-token.js';
import { type ParsedFilter, type ParsedListQuery, parseListQuery, queryPairs } from './list-query.js';
import { type ListResource, rowKeyOf } from './list-resource.js';

// biome-ignore lint/suspicious/noExplicitAny: the engine composes queries over any declared table; columns come from the declaration.
export type AnySelect = SelectQueryBuilder<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: see AnySelect.
type AnyExpressionBuilder = ExpressionBuilder<any, any>;

export interface ListRequest {
  /** The query string as Fastify parsed it (`request.query`): string or string[] per key. */
  query: unknown;
  /** The request URL (`request.url`): its path is kept in the links. */
  url: string;
}

export interface ListSettings {
  /** {base_url}: links are absolute URLs under it. */
  publicUrl: string;
  /** Server secret; the cursor HMAC key is derived from it. */
  secretKey: string;
  /** Server secrets still kept for reading: cursors their keys signed are still accepted. */
  previousSecretKeys?: readonly string[];
}

function applyFilter(query: AnySelect, filter: ParsedFilter): AnySelect {
  const { column, operator, sqlValue } = filter;
  switch (operator) {
    case 'eq':
      return query.where(column, '=', sqlValue);
    case 'in':
      return query.where(column, 'in', sqlValue as Array<string | number>);
    case 'gt':
      return query.where(column, '>', sqlValue);
    case 'gte':
      return query.where(column, '>=', sqlValue);
    case 'lt':
      return query.where(column, '<', sqlValue);
    case 'lte':
      return query.where(column, '<=', sqlValue);
    case 'like': {
      // spec-notes L7: case-insensitive contains; % and _ in the value are literal.
      const pattern = `%${String(sqlValue).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return query.where(sql<SqlBool>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`);
    }
  }
}

/** Keyset condition "after this row" for a sort list ending with id: (a > x) or (a = x and b < y) or … */
function afterCondition(
  eb: AnyExpressionBuilder,
  keys: Array<{ column: string; direction: 'asc' | 'desc' }>,
  after: Array<string | number>,
): Expression<SqlBool> {
  const terms = keys.map((key, i) =>
    eb.and([
      ...keys.slice(0, i).map((previous, j) => eb(previous.column, '=', after[j])),
      eb(key.column, key.direction === 'asc' ? '>' : '<', after[i]),
    ]),
  );
  const [first] = keys;
  if (!first) return eb.or(terms);
  // The same condition bounded on the leading sort column: planners turn this conjunct into an
  // index range start (tenant_id = ? AND column >= ?), where the OR alone makes them scan the
  // tenant's index from the beginning, so page N would cost N pages.
  return eb.and([eb(first.column, first.direction === 'asc' ? '>=' : '<=', after[0]), eb.or(terms)]);
}

function linkTo(settings: ListSettings, path: string, pairs: Array<[string, string]>): string {
  // `:` and `,` are legal in a query (RFC 3986 §3.4); left readable so `_sort=created_at:desc` looks as typed.
  const search = new URLSearchParams(pairs).toString().replace(/%3A/gi, ':').replace(/%2C/gi, ',');
  return `${settings.publicUrl}${path}${search ? `?${search}` : ''}`;
}

/** The request's parameters with `replace` set (in place where present, else appended) and `drop` removed. */
function withParameters(
  pairs: Array<[string, string]>,
  replace: Record<string, string>,
  drop: readonly string[] = [],
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const done = new Set<string>();
  for (const [name, value] of pairs) {
    if (drop.includes(name)) continue;
    if (Object.hasOwn(replace, name)) {
      if (!done.has(name)) out.push([name, replace[name] as string]);
      done.add(name);
    } else {
      out.push([name, value]);
    }
  }
  for (const [name, value] of Object.entries(replace)) if (!done.has(name)) out.push([name, value]);
  return out;
}

/**
 * Runs one list request: validates the query against the declaration, queries
 * `base` (already scoped to the tenant) and returns the spec's envelope.
 */
export async function runList<Row, Result>(
  resource: ListResource<Row, Result>,
  base: AnySelect,
  request: ListRequest,
  settings: ListSettings,
): Promise<ListEnvelopeOf<Result>> {
  const parsed: ParsedListQuery = parseListQuery(resource, request.query);
  const path = request.url.split('?')[0] ?? '/';
  const pairs = queryPairs(request.query);
  const { limit: LIMIT, offset: OFFSET, paginate: PAGINATE, nextToken: NEXT_TOKEN } = LIST_QUERY_PARAMETERS;

  // The full order: the requested sorts, then id (unique), so keyset positions are total. id takes
  // the direction of the last criterion, so a one-field sort is one index scan (tenant, field, id)
  // in either direction instead of a scan plus a sort of every tie group.
  const sorts: AppliedSort[] = parsed.sorts.some((s) => s.field === 'id')
    ? parsed.sorts
    : [...parsed.sorts, { field: 'id', direction: parsed.sorts.at(-1)?.direction ?? 'asc' }];
  const keys = sorts.map((s) => ({ column: resource.fields[s.field]?.column as string, direction: s.direction }));
  const echoFilters = parsed.filters.map((f) => f.echo);
  const binding = bindingOf(resource.name, echoFilters, sorts);

  let filtered = base;
  for (const filter of parsed.filters) filtered = applyFilter(filtered, filter);

  let page = filtered;
  for (const key of keys) page = page.orderBy(key.column, key.direction);

  if (parsed.cursor && !parsed.cursor.firstPage) {
    const cursorKeys = [settings.secretKey, ...(settings.previousSecretKeys ?? [])].map((secret) => cursorKey(secret));
    const position = verifyCursor(cursorKeys, parsed.cursor.token);
    if (!position) throw refuseField('LIST_NEXT_TOKEN_INVALID', LIST_QUERY_PARAMETERS.nextToken, 'query');
    if (position.binding !== binding || position.after.length !== keys.length) {
      throw refuseField('LIST_NEXT_TOKEN_OTHER_QUERY', LIST_QUERY_PARAMETERS.nextToken, 'query');
    }
    page = page.where((eb: AnyExpressionBuilder) => afterCondition(eb, keys, position.after));
  } else if (parsed.offset !== null && parsed.offset > 0) {
    page = page.offset(parsed.offset);
  }
  // One extra row tells whether a next page exists, without counting.
  const rows = (await page.limit(parsed.limit + 1).execute()) as Row[];
  const hasMore = rows.length > parsed.limit;
  const pageRows = hasMore ? rows.slice(0, parsed.limit) : rows;
  const results = pageRows.map((row) => resource.present(row));

  const limitText = String(parsed.limit);
  let links: ListEnvelopeOf<Result>['meta']['links'];
  if (parsed.cursor) {
    // Forward only (spec rule 4): no previous link with cursors.
    const last = pageRows.at(-1) as Record<string, unknown> | undefined;
    let next: string | null = null;
    if (hasMore && last) {
      const after = keys.map((k) => last[rowKeyOf(k.column)] as string | number);
      const token = signCursor(cursorKey(settings.secretKey), { binding, after });
      next = linkTo(settings, path, withParameters(pairs, { [LIMIT]: limitText, [NEXT_TOKEN]: token }, [PAGINATE, OFFSET]));
    }
    links = { previous: null, self: linkTo(settings, path, withParameters(pairs, { [LIMIT]: limitText })), next };
  } else {
    const offset = parsed.offset ?? 0;
    const nextOffset = offset + parsed.limit;
    // On massive collections a link past the ceiling would only earn a 422 (spec-notes L3).
    const nextAllowed = hasMore && (!resource.massive || nextOffset <= PAGE_MAX_OFFSET);
    const at = (o: number) => linkTo(settings, path, withParameters(pairs, { [LIMIT]: limitText, [OFFSET]: String(o) }));
    links = {
      previous: offset > 0 ? at(Math.max(0, offset - parsed.limit)) : null,
      self: at(offset),
      next: nextAllowed ? at(nextOffset) : null,
    };
  }

  const meta: ListEnvelopeOf<Result>['meta'] = {
    page: {
      limit: parsed.limit,
      offset: parsed.cursor ? null : (parsed.offset ?? 0),
      count: parsed.cursor ? null : results.length,
      max_limit: parsed.maxLimit,
    },
    links,
    filters: echoFilters,
    sorts,
  };
  // spec-notes L5: total only with offset pagination on ordinary collections.
  if (!parsed.cursor && !resource.massive) {
    const counted = await filtered
      .clearSelect()
      .clearOrderBy()
      .select((eb: AnyExpressionBuilder) => eb.fn.countAll().as('total'))
      .executeTakeFirst();
    meta.total = Number((counted as { total?: number | string } | undefined)?.total ?? 0);
  }
  return { meta, results };
}

/** `runList` with the query, URL and settings of a Fastify request. */
export function runListForRequest<Row, Result>(
  request: FastifyRequest,
  resource: ListResource<Row, Result>,
  base: AnySelect,
): Promise<ListEnvelopeOf<Result>> {
  const { config } = request.server.platform;
  return runList(resource, base, { query: request.query, url: request.url }, config);
}
