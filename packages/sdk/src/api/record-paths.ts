import type { Order, Product, Ticket, Transaction } from '@feira/contract';

/**
 * The seller read path of each kind of record: `list(path)` yields its records,
 * `get(`${path}/${id}`)` reads one. The SDK's tests check these against the
 * platform's routes.
 *
 * @example
 * ```ts
 * for await (const order of api.list(RECORD_PATHS.orders)) console.log(order.status);
 * ```
 */
export const RECORD_PATHS = {
  orders: '/v1/orders',
  products: '/seller/v1/products',
  tickets: '/seller/v0/tickets',
  transactions: '/seller/v1/financial-analysis/transactions',
} as const;

/**
 * The record each read path answers with.
 *
 * @example
 * ```ts
 * type OrderRecord = RecordByPath['/v1/orders']; // Order
 * ```
 */
export interface RecordByPath {
  '/v1/orders': Order;
  '/seller/v1/products': Product;
  '/seller/v0/tickets': Ticket;
  '/seller/v1/financial-analysis/transactions': Transaction;
}

/**
 * A list path of a kind of record.
 *
 * @example
 * ```ts
 * const path: RecordListPath = '/seller/v0/tickets';
 * ```
 */
export type RecordListPath = keyof RecordByPath;

/**
 * The path of one record: a list path, `/`, the id.
 *
 * @example
 * ```ts
 * const path: RecordItemPath = `/v1/orders/${orderId}`;
 * ```
 */
export type RecordItemPath = `${RecordListPath}/${string}`;

/**
 * The record type of a one-record path.
 *
 * @example
 * ```ts
 * type T = RecordAt<'/seller/v0/tickets/7d1c'>; // Ticket
 * ```
 */
export type RecordAt<P extends string> = {
  [L in RecordListPath]: P extends `${L}/${string}` ? RecordByPath[L] : never;
}[RecordListPath];
