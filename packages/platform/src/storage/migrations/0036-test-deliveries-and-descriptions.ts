import type { MigrationFactory } from './helpers.js';

/**
 * A delivery sent by the console's "send a test event" is marked as one (D153),
 * so the log and the delivery's page can say so whatever happens to its event;
 * and a subscription gets the seller's own description (D154). Both nullable and
 * without a default, so adding them rewrites no row on either database: null is
 * "not a test" and "no description".
 */
export const testDeliveriesAndDescriptions: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('webhook_deliveries').addColumn('is_test', 'integer').execute();
    await db.schema.alterTable('webhook_subscriptions').addColumn('description', 'text').execute();
  },
});
