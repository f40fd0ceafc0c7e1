import type { MigrationFactory } from './helpers.js';

/** Shipping settings per tenant (spec-notes Q1) and the quote-call log (Q7). */
export const shipping: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('shipping_settings')
      .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('distribution_center_ids', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('quote_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('latency_ms', 'double precision', (c) => c.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('detail', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // The admin list is per tenant, newest first, with id as the keyset tie-breaker.
    await db.schema
      .createIndex('quote_calls_tenant_created_idx')
      .on('quote_calls')
      .columns(['tenant_id', 'created_at', 'id'])
      .execute();
  },
});
