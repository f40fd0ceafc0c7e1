import {
  ORDER_STATUSES,
  Order,
  OrderInput,
  OrderPatch,
  type Order as OrderRecord,
  type OrderShipping,
  type OrderStatus,
} from '@feira/contract';
import type { Kysely } from 'kysely';
import { defineListResource } from '../../lists/list-resource.js';
import type { Schema } from '../../storage/schema.js';
import { fromCents, sumOfLinesCents, toCents } from '../money.js';
import { COMMON_LIST_FIELDS, type RecordKind, type RowOf } from '../record-kind.js';
import { insertRecord, type RecordWriteDeps } from '../record-write.js';
import { SEED_CUSTOMERS } from '../seed-records-values.js';

export type OrderRow = RowOf<'orders'>;

interface StoredItem {
  sku: string;
  quantity: number;
  price_cents: number;
}

function presentOrder(row: OrderRow): OrderRecord {
  const items = JSON.parse(row.items) as StoredItem[];
  return {
    id: row.id,
    code: row.code,
    status: row.status as OrderStatus,
    customer: { id: row.customer_id, name: row.customer_name },
    total_amount: fromCents(row.total_amount_cents),
    currency: row.currency,
    items: items.map((item) => ({ sku: item.sku, quantity: item.quantity, price: fromCents(item.price_cents) })),
    shipping: row.shipping === null ? null : (JSON.parse(row.shipping) as OrderShipping),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function storedItems(items: OrderInput['items']): StoredItem[] {
  return items.map((item, i) => ({
    sku: item.sku,
    quantity: item.quantity,
    price_cents: toCents(item.price, `items.${i}.price`),
  }));
}

/** The shipping price a write sends, in cents: money like any other amount (2 places, within the maximum). */
function shippingPriceCents(shipping: OrderShipping | null | undefined): number {
  return shipping?.price === undefined ? 0 : toCents(shipping.price, 'shipping.price');
}

/** The shipping price of a stored order, in cents (a row written before prices were checked may hold more places). */
function storedShippingPriceCents(row: OrderRow): number {
  if (row.shipping === null) return 0;
  const { price } = JSON.parse(row.shipping) as OrderShipping;
  return price === undefined ? 0 : Math.round(price * 100);
}

/**
 * An order's total in cents (spec-notes R2): the
 * `total_amount` a write sends; else what the order costs, the sum of its
 * items (price × quantity) plus its shipping price, the total the checkout
 * computes (Q6). The one place an order total is computed.
 */
function orderTotalCents(totalAmount: number | undefined, items: readonly StoredItem[], shippingCents: number): number {
  if (totalAmount !== undefined) return toCents(totalAmount, 'total_amount');
  // Checked (money.ts): an overflow is a 422 naming the caller's line quantity, never a 500 or a corrupted total.
  return sumOfLinesCents(
    items.map((item) => ({ priceCents: item.price_cents, quantity: item.quantity })),
    (i) => `items.${i}.quantity`,
    shippingCents,
  );
}

/**
 * The total a patch leaves: the one it sends, else the total recomputed when
 * it changes what the order costs (its items or its shipping), else none (the
 * stored total stands). A patch of `items` alone never leaves a stale total.
 */
function patchedTotalCents(current: OrderRow, patch: OrderPatch, items: StoredItem[] | undefined): number | undefined {
  const shippingCents = patch.shipping === undefined ? undefined : shippingPriceCents(patch.shipping);
  if (patch.total_amount !== undefined) return toCents(patch.total_amount, 'total_amount');
  if (items === undefined && shippingCents === undefined) return undefined;
  return orderTotalCents(
    undefined,
    items ?? (JSON.parse(current.items) as StoredItem[]),
    shippingCents ?? storedShippingPriceCents(current),
  );
}

/** The shipping JSON and the distribution centre copied out of it (an indexed, filterable column). */
function shippingColumns(shipping: OrderShipping | null | undefined) {
  return {
    shipping: shipping ? JSON.stringify(shipping) : null,
    shipping_distribution_center_id: shipping?.origin?.distribution_center.id ?? null,
  };
}

/** Orders are massive (spec-notes L3, L5): offset ≤ 5000, no total. */
export const orderList = defineListResource<OrderRow, OrderRecord>({
  name: 'orders',
  massive: true,
  fields: {
    ...COMMON_LIST_FIELDS,
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

const SEED_CENTRES = ['dc-sp', 'dc-rj'] as const;
const SEED_SHIPPING_CENTS = 1990;
const SEED_SHIPPING_JSON = SEED_CENTRES.map((id) =>
  JSON.stringify({
    id: 'standard',
    name: 'Standard',
    type: 'conventional',
    price: SEED_SHIPPING_CENTS / 100,
    delivery_days: 5,
    origin: { distribution_center: { id } },
  }),
);

/**
 * Orders (topic `order`). Created by the admin API and by the storefront
 * checkout (spec-notes Q6); `total_amount` defaults to the items plus the
 * shipping price (orderTotalCents), `code` to a generated one, `status` to `new`, `currency` to BRL.
 */
export const orderKind: RecordKind<'orders', OrderRecord, OrderInput, OrderPatch> = {
  table: 'orders',
  topic: 'order',
  scope: 'open:order-order:read',
  readPath: '/v1/orders',
  label: 'Order',
  labelKey: 'records.kind.orders',
  openApiTag: 'Orders of the store (scope `open:order-order:read`)',
  demoCount: 250,
  schemas: { record: Order, input: OrderInput, patch: OrderPatch },
  list: orderList,
  // An order is looked up by the code the shopper was given, or all orders of one customer.
  search: [
    { field: 'code', match: 'prefix' },
    { field: 'customer.id', match: 'exact' },
  ],
  present: presentOrder,
  create(input, random) {
    const items = storedItems(input.items);
    return {
      code: input.code ?? `FE-${random.bytes(5).toString('hex').toUpperCase()}`,
      status: input.status ?? 'new',
      customer_id: input.customer.id,
      customer_name: input.customer.name,
      total_amount_cents: orderTotalCents(input.total_amount, items, shippingPriceCents(input.shipping)),
      currency: input.currency ?? 'BRL',
      items: JSON.stringify(items),
      ...shippingColumns(input.shipping),
    };
  },
  patch(current, patch) {
    const items = patch.items === undefined ? undefined : storedItems(patch.items);
    const total = patchedTotalCents(current, patch, items);
    return {
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.customer !== undefined && { customer_id: patch.customer.id, customer_name: patch.customer.name }),
      ...(total !== undefined && { total_amount_cents: total }),
      ...(patch.currency !== undefined && { currency: patch.currency }),
      ...(items !== undefined && { items: JSON.stringify(items) }),
      ...(patch.shipping !== undefined && shippingColumns(patch.shipping)),
    };
  },
  seed: {
    columns: [
      'code',
      'status',
      'customer_id',
      'customer_name',
      'total_amount_cents',
      'currency',
      'items',
      'shipping',
      'shipping_distribution_center_id',
    ],
    fill(v, at, i, { next, pick, run }) {
      const quantity = 1 + Math.floor(next() * 3);
      const priceCents = 500 + Math.floor(next() * 50000);
      const centre = next() < 0.5 ? 0 : 1;
      const customer = Math.floor(next() * SEED_CUSTOMERS.count);
      v[at] = `FE-${run}-${String(i).padStart(8, '0')}`;
      v[at + 1] = pick(ORDER_STATUSES);
      v[at + 2] = SEED_CUSTOMERS.ids[customer];
      v[at + 3] = SEED_CUSTOMERS.names[customer];
      // The total a write without total_amount would get (orderTotalCents): items plus shipping.
      v[at + 4] = priceCents * quantity + SEED_SHIPPING_CENTS;
      v[at + 5] = 'BRL';
      v[at + 6] =
        `[{"sku":"SKU-${run}-${String(i % 1000).padStart(7, '0')}","quantity":${quantity},"price_cents":${priceCents}}]`;
      v[at + 7] = SEED_SHIPPING_JSON[centre];
      v[at + 8] = SEED_CENTRES[centre];
    },
  },
  trigger: {
    create: (tag) => ({
      customer: { id: `cust-${tag}`, name: 'Trigger Customer' },
      items: [{ sku: `TRIGGER-${tag}`, quantity: 1, price: 10 }],
    }),
    update: { status: 'approved' },
  },
};

/** Creates an order and its CREATION event: the storefront checkout's call, inside its own transaction (spec-notes Q6). */
export function insertOrder(
  db: Kysely<Schema>,
  tenantId: string,
  input: OrderInput,
  deps: RecordWriteDeps,
): Promise<OrderRecord> {
  return insertRecord(orderKind, db, tenantId, input, deps);
}
