import { type Kysely, sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import { UUID_V7_RANDOM_BYTES, uuidV7 } from '../core/uuid-v7.js';
import type { Database } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import type { Schema } from '../storage/schema.js';
import { multiRowInsert } from '../storage/statement-shapes.js';
import { withIndexesRebuiltAfter } from './bulk-load-indexes.js';
import type { RecordKeyColumn, RecordKind, RecordTable, SeedRowContext } from './record-kind.js';
import { BUILT_IN_RECORD_KINDS, type RecordKindRegistry } from './record-kinds.js';
import { assertTenantExists } from './record-write.js';
import { fastGenerator, isoTimestamps } from './seed-records-values.js';

/** How many records of each kind to create, by table name. */
export type SeedCounts = Partial<Record<RecordTable, number>>;

export interface SeedDeps {
  clock: Clock;
  random: Random;
  /** Called after every committed batch with the rows written so far and the total. */
  onProgress?(written: number, total: number): void;
  /** From this many rows (default 10,000), a load into a table holding fewer rows rebuilds its indexes once after. */
  bulkThreshold?: number;
  /** Rows per INSERT statement (default 500; kept under both dialects' bound-parameter limits). */
  batchSize?: number;
  /** The kinds to seed, in their order (default: the platform's; D89). */
  kinds?: RecordKindRegistry;
}

export interface SeedResult {
  counts: Required<SeedCounts>;
  rows: number;
  elapsedMs: number;
}

const BATCHES_PER_TRANSACTION = 20;
/**
 * From this many rows (and at least as many as the table holds), indexes are
 * rebuilt once after the load: on SQLite the rebuild already costs less CPU
 * from a few thousand rows per table (docs/decisions.md D26). Not lower, because
 * on PostgreSQL the rebuild's DROP INDEX makes readers of the table wait for
 * the whole load.
 */
const BULK_THRESHOLD = 10_000;
const SPREAD_MS = 365 * 24 * 3600 * 1000;
const UPDATE_SPREAD_MS = 3 * 24 * 3600 * 1000;
/** Ids of each kind kept for later kinds to refer to (tickets and transactions name orders). */
const KEPT_IDS = 10_000;

/** The key columns the seeder writes itself, around the kind's own columns. */
const LEADING: readonly RecordKeyColumn[] = ['id', 'tenant_id'];
const TRAILING: readonly RecordKeyColumn[] = ['created_at', 'updated_at'];

/**
 * One table's rows as flat bound parameters: `fill` writes row `i`'s values at
 * `values[at …]` in `columns` order, taking its id's random bits from `ids[idAt …]`.
 */
interface TableLoad {
  table: RecordTable;
  columns: readonly string[];
  count: number;
  fill(values: unknown[], at: number, i: number, ids: Uint8Array, idAt: number): void;
}

interface BulkInsertOptions {
  batchSize: number;
  bulkThreshold: number;
  random: Random;
  /** Called after every committed batch with the number of rows it wrote. */
  onBatch(rows: number): void;
}

/**
 * Inserts a table's rows fast: one multi-row INSERT per batch length,
 * compiled once (storage/statement-shapes.ts) and bound with a flat array of
 * values (no per-row objects, no per-row query building), many batches per
 * transaction.
 * A large load into a smaller table drops the list indexes and rebuilds each
 * once at the end instead of updating them row by row.
 */
async function bulkInsert(database: Database, load: TableLoad, options: BulkInsertOptions): Promise<void> {
  const { table, columns, count: n } = load;
  if (n === 0) return;
  const { batchSize } = options;
  const width = columns.length;
  const shapes = multiRowInsert<Schema>(`seed insert into ${table}`, table, columns);
  const insertRange = async (trx: Kysely<Schema>, from: number, to: number) => {
    for (let b = from; b < to; b += batchSize) {
      const rows = Math.min(to, b + batchSize) - b;
      const ids = options.random.bytes(rows * UUID_V7_RANDOM_BYTES);
      // A fresh array per batch: Kysely freezes a compiled query's parameters.
      const values: unknown[] = new Array(rows * width);
      for (let r = 0; r < rows; r++) load.fill(values, r * width, b + r, ids, r * UUID_V7_RANDOM_BYTES);
      await trx.executeQuery(shapes.query(trx, database.dialect, rows, values));
    }
    options.onBatch(to - from);
  };
  const chunk = batchSize * BATCHES_PER_TRANSACTION;
  const existing = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
  if (n >= options.bulkThreshold && n >= Number(existing.rows[0]?.n ?? 0)) {
    // A large load into a smaller table: one transaction that drops the list indexes, inserts
    // and rebuilds them once. A crash rolls all of it back, indexes included (DDL is
    // transactional on both dialects). SQLite readers see the table as it was until the commit;
    // PostgreSQL readers of this table wait for it (DROP INDEX locks the table).
    await database.db.transaction().execute(async (trx) => {
      // More memory for the index builds made large loads faster (docs/decisions.md D26).
      await dialectAdapter(database).prepareBulkLoad(trx);
      await withIndexesRebuiltAfter<Schema, void>(trx, database.dialect, table, async () => {
        for (let start = 0; start < n; start += chunk) await insertRange(trx, start, Math.min(n, start + chunk));
      });
    });
    return;
  }
  for (let start = 0; start < n; start += chunk) {
    await database.db.transaction().execute((trx) => insertRange(trx, start, Math.min(n, start + chunk)));
  }
}

function requestedCounts(kinds: RecordKindRegistry, counts: SeedCounts): Required<SeedCounts> {
  const want = Object.fromEntries(kinds.kinds.map((kind) => [kind.table, counts[kind.table] ?? 0])) as Required<SeedCounts>;
  for (const [name, n] of Object.entries(want)) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name}: the count must be a non-negative integer`);
  }
  return want;
}

/**
 * Fills a tenant with plausible records of every kind, fast: each kind's seed
 * generator (records/kinds/) writes its own columns, this writes the id (a
 * UUID v7 of its creation time, so keys append), the tenant and the
 * timestamps, spread over the year before `clock.now()`, and `bulkInsert`
 * loads them. Used by `feira seed`, the demo seed and the benchmarks. Seeded
 * rows are fixtures, not marketplace changes: no outbox events are written, so
 * seeding a million orders sends no webhooks.
 */
export async function seedRecords(database: Database, tenantId: string, counts: SeedCounts, deps: SeedDeps): Promise<SeedResult> {
  await assertTenantExists(database.db, tenantId);
  const kinds = deps.kinds ?? BUILT_IN_RECORD_KINDS;
  const want = requestedCounts(kinds, counts);
  const total = Object.values(want).reduce((sum, n) => sum + n, 0);
  const next = fastGenerator(deps.random.bytes(4).readUInt32BE(0));
  const pick = <V>(values: readonly V[]): V => values[Math.floor(next() * values.length)] as V;
  const kept = new Map<RecordTable, string[]>();
  const context: SeedRowContext = {
    next,
    pick,
    // A run tag keeps SKUs and order codes unique when a tenant is seeded twice.
    run: deps.random.bytes(3).toString('hex').toUpperCase(),
    seededId: (table) => {
      const ids = kept.get(table);
      return ids && ids.length > 0 ? pick(ids) : null;
    },
  };
  const iso = isoTimestamps();
  const nowMs = deps.clock.now().getTime();
  const started = process.hrtime.bigint();
  let written = 0;

  /** The load of one kind: key columns and timestamps here, the kind's own columns from its generator. */
  const loadOf = (kind: RecordKind<RecordTable, unknown, unknown, unknown>): TableLoad => {
    const n = want[kind.table];
    const ids: string[] = [];
    kept.set(kind.table, ids);
    const ownAt = LEADING.length;
    const createdAt = ownAt + kind.seed.columns.length;
    return {
      table: kind.table,
      columns: [...LEADING, ...kind.seed.columns, ...TRAILING],
      count: n,
      fill(v, at, i, random, randomAt) {
        // Row i of n: created in its slot of the year before now, updated up to three days later (never after now).
        const created = nowMs - SPREAD_MS + Math.floor(((i + next()) * SPREAD_MS) / Math.max(n, 1));
        const id = uuidV7(created, random, randomAt);
        if (ids.length < KEPT_IDS) ids.push(id);
        v[at] = id;
        v[at + 1] = tenantId;
        kind.seed.fill(v, at + ownAt, i, context);
        v[at + createdAt] = iso(created);
        v[at + createdAt + 1] = iso(Math.min(nowMs, created + Math.floor(next() * UPDATE_SPREAD_MS)));
      },
    };
  };

  await dialectAdapter(database).withBulkLoadSettings(database.db, async () => {
    for (const kind of kinds.kinds) {
      await bulkInsert(database, loadOf(kind), {
        batchSize: deps.batchSize ?? 500,
        bulkThreshold: deps.bulkThreshold ?? BULK_THRESHOLD,
        random: deps.random,
        onBatch: (rows) => {
          written += rows;
          deps.onProgress?.(written, total);
        },
      });
    }
  });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { counts: want, rows: written, elapsedMs };
}
