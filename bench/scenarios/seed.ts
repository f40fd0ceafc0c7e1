import { join } from 'node:path';
import { benchDatabase, postgresMissing } from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import type { LoadResult, SeedCountsArg } from '../processes/seed-loader.js';

const LOADER = new URL('../processes/seed-loader.ts', import.meta.url);
const TARGET = 50_000;

/**
 * Quick mode stays small (a CI smoke): its orders load is just over the bulk
 * threshold (50,000 rows: indexes rebuilt once after), its mix is under it.
 */
const LOADS: Record<'full' | 'quick', Array<{ name: string; counts: SeedCountsArg }>> = {
  full: [
    { name: '1,000,000 orders', counts: { orders: 1_000_000, products: 0, tickets: 0, transactions: 0 } },
    { name: 'mix of 4 × 250,000', counts: { orders: 250_000, products: 250_000, tickets: 250_000, transactions: 250_000 } },
  ],
  quick: [
    { name: '60,000 orders', counts: { orders: 60_000, products: 0, tickets: 0, transactions: 0 } },
    { name: 'mix of 4 × 10,000', counts: { orders: 10_000, products: 10_000, tickets: 10_000, transactions: 10_000 } },
  ],
};

const rate = (r: LoadResult) => round(r.rows / (r.elapsedMs / 1000), 0);
const cpuRate = (r: LoadResult) => round(r.rows / (r.cpuMs / 1000), 0);

async function inProcess<T>(ctx: ScenarioContext, label: string, options: object, op: string, args: unknown): Promise<T> {
  const child = await ctx.children.start(label, LOADER, { options });
  try {
    return await child.call<T>(op, args, 3_600_000);
  } finally {
    ctx.peakRssBytes[label] = child.peakRss();
    await child.stop();
  }
}

/**
 * BENCHMARKS.md, "Seed": `feira seed` fills a database fast (target ≥ 50,000 rows/s on SQLite).
 * seedRecords (what `feira seed` runs) against the baseline of the same run:
 * the rows it wrote, inserted into an empty database by raw better-sqlite3
 * (prepared 500-row INSERTs, one transaction, indexes rebuilt after). Each
 * load runs in a process of its own. Rows per CPU-second are reported too:
 * on a shared machine they vary less than rows per second.
 */
export const seed: Scenario = {
  id: 'seed',
  title: 'Seed (feira seed)',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const figures: Figure[] = [];
    for (const [n, load] of LOADS[ctx.mode].entries()) {
      const from = join(ctx.scratchDir, `seed-${n}.db`);
      const to = join(ctx.scratchDir, `seed-${n}-raw.db`);
      ctx.log(`SQLite: seeding ${load.name}`);
      const seeded = await inProcess<LoadResult>(ctx, 'seeder (SQLite)', { databaseUrl: `sqlite:${from}` }, 'seed', load.counts);
      ctx.log(`SQLite: raw better-sqlite3 insert of the same rows`);
      const raw = await inProcess<LoadResult>(ctx, 'raw insert (SQLite)', {}, 'rawCopy', { fromFile: from, toFile: to });
      figures.push(
        figure(`SQLite ${load.name}`, rate(seeded), 'rows/s', {
          baseline: { name: 'raw better-sqlite3 insert of the same rows', value: rate(raw), unit: 'rows/s' },
          target: { text: `≥ ${TARGET.toLocaleString('en-US')} rows/s`, met: rate(seeded) >= TARGET },
        }),
        figure(`SQLite ${load.name}, per CPU-second`, cpuRate(seeded), 'rows/CPU-s', {
          baseline: { name: 'raw better-sqlite3 insert of the same rows', value: cpuRate(raw), unit: 'rows/CPU-s' },
        }),
      );
    }
    const missing = await postgresMissing(ctx);
    if (missing) {
      ctx.notes.push(`PostgreSQL: ${missing}`);
      return figures;
    }
    const load = LOADS[ctx.mode][1] as (typeof LOADS)['full'][number];
    const database = await benchDatabase(ctx, 'postgres', 'seed');
    try {
      ctx.log(`PostgreSQL: seeding ${load.name}`);
      const seeded = await inProcess<LoadResult>(
        ctx,
        'seeder (PostgreSQL)',
        { databaseUrl: database.url, ...(database.searchPath ? { searchPath: database.searchPath } : {}) },
        'seed',
        load.counts,
      );
      figures.push(figure(`PostgreSQL ${load.name}`, rate(seeded), 'rows/s'));
    } finally {
      await database.drop();
    }
    return figures;
  },
};
