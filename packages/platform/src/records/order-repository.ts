import type { Order, OrderInput, OrderPatch, OrderShipping, OrderStatus } from '@feira/contract';
import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../core/platform-error.js';
import type { Schema } from '../storage/schema.js';
import { fromCents, toCents } from './money.js';
import { appendEvent } from './outbox.js';
import { inTransaction, type RecordWriteDeps } from './record-write.js';

export type OrderRow = Selectable<Schema['orders']>;

/** The read path of an order: the webhook `data.resource` (SPEC-DECISIONS W7). */
export const orderPath = (id: string) => `/v1/orders/${id}`;

interface StoredItem {
  sku: string;
  quantity: number;
  price_cents: number;
}

export function presentOrder(row: OrderRow): Order {
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

/** The shipping JSON and the distribution centre copied out of it (an indexed, filterable column). */
function shippingColumns(shipping: OrderShipping | null | undefined) {
  return {
    shipping: shipping ? JSON.stringify(shipping) : null,
    shipping_distribution_center_id: shipping?.origin?.distribution_center.id ?? null,
  };
}

export async function findOrder(db: Kysely<Schema>, tenantId: string, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/**
 * Creates an order and its CREATION event (topic `order`) in one transaction:
 * the caller's when `db` is a transaction (checkout, SPEC-DECISIONS Q6), else
 * a new one. `total_amount` defaults to the sum of the items; `code` to a
 * generated one; `status` to `new`; `currency` to BRL.
 */
export async function insertOrder(
  db: Kysely<Schema>,
  tenantId: string,
  input: OrderInput,
  deps: RecordWriteDeps,
): Promise<Order> {
  const now = deps.clock.now().toISOString();
  const items = storedItems(input.items);
  const row: OrderRow = {
    id: deps.random.uuid(),
    tenant_id: tenantId,
    code: input.code ?? `FE-${deps.random.bytes(5).toString('hex').toUpperCase()}`,
    status: input.status ?? 'new',
    customer_id: input.customer.id,
    customer_name: input.customer.name,
    total_amount_cents:
      input.total_amount !== undefined
        ? toCents(input.total_amount, 'total_amount')
        : items.reduce((sum, item) => sum + item.price_cents * item.quantity, 0),
    currency: input.currency ?? 'BRL',
    items: JSON.stringify(items),
    ...shippingColumns(input.shipping),
    created_at: now,
    updated_at: now,
  };
  await inTransaction(db, async (trx) => {
    await trx.insertInto('orders').values(row).execute();
    await appendEvent(trx, { tenantId, topic: 'order', status: 'CREATION', recordId: row.id, resource: orderPath(row.id) }, deps);
  });
  return presentOrder(row);
}

/** Changes the fields given and appends an UPDATE event; another tenant's order is a 404. */
export async function updateOrder(
  db: Kysely<Schema>,
  tenantId: string,
  id: string,
  patch: OrderPatch,
  deps: RecordWriteDeps,
): Promise<Order> {
  return inTransaction(db, async (trx) => {
    const current = await findOrder(trx, tenantId, id);
    if (!current) throw notFound('Order');
    const next: OrderRow = {
      ...current,
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.customer !== undefined && { customer_id: patch.customer.id, customer_name: patch.customer.name }),
      ...(patch.total_amount !== undefined && { total_amount_cents: toCents(patch.total_amount, 'total_amount') }),
      ...(patch.currency !== undefined && { currency: patch.currency }),
      ...(patch.items !== undefined && { items: JSON.stringify(storedItems(patch.items)) }),
      ...(patch.shipping !== undefined && shippingColumns(patch.shipping)),
      updated_at: deps.clock.now().toISOString(),
    };
    const { id: _id, tenant_id: _tenant, created_at: _created, ...changes } = next;
    await trx.updateTable('orders').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
    await appendEvent(trx, { tenantId, topic: 'order', status: 'UPDATE', recordId: id, resource: orderPath(id) }, deps);
    return presentOrder(next);
  });
}

/** Deletes an order and appends a DELETION event; another tenant's order is a 404. */
export async function deleteOrder(db: Kysely<Schema>, tenantId: string, id: string, deps: RecordWriteDeps): Promise<void> {
  await inTransaction(db, async (trx) => {
    const result = await trx.deleteFrom('orders').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound('Order');
    await appendEvent(trx, { tenantId, topic: 'order', status: 'DELETION', recordId: id, resource: orderPath(id) }, deps);
  });
}
