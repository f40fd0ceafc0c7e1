import type { MigrationFactory } from './helpers.js';

/**
 * Every attempt a delivery had, resends included (`attempts` counts those of its current
 * retry cycle, which a resend starts again). Nullable and without a default, so adding it
 * rewrites nothing on either database: a delivery written before it reads its `attempts`
 * until its next attempt (webhooks/delivery-log.ts).
 */
export const deliveryAttemptsTotal: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('webhook_deliveries').addColumn('attempts_total', 'integer').execute();
  },
});
