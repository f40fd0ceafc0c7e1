import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: the outbox and the delivery table work as queues. Every
 * event is updated once when fanned out, every delivery at least once when
 * sent, and each update leaves a dead row version whose index entries the next
 * claim still walks until VACUUM removes them. With the default thresholds
 * (20 % of the table) a table of a million deliveries waits for 200,000 dead
 * rows; measured after a 10,000-event backlog (BENCHMARKS.md, issue 22), a
 * claim that found nothing took 3 ms and the fan-out 3.5 ms at 500 events/s.
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
