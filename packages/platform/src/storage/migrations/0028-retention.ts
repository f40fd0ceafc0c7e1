import type { MigrationFactory } from './helpers.js';
import { quoteCallsTable } from './quote-calls-table.js';

/**
 * What the retention sweep (storage/retention-sweeper.ts) needs to find the
 * rows it may delete without reading the rows it keeps: an index on the time
 * each table's rule compares, for the tables whose key is random (codes,
 * refresh tokens, sessions, throttle keys, quote calls, token families), and
 * the family of a refresh token and of a code, which a family's sweep asks
 * about. The delivery log and the outbox need none: their keys are
 * time-ordered (UUID v7, a sequence), so the sweep walks their primary keys.
 *
 * And the lease row that lets one process at a time sweep (storage/background-lease.ts).
 *
 * The indexes are created only where missing: on a large PostgreSQL database
 * the operator may build them beforehand with CREATE INDEX CONCURRENTLY under
 * the same names (docs/deploy.md "Upgrading"), since a plain CREATE INDEX
 * holds the table's writes for the whole build.
 */
export const retention: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createTable('background_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text', (c) => c.notNull())
      .execute();
    for (const [table, column] of RETENTION_INDEXES) {
      await db.schema.createIndex(`${table}_${column}_idx`).ifNotExists().on(table).column(column).execute();
    }
    await quoteCallsTable.addCreatedIndex(db);
  },
});

export const RETENTION_INDEXES: ReadonlyArray<readonly [string, string]> = [
  ['authorization_codes', 'expires_at'],
  ['authorization_codes', 'family_id'],
  ['refresh_tokens', 'expires_at'],
  ['refresh_tokens', 'family_id'],
  ['token_families', 'created_at'],
  ['login_sessions', 'expires_at'],
  ['operator_sessions', 'expires_at'],
  ['auth_throttle', 'window_started_at'],
];
