import type { MigrationFactory } from './helpers.js';

/**
 * The receiver's answer headers of each delivery attempt, as a JSON object,
 * shown on the consoles' delivery page: a bounded subset with credential-like
 * headers left out (webhooks/response-headers.ts). Rows from before this
 * migration, and attempts that got no answer, have none (null).
 */
export const attemptResponseHeaders: MigrationFactory = () => ({
  async up(db) {
    await db.schema.alterTable('webhook_delivery_attempts').addColumn('response_headers', 'text').execute();
  },
});
