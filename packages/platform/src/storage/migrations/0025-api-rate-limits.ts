import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * Per-app API rate limits (spec-notes I20):
 * - `clients.rate_limit_per_second` and `rate_limit_burst`: the limit the
 *   operator set for the app; null takes the platform's default;
 * - `api_rate_buckets`: one token bucket per app and store (or, for a
 *   personal token, per app and seller), kept as its GCRA theoretical arrival
 *   time in milliseconds since the epoch, so every API process on the
 *   database shares it (accounts/api-rate-limit.ts).
 *
 * On PostgreSQL the bucket table is UNLOGGED: a bucket is written on every
 * limited request, and what a crash loses of it is only how much of a burst
 * each app had used (the buckets start full again), so it skips the WAL.
 */
export const apiRateLimits: MigrationFactory = (dialect) => ({
  async up(db) {
    await db.schema.alterTable('clients').addColumn('rate_limit_per_second', 'integer').execute();
    await db.schema.alterTable('clients').addColumn('rate_limit_burst', 'integer').execute();
    const unlogged = dialect === 'postgres' ? sql`unlogged` : sql``;
    await sql`create ${unlogged} table api_rate_buckets (
      client_id text not null,
      bucket text not null,
      tat double precision not null,
      requests_per_second integer not null,
      burst integer not null,
      admitted integer not null,
      primary key (client_id, bucket)
    )`.execute(db);
  },
});
