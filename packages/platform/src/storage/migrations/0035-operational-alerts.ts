import type { MigrationFactory } from './helpers.js';

/**
 * Operational webhooks (webhooks/operational-alerts.ts): the address a store's
 * seller chose for news about their endpoints (`endpoint.failing`,
 * `endpoint.disabled`), with its own signing secret sealed like a
 * subscription's, and the queue of those messages. Deleting the store
 * deletes both.
 */
export const operationalAlerts: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('store_alert_endpoints')
      .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('store_alerts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('sent_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // The sender's claim: due, unsent alerts, oldest first.
    await db.schema.createIndex('store_alerts_due_idx').on('store_alerts').columns(['next_attempt_at']).execute();
    await db.schema.createIndex('store_alerts_tenant_idx').on('store_alerts').columns(['tenant_id', 'created_at']).execute();
    // The retention sweep's: alerts sent or given up go by age (webhooks/delivery-retention.ts).
    await db.schema.createIndex('store_alerts_created_at_idx').on('store_alerts').column('created_at').execute();
  },
});
