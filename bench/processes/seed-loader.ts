// The seed scenario's worker: `seed` fills a fresh tenant through the
// platform's seedRecords; `rawCopy` inserts the very rows it wrote into a
// second, empty SQLite database with nothing but better-sqlite3 (the baseline:
// what the same load costs with no row generation and no query builder).
import { randomUUID } from 'node:crypto';
import * as platform from '@feira/platform';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { childOptions, serveChild } from '../lib/child-protocol.js';
import { insertBenchTenant } from './fixtures/bench-tenant.js';

export interface SeedCountsArg {
  orders: number;
  products: number;
  tickets: number;
  transactions: number;
}

export interface LoadResult {
  rows: number;
  elapsedMs: number;
  cpuMs: number;
}

interface Options {
  databaseUrl: string;
  searchPath?: string;
}

const TABLES = ['products', 'orders', 'tickets', 'transactions'] as const;
const BATCH = 500;

const options = childOptions<Options>();

/** Wall and CPU time of `work` (this process: SQLite runs on the calling thread). */
async function measured(work: () => Promise<number> | number): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const rows = await work();
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { rows, elapsedMs, cpuMs: (used.user + used.system) / 1000 };
}

serveChild(
  {},
  {
    async seed(args) {
      const counts = args as SeedCountsArg;
      const database = await platform.openDatabase(
        options.databaseUrl,
        options.searchPath ? { searchPath: options.searchPath } : {},
      );
      try {
        await platform.migrateToLatest(database);
        const { tenantId } = await insertBenchTenant(
          database,
          { sellerId: randomUUID(), tenantId: randomUUID() },
          new Date().toISOString(),
        );
        const result = await measured(
          async () =>
            (
              await platform.seedRecords(database, tenantId, counts, {
                clock: platform.systemClock,
                random: platform.cryptoRandom,
              })
            ).rows,
        );
        if (database.dialect === 'postgres') await sql`analyze`.execute(database.db);
        return result;
      } finally {
        await database.close();
      }
    },

    /** SQLite only: the same rows, prepared multi-row INSERTs in one transaction, indexes dropped and rebuilt once. */
    async rawCopy(args) {
      const { fromFile, toFile } = args as { fromFile: string; toFile: string };
      const target = await platform.openDatabase(`sqlite:${toFile}`);
      await platform.migrateToLatest(target);
      await target.close();
      const source = new SqliteDatabase(fromFile, { readonly: true });
      const db = new SqliteDatabase(toFile);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      // The seeder's load settings, so the baseline differs only in what it does per row.
      db.pragma('cache_size = -131072');
      db.pragma('temp_store = memory');
      for (const table of ['sellers', 'tenants']) {
        for (const row of source.prepare(`select * from ${table}`).all() as Array<Record<string, unknown>>) {
          const columns = Object.keys(row);
          db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`).run(
            ...Object.values(row),
          );
        }
      }
      const loaded = TABLES.map((table) => {
        const statement = source.prepare(`select * from ${table}`).raw(true);
        return { table, columns: statement.columns().map((c) => c.name), rows: statement.all() as unknown[][] };
      });
      source.close();
      try {
        return await measured(() => {
          let total = 0;
          for (const { table, columns, rows } of loaded) {
            if (rows.length === 0) continue;
            const one = `(${columns.map(() => '?').join(', ')})`;
            const insert = (n: number) =>
              db.prepare(`insert into ${table} (${columns.join(', ')}) values ${Array(n).fill(one).join(', ')}`);
            const full = insert(BATCH);
            const indexes = db
              .prepare(`select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`)
              .all(table) as Array<{ name: string; sql: string }>;
            db.transaction(() => {
              for (const index of indexes) db.exec(`drop index ${index.name}`);
              const values: unknown[] = new Array(BATCH * columns.length);
              let i = 0;
              for (; i + BATCH <= rows.length; i += BATCH) {
                let k = 0;
                for (let r = i; r < i + BATCH; r++) for (const value of rows[r] as unknown[]) values[k++] = value;
                full.run(values);
              }
              if (i < rows.length) insert(rows.length - i).run(rows.slice(i).flat());
              for (const index of indexes) db.exec(index.sql);
            })();
            total += rows.length;
          }
          return total;
        });
      } finally {
        db.close();
      }
    },
  },
);
