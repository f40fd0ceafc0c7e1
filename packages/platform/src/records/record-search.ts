import type { Kysely } from 'kysely';
import type { ListField } from '../lists/list-resource.js';
import type { Schema } from '../storage/schema.js';
import type { RecordKind, RecordSearchField, RecordTable } from './record-kind.js';

/** The longest search term: longer than any code, SKU or id a kind stores, short enough to bind as is. */
export const RECORD_SEARCH_MAX_LENGTH = 100;

/** What a record search finds: at most the limit asked, and whether more matched. */
interface RecordSearchResult {
  results: unknown[];
  more: boolean;
}

type SearchableKind = Pick<RecordKind<RecordTable, unknown, unknown, unknown>, 'table' | 'list' | 'search' | 'present'>;

/** The fields a kind's search matches, in the order its results come: the id first (whole), then the kind's own (D155). */
export function recordSearchFields(kind: Pick<SearchableKind, 'search'>): RecordSearchField[] {
  return [{ field: 'id', match: 'exact' }, ...(kind.search ?? [])];
}

/**
 * A search term as typed, trimmed, or null when it cannot be one: empty, over
 * the bound, or holding a control character or half a surrogate pair (which no
 * stored value holds and which would make the prefix's end meaningless).
 */
export function recordSearchTerm(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const term = raw.trim();
  if (term.length === 0 || term.length > RECORD_SEARCH_MAX_LENGTH) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(term)) return null;
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(term)) return null;
  return term;
}

/**
 * The first string after every string that starts with `prefix`, in code-point
 * order (the byte order of UTF-8, which both databases compare record text in):
 * the prefix with its last code point one higher. Null when there is none
 * (a prefix of U+10FFFF only).
 */
export function prefixEnd(prefix: string): string | null {
  const points = [...prefix];
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) return points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

type SearchRow = Record<string, unknown> & { id: string };
// A kind's table is a value here: the search sees every record table through one structural view (as record-write.ts does).
type SearchDatabase = Kysely<Record<string, SearchRow & { tenant_id: string }>>;

/**
 * One store's records of a kind that match `term` (D155): the record whose id
 * it is, then, for each of the kind's search fields, the records whose value
 * is the term (`exact`) or starts with it (`prefix`, in the column's order).
 * Each is one range of an index led by (tenant_id, column), read for at most
 * `limit + 1` rows, so a search costs the same in a store of any size; a record
 * found twice is shown once.
 */
export async function searchStoreRecords(
  db: Kysely<Schema>,
  kind: SearchableKind,
  tenantId: string,
  term: string,
  limit: number,
): Promise<RecordSearchResult> {
  const view = db as unknown as SearchDatabase;
  const fields = kind.list.fields as Record<string, ListField>;
  const found = new Map<string, SearchRow>();
  let more = false;
  for (const { field, match } of recordSearchFields(kind)) {
    const column = fields[field]?.column;
    if (!column) continue;
    let query = view.selectFrom(kind.table).selectAll().where('tenant_id', '=', tenantId);
    if (match === 'exact') {
      query = query.where(column, '=', term);
    } else {
      const end = prefixEnd(term);
      query = query.where(column, '>=', term).orderBy(column).orderBy('id');
      if (end !== null) query = query.where(column, '<', end);
    }
    const rows = (await query.limit(limit + 1).execute()) as SearchRow[];
    if (rows.length > limit) more = true;
    for (const row of rows) if (!found.has(row.id)) found.set(row.id, row);
    if (found.size > limit) break;
  }
  if (found.size > limit) more = true;
  const rows = [...found.values()].slice(0, limit);
  return { results: rows.map((row) => kind.present(row as never)), more };
}
