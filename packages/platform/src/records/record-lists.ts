import { ORDER_STATUSES, TICKET_STATUSES, TRANSACTION_TYPES } from '@feira/contract';
import { defineListResource, type ListField } from '../lists/list-resource.js';
import { type OrderRow, presentOrder } from './order-repository.js';
import { type ProductRow, presentProduct } from './product-repository.js';
import { presentTicket, type TicketRow } from './ticket-repository.js';
import { presentTransaction, type TransactionRow } from './transaction-repository.js';

/**
 * List declarations of the four record collections (issue 4). Every sort
 * listed here has a (tenant_id, column, id) index in migration 0003; keep
 * them in step. Public names are the API's dotted names.
 */

const common = {
  id: { column: 'id', type: 'id' },
  created_at: { column: 'created_at', type: 'datetime' },
  updated_at: { column: 'updated_at', type: 'datetime' },
} as const satisfies Record<string, ListField>;

export const productList = defineListResource<ProductRow, ReturnType<typeof presentProduct>>({
  name: 'products',
  fields: {
    ...common,
    sku: { column: 'sku', type: 'string' },
    title: { column: 'title', type: 'string' },
    price: { column: 'price_cents', type: 'money' },
    stock: { column: 'stock', type: 'integer' },
    'dimensions.depth': { column: 'depth_cm', type: 'number' },
    'dimensions.height': { column: 'height_cm', type: 'number' },
    'dimensions.width': { column: 'width_cm', type: 'number' },
    'dimensions.weight': { column: 'weight_g', type: 'number' },
  },
  sorts: ['sku', 'title', 'price', 'stock', 'created_at', 'updated_at'],
  defaultSort: [{ field: 'created_at', direction: 'asc' }],
  present: presentProduct,
});

/** Orders are massive (SPEC-DECISIONS L3, L5): offset ≤ 5000, no total. */
export const orderList = defineListResource<OrderRow, ReturnType<typeof presentOrder>>({
  name: 'orders',
  massive: true,
  fields: {
    ...common,
    code: { column: 'code', type: 'string' },
    status: { column: 'status', type: 'enum', values: ORDER_STATUSES },
    'customer.id': { column: 'customer_id', type: 'id' },
    'customer.name': { column: 'customer_name', type: 'string' },
    total_amount: { column: 'total_amount_cents', type: 'money' },
    currency: { column: 'currency', type: 'string', operators: ['eq', 'in'] },
    'shipping.origin.distribution_center.id': { column: 'shipping_distribution_center_id', type: 'id', nullable: true },
  },
  sorts: ['created_at', 'updated_at', 'code', 'total_amount'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentOrder,
});

export const ticketList = defineListResource<TicketRow, ReturnType<typeof presentTicket>>({
  name: 'tickets',
  fields: {
    ...common,
    subject: { column: 'subject', type: 'string' },
    status: { column: 'status', type: 'enum', values: TICKET_STATUSES },
    order_id: { column: 'order_id', type: 'id', nullable: true },
    'customer.id': { column: 'customer_id', type: 'id' },
    'customer.name': { column: 'customer_name', type: 'string' },
  },
  sorts: ['created_at', 'updated_at'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentTicket,
});

/** Transactions are massive (SPEC-DECISIONS L3, L5): offset ≤ 5000, no total. */
export const transactionList = defineListResource<TransactionRow, ReturnType<typeof presentTransaction>>({
  name: 'transactions',
  massive: true,
  fields: {
    ...common,
    type: { column: 'type', type: 'enum', values: TRANSACTION_TYPES },
    amount: { column: 'amount_cents', type: 'money' },
    currency: { column: 'currency', type: 'string', operators: ['eq', 'in'] },
    order_id: { column: 'order_id', type: 'id', nullable: true },
  },
  sorts: ['created_at', 'updated_at', 'amount'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentTransaction,
});
