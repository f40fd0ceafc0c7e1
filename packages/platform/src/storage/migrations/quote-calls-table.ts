import type { Kysely } from 'kysely';

/**
 * The quote-call log's table (spec-notes Q7), written once for the two places
 * that hold it: the platform's database (migrations 0005, 0008, 0021, 0028)
 * and, on SQLite, the log's own file (shipping/quote-log/quote-log-file.ts,
 * its migrations 0001–0004), each step in both histories.
 *
 * The store's foreign key belongs to the table: a deleted store's calls go with
 * it, as every store's rows do. The log's file holds no `tenants` table to
 * point at, so there the table is created without it (`tenantKey: 'plain'`), and
 * a deleted store's calls in the file are left to the retention sweep.
 */
export const quoteCallsTable = {
  async create(db: Kysely<unknown>, tenantKey: 'references' | 'plain'): Promise<void> {
    await db.schema
      .createTable('quote_calls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) =>
        tenantKey === 'references' ? c.notNull().references('tenants.id').onDelete('cascade') : c.notNull(),
      )
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('latency_ms', 'double precision', (c) => c.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('detail', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // The admin list is per tenant, newest first, with id as the keyset tie-breaker.
    await db.schema
      .createIndex('quote_calls_tenant_created_idx')
      .on('quote_calls')
      .columns(['tenant_id', 'created_at', 'id'])
      .execute();
  },
  /** spec-notes Q8: backup rates are marked on the failed call's row. */
  async addFallbackUsed(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('quote_calls')
      .addColumn('fallback_used', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  /** D57: the gateway kind of a gateway call. */
  async addGatewayKind(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('quote_calls').addColumn('gateway_kind', 'text').execute();
  },
  /** The retention sweep finds the oldest calls through it. */
  async addCreatedIndex(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('quote_calls_created_at_idx').on('quote_calls').column('created_at').execute();
  },
};
