import type { AnyRecordList } from '../record-kind.js';
import { RECORD_KINDS, type RegisteredRecordKind } from '../record-kinds.js';
import { recordSearchFields } from '../record-search.js';

/** Every allowed sort of every record kind's list (and the id tiebreak), in both directions, with its table. */
export function recordListSortCases() {
  return RECORD_KINDS.flatMap(({ table, list }) => {
    const anyList: AnyRecordList = list;
    return [...list.sorts, 'id'].flatMap((field) =>
      (['asc', 'desc'] as const).map((direction) => [table, field, direction, anyList] as const),
    );
  });
}

/** Every field every record kind's search matches (the id first), with its table, match and column (D155). */
export function recordSearchCases() {
  return RECORD_KINDS.flatMap((kind) =>
    recordSearchFields(kind).map(({ field, match }) => {
      const column = (kind.list.fields as Record<string, { column: string } | undefined>)[field]?.column as string;
      return [kind.table, field, match, kind as RegisteredRecordKind, column] as const;
    }),
  );
}

/**
 * A term that finds `row` by `column`: its whole value, or its first half for a
 * prefix (so the search reads a range of the index, not one key).
 */
export function searchTermOf(row: Record<string, unknown>, column: string, match: 'exact' | 'prefix'): string {
  const value = String(row[column]);
  return match === 'exact' ? value : value.slice(0, Math.max(1, Math.floor(value.length / 2)));
}
