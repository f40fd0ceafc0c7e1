import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: drops the unique (event_id, subscription_id) constraint of
 * 0004. A delivery's id is a function of its event and subscription
 * (webhooks/delivery-id.ts), so the primary key already refuses a second
 * delivery of the same pair, and the fan-out's `ON CONFLICT (id) DO NOTHING`
 * relies on it. The constraint's index was written by every delivery twice,
 * at its fan-out and again when its success moved the row (a success is never
 * a HOT update: it changes the claim indexes' columns): measured by
 * `bench/tools/dispatcher-db-path.ts`, a visible share of PostgreSQL's CPU per
 * delivery (docs/decisions.md D18). No query reads by the pair.
 *
 * SQLite keeps it: a table constraint there goes only by rebuilding the table,
 * which inside the migrations' transaction would also empty the attempt log
 * (its foreign key cascades), and there it costs little. SQLite writes it once,
 * at the fan-out (an UPDATE rewrites only the indexes whose columns change):
 * a small part of the fan-out's work per delivery, measured by the same tool on
 * a copy of the table rebuilt without it (docs/decisions.md D18).
 */
export const dropDeliveryPairUnique: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_event_subscription_unique`.execute(db);
  },
});
