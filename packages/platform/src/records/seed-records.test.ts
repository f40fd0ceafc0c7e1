import { Order, Product, Ticket, Transaction } from '@feira/contract';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID_V7_PATTERN } from '../core/uuid-v7.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { seedRecords } from './seed-records.js';

// `feira seed` fills a database fast for demos and benchmarks; these
// check what the seeded data looks like through the API.

describe.each(testDatabaseTargets())('seedRecords on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let token: string;

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    token = await platform.mintAccessToken({
      tenants: [tenantId],
      scopes: ['open:order-order:read', 'open:portfolio:read', 'open:ticket:read', 'open:financial-transaction:read'],
    });
  });
  afterAll(() => platform?.close());

  const deps = () => ({ clock: platform.clock, random: platform.app.platform.random, batchSize: 97 });
  const list = async (path: string) =>
    (await platform.app.inject({ url: path, headers: { authorization: `Bearer ${token}` } })).json();

  it('creates the requested counts, readable through the list APIs as valid contract records, in committed batches', async () => {
    const progress: number[] = [];
    const result = await seedRecords(
      platform.database,
      tenantId,
      { orders: 1000, products: 300, tickets: 120, transactions: 450 },
      { ...deps(), onProgress: (written) => progress.push(written) },
    );
    expect(result.rows).toBe(1870);
    expect(progress.at(-1)).toBe(1870);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    for (const [table, path, schema, count] of [
      ['orders', '/v1/orders', Order, 1000],
      ['products', '/seller/v1/products', Product, 300],
      ['tickets', '/seller/v0/tickets', Ticket, 120],
      ['transactions', '/seller/v1/financial-analysis/transactions', Transaction, 450],
    ] as const) {
      const rows = await platform.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      expect(Number(rows.n), path).toBe(count);
      const page = await list(`${path}?_limit=100`);
      expect(page.results).toHaveLength(100);
      for (const record of page.results) expect(Value.Check(schema, record), JSON.stringify(record)).toBe(true);
    }
    // Spread over the year before now, never in the future.
    const newest = (await list('/v1/orders?_limit=1&_sort=created_at:desc')).results[0];
    const oldest = (await list('/v1/orders?_limit=1&_sort=created_at:asc')).results[0];
    expect(newest.created_at <= platform.clock.now().toISOString()).toBe(true);
    expect(Date.parse(newest.created_at) - Date.parse(oldest.created_at)).toBeGreaterThan(300 * 24 * 3600 * 1000);
  });

  it('gives every row a distinct UUID v7 and timestamps in order (created ≤ updated ≤ now), and restores the connection settings', async () => {
    const pragmas = async () =>
      platform.database.dialect === 'sqlite'
        ? [
            (await sql`pragma cache_size`.execute(platform.database.db)).rows,
            (await sql`pragma temp_store`.execute(platform.database.db)).rows,
          ]
        : [];
    const before = await pragmas();
    const tenant = (await platform.createSeller()).tenantIds[0] as string;
    await seedRecords(platform.database, tenant, { tickets: 300, transactions: 300 }, deps());
    expect(await pragmas()).toEqual(before);
    const now = platform.clock.now().toISOString();
    for (const table of ['tickets', 'transactions'] as const) {
      const rows = await platform.database.db
        .selectFrom(table)
        .select(['id', 'created_at', 'updated_at'])
        .where('tenant_id', '=', tenant)
        .execute();
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r.id)).size).toBe(300);
      for (const row of rows) {
        expect(row.id).toMatch(UUID_V7_PATTERN);
        expect(Number.parseInt(row.id.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse(row.created_at));
        expect(row.created_at <= row.updated_at && row.updated_at <= now, JSON.stringify(row)).toBe(true);
      }
    }
  });

  it('writes no outbox events (fixtures, not marketplace changes), and a second run for the same tenant does not collide', async () => {
    const before = await platform.database.db.selectFrom('outbox_events').select('id').execute();
    await seedRecords(platform.database, tenantId, { products: 50, orders: 50 }, deps());
    const after = await platform.database.db.selectFrom('outbox_events').select('id').execute();
    expect(after.length).toBe(before.length);
    const skus = await platform.database.db.selectFrom('products').select('sku').where('tenant_id', '=', tenantId).execute();
    expect(new Set(skus.map((s) => s.sku)).size).toBe(skus.length);
  });

  it('a bulk load (drop indexes, insert, rebuild once) leaves every list index in place and the lists correct', async () => {
    // One platform per database here: two test schemas open at once trip storage/migrate.ts (see the report).
    const tenant = (await platform.createSeller()).tenantIds[0] as string;
    const before = await dialectAdapter(platform.database).secondaryIndexes(platform.database.db, 'orders');
    expect(before.length).toBeGreaterThan(5);
    const existing = await platform.database.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const n = Number(existing.n) + 200;
    const progress: number[] = [];
    await seedRecords(
      platform.database,
      tenant,
      { orders: n },
      { ...deps(), bulkThreshold: 100, onProgress: (written) => progress.push(written) },
    );
    expect(progress.at(-1)).toBe(n);
    const after = await dialectAdapter(platform.database).secondaryIndexes(platform.database.db, 'orders');
    expect(after.map((i) => i.name).sort()).toEqual(before.map((i) => i.name).sort());
    const reader = await platform.mintAccessToken({ tenants: [tenant], scopes: ['open:order-order:read'] });
    const page = await platform.app.inject({
      url: '/v1/orders?status=new&_limit=100',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(page.json().results.length).toBeGreaterThan(50);
    expect(page.json().results.every((o: { status: string }) => o.status === 'new')).toBe(true);
  });

  it('refuses an unknown tenant with a 404-class error and writes nothing', async () => {
    await expect(seedRecords(platform.database, 'no-such-tenant', { orders: 5 }, deps())).rejects.toMatchObject({
      slug: 'NOT_FOUND',
    });
  });
});
