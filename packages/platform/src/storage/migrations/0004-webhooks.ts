import { type MigrationFactory, serialPrimaryKey } from './helpers.js';

/**
 * Webhook subscriptions, deliveries (one per event × matching subscription)
 * and the log of every delivery attempt (spec-notes W1–W6).
 */
export const webhooks: MigrationFactory = (dialect) => ({
  async up(db) {
    await db.schema
      .createTable('webhook_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('client_id', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text')
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_secret_grace_until', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('failing_since', 'text')
      .addColumn('failure_streak', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // spec-notes W1: one subscription per (client, tenant, topic).
      .addUniqueConstraint('webhook_subscriptions_client_tenant_topic_unique', ['client_id', 'tenant_id', 'topic'])
      .execute();
    await db.schema
      .createIndex('webhook_subscriptions_fanout_idx')
      .on('webhook_subscriptions')
      .columns(['tenant_id', 'topic', 'state'])
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('fence', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('event_created_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      // A re-run fan-out after a crash finds the same row instead of making a second X-Webhook-Id
      // (on PostgreSQL 0018 drops it: the delivery's id, a function of the pair, does the same).
      .addUniqueConstraint('webhook_deliveries_event_subscription_unique', ['event_id', 'subscription_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due_idx')
      .on('webhook_deliveries')
      .columns(['state', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_list_idx')
      .on('webhook_deliveries')
      .columns(['tenant_id', 'created_at', 'id'])
      .execute();

    const seq = serialPrimaryKey(dialect);
    await db.schema
      .createTable('webhook_delivery_attempts')
      .addColumn('seq', seq.type, seq.build)
      .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('fence', 'bigint', (c) => c.notNull())
      .addColumn('worker', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('response_body', 'text')
      .addColumn('next_attempt_at', 'text')
      .addColumn('started_at', 'text', (c) => c.notNull())
      .execute();
    // One attempt per lease: a second worker holding the same fencing token cannot be recorded.
    await db.schema
      .createIndex('webhook_delivery_attempts_fence_unique')
      .on('webhook_delivery_attempts')
      .columns(['delivery_id', 'fence'])
      .unique()
      .execute();
  },
});
