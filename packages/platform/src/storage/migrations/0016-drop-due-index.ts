import type { MigrationFactory } from './helpers.js';

/**
 * The (state, next_attempt_at) index of 0004 served the claims, which now
 * have partial indexes of their own (0015), and the pending-deliveries gauges,
 * which now count through the same two (webhooks/webhook-metrics.ts). No query
 * needs it any more, and every delivery paid for it twice: an entry written by
 * the fan-out and moved when the delivery succeeds. Without it a SQLite drain
 * inserts each delivery into five indexes instead of six.
 */
export const dropDueIndex: MigrationFactory = () => ({
  async up(db) {
    await db.schema.dropIndex('webhook_deliveries_due_idx').execute();
  },
});
