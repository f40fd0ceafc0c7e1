import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: the tables the retention sweep deletes the most from
 * (docs/deploy.md "Retention", docs/decisions.md D137).
 *
 * - vacuum_truncate off: a VACUUM, the sweep's or autovacuum's, marks the
 *   deleted rows' space free for the next writes but no longer gives the
 *   empty pages at a table's end back to the file system. Giving them back
 *   takes an ACCESS EXCLUSIVE lock (every insert into the table waits for
 *   it, and a standby replays it), and a table under retention grows back
 *   into them within its period: its size on disk becomes the high-water
 *   mark of its period, as on SQLite, instead of depending on where the free
 *   space happened to lie when VACUUM ran.
 * - Attempts, quote calls and refresh tokens are vacuumed after a twentieth
 *   of their rows changed instead of a fifth (the outbox and the deliveries
 *   have their queue settings, migration 0014), so a steady sweep's space is
 *   reused within days.
 */
export const retentionVacuum: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    for (const table of ['outbox_events', 'webhook_deliveries']) {
      await sql`alter table ${sql.table(table)} set (vacuum_truncate = false)`.execute(db);
    }
    for (const table of ['webhook_delivery_attempts', 'quote_calls', 'refresh_tokens']) {
      await sql`
        alter table ${sql.table(table)} set (
          vacuum_truncate = false, autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05
        )`.execute(db);
    }
  },
});
