import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: drops 0013's trigger. A `pg_notify` inside the writing
 * transaction makes PostgreSQL take one lock per database from that commit's
 * start to its end, WAL flush included, so every record write queued behind
 * every other one. Writers now send the notification themselves, after the
 * commit, as a statement of its own (storage/outbox-signal.ts).
 *
 * During a rolling upgrade, processes of the earlier version still listen for
 * the trigger's payload and no longer hear the new writers: their dispatchers
 * fall back to polling (at most 250 ms) until they are replaced.
 */
export const outboxNotifyAfterCommit: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    await sql`drop trigger if exists outbox_events_notify on outbox_events`.execute(db);
    await sql`drop function if exists feira_outbox_notify()`.execute(db);
  },
});
