import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * The dispatcher takes the oldest undispatched outbox events (`WHERE
 * dispatched_at IS NULL ORDER BY seq LIMIT n`). With the (dispatched_at, seq)
 * index of 0003, PostgreSQL's planner walked the primary key instead and
 * filtered out every event already dispatched, so a claim cost more as the table
 * grew (docs/decisions.md D11). A partial index holding only the undispatched
 * events is as small as the backlog, whatever the table's size, and both
 * databases use it for that query; a dispatched event leaves it instead of
 * being indexed again under its new `dispatched_at`.
 */
export const outboxUndispatchedIndex: MigrationFactory = () => ({
  async up(db) {
    await db.schema.dropIndex('outbox_pending_idx').execute();
    await db.schema
      .createIndex('outbox_undispatched_idx')
      .on('outbox_events')
      .column('seq')
      .where(sql.ref('dispatched_at'), 'is', null)
      .execute();
  },
});
