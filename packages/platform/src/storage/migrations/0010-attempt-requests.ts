import type { MigrationFactory } from './helpers.js';

/**
 * The request of each delivery attempt, shown in the consoles' delivery log: the headers it was sent
 * with, signatures included, as a JSON object. The exact body is the
 * outbox event's, sent byte for byte with every attempt, so it is not copied.
 * Rows from before this migration have none (null).
 */
export const attemptRequests: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('webhook_delivery_attempts').addColumn('request_headers', 'text').execute();
  },
});
