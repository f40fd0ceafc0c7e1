import { sql } from 'kysely';
import { OUTBOX_CHANNEL } from '../outbox-signal.js';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: every statement that inserts outbox events notifies
 * `feira_outbox` with the table's schema, delivered at commit to every
 * process listening (storage/outbox-signal.ts), so a dispatcher in any process
 * starts fanning out at once instead of at its next poll. Notifications with
 * the same payload in one transaction are delivered once. SQLite signals in
 * process and needs nothing here.
 */
export const outboxNotify: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    await sql`
      create function feira_outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(OUTBOX_CHANNEL)}, tg_table_schema);
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger outbox_events_notify after insert on outbox_events
      for each statement execute function feira_outbox_notify()`.execute(db);
  },
});
