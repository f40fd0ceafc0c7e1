import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: the outbox and the delivery table work as queues. Every
 * event is updated once when fanned out, every delivery at least once when
 * sent, and each update leaves a dead row version whose index entries the next
 * claim still walks until VACUUM removes them. With the default thresholds
 * (a fraction of the table) a large table waits for a great many dead rows,
 * and every claim walks them meanwhile, even one that finds nothing
 * (docs/decisions.md D18).
 * Here autovacuum visits them after 2,000 changed rows whatever their size,
 * without the cost-based pauses, as job queues on PostgreSQL are usually tuned.
 */
export const queueAutovacuum: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    for (const table of ['outbox_events', 'webhook_deliveries']) {
      await sql`
        alter table ${sql.table(table)} set (
          autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000,
          autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 5000,
          autovacuum_analyze_scale_factor = 0.02, autovacuum_vacuum_cost_delay = 0
        )`.execute(db);
    }
  },
});
