import { orderList, productList, ticketList, transactionList } from '../../records/record-lists.js';
import type { Schema } from '../../storage/schema.js';
import type { ListResource } from '../list-resource.js';

/** The record lists and their tables, for the query-plan tests of both dialects. */
export const RECORD_LISTS: Array<[keyof Schema & string, ListResource<never, unknown>]> = [
  ['orders', orderList as ListResource<never, unknown>],
  ['products', productList as ListResource<never, unknown>],
  ['tickets', ticketList as ListResource<never, unknown>],
  ['transactions', transactionList as ListResource<never, unknown>],
];

/** Every allowed sort of every record list (and the id tiebreak), in both directions. */
export function recordListSortCases() {
  return RECORD_LISTS.flatMap(([table, list]) =>
    [...list.sorts, 'id'].flatMap((field) =>
      (['asc', 'desc'] as const).map((direction) => [table, field, direction, list] as const),
    ),
  );
}
