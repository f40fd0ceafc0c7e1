import type { AnyRecordList } from '../record-kind.js';
import { RECORD_KINDS } from '../record-kinds.js';

/** Every allowed sort of every record kind's list (and the id tiebreak), in both directions, with its table. */
export function recordListSortCases() {
  return RECORD_KINDS.flatMap(({ table, list }) => {
    const anyList: AnyRecordList = list;
    return [...list.sorts, 'id'].flatMap((field) =>
      (['asc', 'desc'] as const).map((direction) => [table, field, direction, anyList] as const),
    );
  });
}
