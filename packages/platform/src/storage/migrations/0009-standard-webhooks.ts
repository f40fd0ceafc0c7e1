import type { MigrationFactory } from './helpers.js';

/**
 * Standard Webhooks: a v1 subscription may ask for the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers beside the
 * spec's own (spec-notes W10). 0 or 1 on both dialects.
 */
export const standardWebhooks: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .alterTable('webhook_subscriptions')
      .addColumn('standard_webhooks', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
});
