import { sql } from 'kysely';
import type { MigrationFactory } from './helpers.js';

/**
 * The two claims of webhooks/claim-queries.ts, each with a partial index of
 * its own. Due deliveries held by nobody: few rows, since a delivery the
 * fan-out leases and sends is never in it, so the claim run every poll reads
 * only real work, not the row versions each success leaves behind until
 * VACUUM (on PostgreSQL an empty claim read thousands of them after a backlog:
 * docs/decisions.md D11). Deliveries under a lease, by its end: what the
 * rarer look for expired leases reads.
 */
export const claimIndexes: MigrationFactory = () => ({
  async up(db) {
    await db.schema
      .createIndex('webhook_deliveries_unleased_idx')
      .on('webhook_deliveries')
      .column('next_attempt_at')
      .where(sql.ref('state'), '=', sql.lit('pending'))
      .where(sql.ref('lease_until'), 'is', null)
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_leased_idx')
      .on('webhook_deliveries')
      .column('lease_until')
      .where(sql.ref('state'), '=', sql.lit('pending'))
      .where(sql.ref('lease_until'), 'is not', null)
      .execute();
  },
});
