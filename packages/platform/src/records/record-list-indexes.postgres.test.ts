import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { cryptoRandom } from '../core/random.js';
import { runList } from '../lists/list-engine.js';
import type { Database } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { type PlanNode, postgresPlanNodes } from '../storage/test-query-plans.js';
import { openPostgresTestDatabase } from '../test-databases.js';
import type { AnyRecordList } from './record-kind.js';
import { recordKindOf } from './record-kinds.js';
import { searchStoreRecords } from './record-search.js';
import { seedRecords } from './seed-records.js';
import { recordListSortCases, recordSearchCases, searchTermOf } from './test-support/record-list-sorts.js';

// The PostgreSQL twin of record-list-indexes.test.ts: "indexes so that
// every allowed sort stays fast at a million rows", and the common filters
// (status, dates, customer.id, sku, order id) with them. Checked on EXPLAIN
// (FORMAT JSON): the tenant's rows are read through an index range scan on
// tenant_id, in the order the list asks for (no Sort node), for the first page
// and a cursor page.
//
// Why `enable_seqscan = off` instead of a million seeded rows: on a few
// thousand rows the planner rightly prefers a sequential scan and a sort, and a
// million rows would take minutes per run. Turning sequential scans off (and
// bitmap scans, which return rows out of index order) leaves the cost model
// otherwise intact, so the plan answers "can an index serve this query in
// order?"; if none can, PostgreSQL still falls back to a scan plus a Sort node,
// which this test rejects. That is the property that keeps page 1,000 as cheap
// as page 1 at a million rows.

const url = process.env.FEIRA_TEST_DATABASE_URL;
const settings = { publicUrl: 'http://127.0.0.1:8080', secretKey: 'index-usage-test-secret' };

