import type { MigrationFactory } from './helpers.js';
import { quoteCallsTable } from './quote-calls-table.js';

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
    await quoteCallsTable.create(db, 'references');
  },
});
