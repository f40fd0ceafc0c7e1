import { sql } from 'kysely';
import { type MigrationFactory, serialPrimaryKey } from './helpers.js';

/**
 * Indexes for the list engine: every allowed sort of a record list is served by
 * (tenant_id, sort column, id), the keyset pagination path (spec-notes L4),
 * `[]` being the sort on id alone,
 * and the common filters (status, customer id, order id, sku, dates) lead with
 * tenant_id too. Keep these in step with the declarations in records/*-list.ts.
 */
const LIST_INDEXES: Record<string, string[][]> = {
  products: [[], ['sku'], ['created_at'], ['updated_at'], ['title'], ['price_cents'], ['stock']],
  orders: [
    [],
    ['created_at'],
    ['updated_at'],
    ['code'],
    ['total_amount_cents'],
    ['status', 'created_at'],
    ['customer_id', 'created_at'],
    ['shipping_distribution_center_id'],
  ],
  tickets: [[], ['created_at'], ['updated_at'], ['status', 'created_at'], ['customer_id', 'created_at'], ['order_id']],
  transactions: [[], ['created_at'], ['updated_at'], ['amount_cents'], ['type', 'created_at'], ['order_id']],
};

export const records: MigrationFactory = (dialect) => ({
  async up(db) {
    // Text compares byte by byte on both dialects (SQLite's BINARY, PostgreSQL's "C"), so a
    // sort, its keyset cursor and its index agree whatever the server's default collation.
    const text = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
    await db.schema
      .createTable('products')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('sku', text, (c) => c.notNull())
      .addColumn('title', text, (c) => c.notNull())
      .addColumn('price_cents', 'bigint', (c) => c.notNull())
      .addColumn('stock', 'integer', (c) => c.notNull())
      .addColumn('depth_cm', 'double precision', (c) => c.notNull())
      .addColumn('height_cm', 'double precision', (c) => c.notNull())
      .addColumn('width_cm', 'double precision', (c) => c.notNull())
      .addColumn('weight_g', 'double precision', (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .addUniqueConstraint('products_tenant_sku_unique', ['tenant_id', 'sku'])
      .execute();
    await db.schema
      .createTable('orders')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('code', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('customer_id', text, (c) => c.notNull())
      .addColumn('customer_name', text, (c) => c.notNull())
      .addColumn('total_amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('currency', text, (c) => c.notNull())
      .addColumn('items', text, (c) => c.notNull())
      .addColumn('shipping', 'text')
      .addColumn('shipping_distribution_center_id', 'text')
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('tickets')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('subject', text, (c) => c.notNull())
      .addColumn('status', text, (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('customer_id', text, (c) => c.notNull())
      .addColumn('customer_name', text, (c) => c.notNull())
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('transactions')
      .addColumn('id', text, (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('type', text, (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('currency', text, (c) => c.notNull())
      .addColumn('order_id', 'text')
      .addColumn('created_at', text, (c) => c.notNull())
      .addColumn('updated_at', text, (c) => c.notNull())
      .execute();
    // Every list is per tenant and ends its sort with id (keyset tie-breaker).
    for (const [table, indexes] of Object.entries(LIST_INDEXES)) {
      for (const columns of indexes) {
        await db.schema
          .createIndex(`${table}_tenant_${[...columns, 'id'].join('_')}_idx`)
          .on(table)
          .columns(['tenant_id', ...columns, 'id'])
          .execute();
      }
    }
    const seq = serialPrimaryKey(dialect);
    await db.schema
      .createTable('outbox_events')
      .addColumn('seq', seq.type, seq.build)
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('dispatched_at', 'text')
      .execute();
    await db.schema.createIndex('outbox_pending_idx').on('outbox_events').columns(['dispatched_at', 'seq']).execute();
  },
});