describe.runIf(url)('list queries use the list indexes (PostgreSQL query plans)', () => {
  let database: Database;
  let logged: Kysely<Schema>;
  let explainer: pg.Client;
  const captured: CompiledQuery[] = [];
  let sample: { sku: string; customer: string; order: string; created: string };

  beforeAll(async () => {
    database = await openPostgresTestDatabase(url as string);
    const now = '2026-01-15T12:00:00.000Z';
    for (const t of ['t', 'other']) {
      await database.db
        .insertInto('sellers')
        .values({ id: `s-${t}`, name: 'S', login: `s-${t}`, password_hash: 'x', created_at: now })
        .execute();
      await database.db
        .insertInto('tenants')
        .values({ id: t, seller_id: `s-${t}`, name: 'T', created_at: now })
        .execute();
      await seedRecords(
        database,
        t,
        { orders: 2000, products: 500, tickets: 500, transactions: 1000 },
        { clock: new ManualClock(), random: cryptoRandom },
      );
    }
    await sql`analyze`.execute(database.db);
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema;
    const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
    logged = new Kysely<Schema>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    explainer = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await explainer.connect();
    await explainer.query('set enable_seqscan = off');
    await explainer.query('set enable_bitmapscan = off');
    const order = await database.db
      .selectFrom('orders')
      .select(['id', 'customer_id', 'created_at'])
      .where('tenant_id', '=', 't')
      .executeTakeFirstOrThrow();
    const product = await database.db.selectFrom('products').select('sku').where('tenant_id', '=', 't').executeTakeFirstOrThrow();
    sample = { sku: product.sku, customer: order.customer_id, order: order.id, created: order.created_at };
  });
  afterAll(async () => {
    await explainer?.end();
    await logged?.destroy();
    await database?.close();
  });

  /** Runs the list's first page and the cursor page after it; returns each query's plan. */
  const plans = async (table: keyof Schema & string, list: AnyRecordList, query: Record<string, string>) => {
    captured.length = 0;
    const base = () => logged.selectFrom(table).selectAll().where('tenant_id', '=', 't');
    const first = await runList(list, base(), { query: { _paginate: 'cursor', _limit: '5', ...query }, url: '/x' }, settings);
    const next = first.meta.links.next;
    if (next) await runList(list, base(), { query: Object.fromEntries(new URL(next).searchParams), url: '/x' }, settings);
    expect(captured.length).toBeGreaterThan(0);
    const result: PlanNode[][] = [];
    for (const compiled of captured) result.push(await postgresPlanNodes(explainer, compiled));
    return result;
  };

  const expectIndexRangeScans = (table: string, pagePlans: PlanNode[][], leading?: string, uniqueMatch = false) => {
    for (const plan of pagePlans) {
      const types = plan.map((n) => n['Node Type']);
      // An equality on a unique key (sku: products_tenant_sku_unique) finds at most one row, which may be sorted.
      if (!uniqueMatch) expect(types, JSON.stringify(plan)).not.toContain('Sort');
      expect(types, JSON.stringify(plan)).not.toContain('Incremental Sort');
      const scans = plan.filter((n) => n['Relation Name'] === table);
      expect(scans.length, JSON.stringify(plan)).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(['Index Scan', 'Index Only Scan'], JSON.stringify(scan)).toContain(scan['Node Type']);
        expect(scan['Index Cond'] ?? '', JSON.stringify(scan)).toMatch(/tenant_id = /);
        if (leading) expect(scan['Index Cond'] ?? '', JSON.stringify(scan)).toMatch(new RegExp(`${leading} `));
      }
    }
  };

  const sortCases = recordListSortCases();

  it.each(sortCases)(
    'L4 (keyset): %s sorted by %s %s: first page and cursor page are index range scans, no sort',
    async (table, field, direction, list) => {
      expectIndexRangeScans(table, await plans(table, list, { _sort: `${field}:${direction}` }));
    },
  );

  // Common filters with the list's default sort: the filter is an index condition, not a filter over every row.
  const filterCases = (): Array<[string, keyof Schema & string, AnyRecordList, Record<string, string>, string]> => [
    ['orders status', 'orders', recordKindOf('orders').list, { status: 'approved' }, 'status'],
    [
      'orders status, newest first',
      'orders',
      recordKindOf('orders').list,
      { status: 'approved', _sort: 'created_at:desc' },
      'status',
    ],
    ['orders customer.id', 'orders', recordKindOf('orders').list, { 'customer.id': sample.customer }, 'customer_id'],
    ['orders created_at range', 'orders', recordKindOf('orders').list, { created_at__gte: sample.created }, 'created_at'],
    ['products sku', 'products', recordKindOf('products').list, { sku: sample.sku }, 'sku'],
    [
      'products updated_at range',
      'products',
      recordKindOf('products').list,
      { updated_at__lt: sample.created, _sort: 'updated_at:asc' },
      'updated_at',
    ],
    ['tickets status', 'tickets', recordKindOf('tickets').list, { status: 'open' }, 'status'],
    ['tickets customer.id', 'tickets', recordKindOf('tickets').list, { 'customer.id': sample.customer }, 'customer_id'],
    ['transactions type', 'transactions', recordKindOf('transactions').list, { type: 'sale' }, 'type'],
    [
      'transactions created_at range',
      'transactions',
      recordKindOf('transactions').list,
      { created_at__lt: sample.created },
      'created_at',
    ],
  ];

  it('common filters (status, dates, customer.id, sku, type) are index conditions on a tenant range, no sort', async () => {
    for (const [name, table, list, query, column] of filterCases()) {
      const pagePlans = await plans(table, list, query);
      try {
        expectIndexRangeScans(table, pagePlans, column, column === 'sku');
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    }
  });

  it.each(recordSearchCases())(
    'D155: a search of %s by %s (%s) reads index ranges only (tenant_id and the column, or the primary key), no sort',
    async (table, _field, match, kind, column) => {
      const row = (await database.db
        .selectFrom(table)
        .selectAll()
        .where('tenant_id', '=', 't')
        .where(column as 'id', 'is not', null)
        .executeTakeFirstOrThrow()) as Record<string, unknown>;
      captured.length = 0;
      const found = await searchStoreRecords(logged, kind, 't', searchTermOf(row, column, match), 5);
      expect((found.results as Array<{ id: string }>).map((r) => r.id).includes(row.id as string) || found.more).toBe(true);
      expect(captured.length).toBeGreaterThan(0);
      for (const compiled of captured) {
        const plan = await postgresPlanNodes(explainer, compiled);
        const types = plan.map((n) => n['Node Type']);
        expect(types, JSON.stringify(plan)).not.toContain('Sort');
        for (const scan of plan.filter((n) => n['Relation Name'] === table)) {
          expect(['Index Scan', 'Index Only Scan'], JSON.stringify(scan)).toContain(scan['Node Type']);
          expect(scan['Index Cond'] ?? '', JSON.stringify(scan)).toMatch(/^\(id = |^\(\(tenant_id = [^)]*\) AND \(\w+ (=|>=) /);
        }
      }
    },
  );
});
