import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { testDatabaseTargets } from './test-databases.js';

describe.each(testDatabaseTargets())('migrations on $dialect', (target) => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('creates every table, and running them again changes nothing (idempotent at start)', async () => {
    database = await target.open();
    const tables = (await database.db.introspection.getTables()).map((t) => t.name);
    for (const table of [
      'sellers',
      'tenants',
      'clients',
      'signing_keys',
      'token_families',
      'orders',
      'products',
      'tickets',
      'transactions',
      'outbox_events',
    ]) {
      expect(tables).toContain(table);
    }
    expect(await migrateToLatest(database)).toEqual([]);
  });

  it('gives outbox events increasing sequence numbers (serial key on both dialects)', async () => {
    database = await target.open();
    for (const id of ['a', 'b']) {
      await database.db
        .insertInto('outbox_events')
        .values({
          id,
          tenant_id: 't',
          topic: 'order',
          status: 'CREATION',
          record_id: 'r',
          resource: '/v1/orders/r',
          body: '{}',
          created_at: '2026-01-01T00:00:00.000Z',
          dispatched_at: null,
        })
        .execute();
    }
    const rows = await database.db.selectFrom('outbox_events').select(['id', 'seq']).orderBy('seq').execute();
    expect(rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(typeof rows[0]?.seq).toBe('number');
    expect(rows[1]!.seq).toBeGreaterThan(rows[0]!.seq);
  });
});

describe('migrations on PostgreSQL beside another Feira schema', () => {
  const url = process.env.FEIRA_TEST_DATABASE_URL;
  it.runIf(url)('keep their bookkeeping tables in their own schema, so a second schema on the server migrates too', async () => {
    const { openPostgresTestDatabase } = await import('./test-databases.js');
    // Two schemas open at once on one server: before migrationTableSchema was set,
    // the second failed with `relation "kysely_migration_lock" does not exist`.
    const first = await openPostgresTestDatabase(url as string);
    try {
      const second = await openPostgresTestDatabase(url as string);
      try {
        const tables = (await second.db.introspection.getTables()).map((t) => t.name);
        expect(tables).toContain('outbox_events');
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
