import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * PostgreSQL only: the text keys the webhook queue's indexes sort compare byte
 * by byte (collation "C"), as 0003 made the record tables' and as SQLite's
 * BINARY always does. They are machine-made (UUIDs, ISO 8601 times), so byte
 * order is their order, and the server's default collation only costs: every
 * index insert and probe compares through it (strcoll or ICU). Measured by
 * `bench/tools/dispatcher-db-path.ts` on a server whose default collation is
 * C.UTF-8 and on one whose default is ICU en-US: a visible share of PostgreSQL's
 * CPU per delivery on both (docs/decisions.md D18). The delivery log's sorts and
 * cursors (created_at, updated_at, id) now agree with SQLite's whatever the
 * server's collation.
 *
 * Each change rebuilds the indexes on that column (not the table): on a large
 * delivery log, run the upgrade when writes can wait (docs/deploy.md).
 */
export const queueKeysByteOrder: MigrationFactory = (dialect) => ({
  async up(db) {
    if (dialect !== 'postgres') return;
    for (const [table, columns] of BYTE_ORDER_COLUMNS) {
      const changes = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`);
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
  },
});

const BYTE_ORDER_COLUMNS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['outbox_events', ['id']],
  ['webhook_deliveries', ['id', 'tenant_id', 'created_at', 'updated_at', 'next_attempt_at', 'lease_until']],
  ['webhook_delivery_attempts', ['delivery_id']],
];
