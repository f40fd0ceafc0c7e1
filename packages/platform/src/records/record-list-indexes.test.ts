import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { cryptoRandom } from '../core/random.js';
import { runList } from '../lists/list-engine.js';
import { type Database, openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import type { Schema } from '../storage/schema.js';
import { sqlitePlan } from '../storage/test-query-plans.js';
import { searchStoreRecords } from './record-search.js';
import { seedRecords } from './seed-records.js';
import { recordListSortCases, recordSearchCases, searchTermOf } from './test-support/record-list-sorts.js';

// "Fetching page 1,000 costs what page 1 costs" and "indexes so that
// every allowed sort stays fast at a million rows". Checked on the query plan:
// for every allowed sort, in both directions, the first page and a cursor page
// are one index range scan on (tenant_id, sort column, id), never a sort of the
// tenant's rows (SQLite's "USE TEMP B-TREE FOR ORDER BY").

const settings = { publicUrl: 'http://127.0.0.1:8080', secretKey: 'index-usage-test-secret' };

describe('list queries use the list indexes (SQLite query plans)', () => {
  const file = join(tmpdir(), `feira-plan-${randomBytes(6).toString('hex')}.db`);
  let database: Database;
  let raw: SqliteDatabase.Database;
  let logged: Kysely<Schema>;
  const captured: CompiledQuery[] = [];

  beforeAll(async () => {
    database = await openDatabase(`sqlite:${file}`);
    await migrateToLatest(database);
    const now = '2026-01-15T12:00:00.000Z';
    await database.db
      .insertInto('sellers')
      .values({ id: 's', name: 'S', login: 's', password_hash: 'x', created_at: now })
      .execute();
    await database.db.insertInto('tenants').values({ id: 't', seller_id: 's', name: 'T', created_at: now }).execute();
    await seedRecords(
      database,
      't',
      { orders: 30, products: 30, tickets: 30, transactions: 30 },
      { clock: new ManualClock(), random: cryptoRandom },
    );
    raw = new SqliteDatabase(file);
    logged = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
  });
  afterAll(async () => {
    await logged?.destroy();
    await database?.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  });

  const cases = recordListSortCases();

  it.each(cases)(
    'L4 (keyset): %s sorted by %s %s: first page and cursor page are index range scans',
    async (table, field, direction, list) => {
      captured.length = 0;
      const base = () => logged.selectFrom(table).selectAll().where('tenant_id', '=', 't');
      const first = await runList(
        list,
        base(),
        { query: { _paginate: 'cursor', _limit: '5', _sort: `${field}:${direction}` }, url: '/x' },
        settings,
      );
      const next = new URL(first.meta.links.next as string);
      await runList(list, base(), { query: Object.fromEntries(next.searchParams), url: '/x' }, settings);
      expect(captured).toHaveLength(2);
      for (const [page, query] of captured.entries()) {
        const plan = sqlitePlan(raw, query);
        expect(plan.join(' | ')).not.toMatch(/TEMP B-TREE/);
        // sku is unique per tenant: the (tenant_id, sku) constraint index serves that sort as well.
        expect(plan.join(' | ')).toMatch(
          new RegExp(
            `SEARCH ${table} USING (COVERING )?INDEX (${table}_tenant_\\w+_idx|sqlite_autoindex_${table}_\\d) \\(tenant_id=`,
          ),
        );
        // The cursor page starts its index range at the position (page N costs what page 1 costs).
        if (page === 1) expect(plan.join(' | ')).toMatch(/\(tenant_id=\? AND \w+[<>]\?\)/);
      }
    },
  );

  it.each(recordSearchCases())(
    'D155: a search of %s by %s (%s) finds the record through one index range, never a scan or a sort',
    async (table, _field, match, kind, column) => {
      const row = (await database.db
        .selectFrom(table)
        .selectAll()
        .where('tenant_id', '=', 't')
        .where(column as 'id', 'is not', null)
        // The first in the column's order: a prefix's first result.
        .orderBy(column as 'id')
        .orderBy('id')
        .executeTakeFirstOrThrow()) as Record<string, unknown>;
      captured.length = 0;
      const term = searchTermOf(row, column, match);
      const found = await searchStoreRecords(logged, kind, 't', term, 5);
      const ids = (found.results as Array<{ id: string }>).map((r) => r.id);
      // Whatever else it found matches too (the id field by the record's id, the others by their column).
      expect(ids.includes(row.id as string) || found.more).toBe(true);
      const values = await database.db
        .selectFrom(table)
        .select(column as 'id')
        .where('id', 'in', ids)
        .execute();
      for (const value of values) {
        const text = String((value as Record<string, unknown>)[column]);
        if (match === 'exact') expect(text).toBe(term);
        else expect(text.startsWith(term)).toBe(true);
      }
      for (const query of captured) {
        const plan = sqlitePlan(raw, query).join(' | ');
        expect(plan).not.toMatch(/TEMP B-TREE|^SCAN|\| SCAN/);
        // The search reads each of the kind's fields in turn: the id by the primary key, every other field by
        // an index it leads after tenant_id.
        expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX \\w+ \\((id=\\?|tenant_id=\\? AND \\w+[=>])`));
      }
    },
  );
});
