import { ORDER_STATUSES, TICKET_STATUSES, TRANSACTION_TYPES } from '@feira/contract';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import { PlatformError } from '../core/platform-error.js';
import type { Random } from '../core/random.js';
import type { Database } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { withIndexesRebuiltAfter } from './bulk-load-indexes.js';
import { fastGenerator, isoTimestamps, UUID_V7_RANDOM_BYTES, uuidV7 } from './seed-records-values.js';

/** How many records of each collection to create. */
export interface SeedCounts {
  orders?: number;
  products?: number;
  tickets?: number;
  transactions?: number;
}

export type SeedCollection = keyof SeedCounts;

export interface SeedDeps {
  clock: Clock;
  random: Random;
  /** Called after every committed batch with the rows written so far and the total. */
  onProgress?(written: number, total: number): void;
  /** From this many rows (default 10,000), a load into a table holding fewer rows rebuilds its indexes once after. */
  bulkThreshold?: number;
  /** Rows per INSERT statement (default 500; kept under both dialects' bound-parameter limits). */
  batchSize?: number;
}

export interface SeedResult {
  counts: Required<SeedCounts>;
  rows: number;
  elapsedMs: number;
}

const BATCHES_PER_TRANSACTION = 20;
/**
 * From this many rows (and at least as many as the table holds), indexes are rebuilt once after the load.
 * Measured on SQLite into empty tables: rebuilding already costs less CPU at 2,000 rows per table (a mix of
 * 4 × 2,000: 15% less) and at 10,000 (4 × 10,000: 13–24% less). Not lower, because on PostgreSQL the
 * rebuild's DROP INDEX makes readers of the table wait for the whole load.
 */
const BULK_THRESHOLD = 10_000;
const SPREAD_MS = 365 * 24 * 3600 * 1000;
const UPDATE_SPREAD_MS = 3 * 24 * 3600 * 1000;
const CENTRES = ['dc-sp', 'dc-rj'] as const;
const SHIPPING_JSON = CENTRES.map((id) =>
  JSON.stringify({
    id: 'standard',
    name: 'Standard',
    type: 'conventional',
    price: 19.9,
    delivery_days: 5,
    origin: { distribution_center: { id } },
  }),
);
const FIRST_NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Heitor', 'Iara', 'João', 'Luíza', 'Marcos'];
const LAST_NAMES = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Lima', 'Pereira', 'Costa', 'Almeida', 'Ribeiro', 'Gomes'];
const PRODUCT_WORDS = ['Camiseta', 'Caneca', 'Mochila', 'Tênis', 'Relógio', 'Fone', 'Luminária', 'Garrafa', 'Agenda', 'Boné'];
const SUBJECTS = ['Where is my order?', 'Wrong size delivered', 'Invoice request', 'Damaged item', 'Change of address'];
const CUSTOMERS = 5000;
const CUSTOMER_IDS = Array.from({ length: CUSTOMERS }, (_, n) => `cust-${n}`);
const CUSTOMER_NAMES = Array.from({ length: CUSTOMERS }, (_, n) => `${FIRST_NAMES[n % 12]} ${LAST_NAMES[n % 10]}`);

/**
 * SQLite settings for the load, restored after: a 128 MiB page cache keeps the
 * hot index pages in memory, and the index rebuild's sorter works in memory
 * instead of temporary files. WAL and synchronous stay as opened: the seeded
 * data is as durable as any other commit.
 */
const SQLITE_LOAD_PRAGMAS = { cache_size: -131072, temp_store: 2 } as const;

/** One table's rows as flat bound parameters: `fill` writes row `i`'s values at `values[at …]`, in `columns` order. */
interface TableLoad<T extends keyof Schema> {
  table: T;
  columns: ReadonlyArray<keyof Schema[T] & string>;
  count: number;
  fill(values: unknown[], at: number, i: number, ids: Uint8Array, idAt: number): void;
}

/**
 * Fills a tenant with plausible records, fast: one multi-row INSERT text per
 * table, prepared once and bound with a flat array of generated values (no
 * per-row objects, no per-row query building), many per transaction, and for
 * large loads the list indexes rebuilt once at the end instead of updated row
 * by row. Used by `feira seed`, the demo seed and the benchmarks. Seeded rows
 * are fixtures, not marketplace changes: no outbox events are written, so
 * seeding a million orders sends no webhooks. Timestamps are spread over the
 * year before `clock.now()`.
 */
export async function seedRecords(database: Database, tenantId: string, counts: SeedCounts, deps: SeedDeps): Promise<SeedResult> {
  const tenant = await database.db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw new PlatformError('NOT_FOUND', { message: 'Tenant not found' });
  const want: Required<SeedCounts> = {
    products: counts.products ?? 0,
    orders: counts.orders ?? 0,
    tickets: counts.tickets ?? 0,
    transactions: counts.transactions ?? 0,
  };
  for (const [name, n] of Object.entries(want)) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name}: the count must be a non-negative integer`);
  }
  const total = want.products + want.orders + want.tickets + want.transactions;
  const batchSize = deps.batchSize ?? 500;
  const next = fastGenerator(deps.random.bytes(4).readUInt32BE(0));
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const iso = isoTimestamps();
  const nowMs = deps.clock.now().getTime();
  // A run tag keeps SKUs and order codes unique when a tenant is seeded twice.
  const run = deps.random.bytes(3).toString('hex').toUpperCase();
  const started = process.hrtime.bigint();
  let written = 0;
  const orderIds: string[] = [];

  /** Row i of n: created in its slot of the year before now, updated up to three days later (never after now). */
  const createdAt = (i: number, n: number) => nowMs - SPREAD_MS + Math.floor(((i + next()) * SPREAD_MS) / Math.max(n, 1));
  const updatedAt = (created: number) => Math.min(nowMs, created + Math.floor(next() * UPDATE_SPREAD_MS));

  async function insertAll<T extends keyof Schema>(load: TableLoad<T>) {
    const { table, columns, count: n } = load;
    if (n === 0) return;
    const width = columns.length;
    // Statement text per batch length (the full batch and the last one): compiled by Kysely once, so
    // identifiers are quoted per dialect, and prepared once (SQLite's statement cache, storage/).
    const texts = new Map<number, string>();
    const textFor = (trx: Kysely<Schema>, rows: number) => {
      let text = texts.get(rows);
      if (!text) {
        const template = Object.fromEntries(columns.map((column) => [column, 0]));
        const compiled = trx
          .insertInto(table)
          .values(Array.from({ length: rows }, () => template) as never)
          .compile();
        if (compiled.parameters.length !== rows * width) throw new Error(`seed: unexpected INSERT shape for ${table}`);
        text = compiled.sql;
        texts.set(rows, text);
      }
      return text;
    };
    const insertRange = async (trx: Kysely<Schema>, from: number, to: number) => {
      for (let b = from; b < to; b += batchSize) {
        const rows = Math.min(to, b + batchSize) - b;
        const ids = deps.random.bytes(rows * UUID_V7_RANDOM_BYTES);
        // A fresh array per batch: Kysely freezes a compiled query's parameters.
        const values: unknown[] = new Array(rows * width);
        for (let r = 0; r < rows; r++) load.fill(values, r * width, b + r, ids, r * UUID_V7_RANDOM_BYTES);
        await trx.executeQuery(CompiledQuery.raw(textFor(trx, rows), values));
      }
      written += to - from;
      deps.onProgress?.(written, total);
    };
    const chunk = batchSize * BATCHES_PER_TRANSACTION;
    const existing = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
    if (n >= (deps.bulkThreshold ?? BULK_THRESHOLD) && n >= Number(existing.rows[0]?.n ?? 0)) {
      // A large load into a smaller table: one transaction that drops the list indexes, inserts
      // and rebuilds them once. A crash rolls all of it back, indexes included (DDL is
      // transactional on both dialects). SQLite readers see the table as it was until the commit;
      // PostgreSQL readers of this table wait for it (DROP INDEX locks the table).
      await database.db.transaction().execute(async (trx) => {
        // PostgreSQL builds each index in memory up to maintenance_work_mem (default 64 MB), for this transaction
        // only. Measured at 200,000 orders on a busy machine: 15,452–17,067 rows/s with it, 15,171–15,304 without.
        if (database.dialect === 'postgres') await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
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

  const previous: Array<[string, number]> = [];
  if (database.dialect === 'sqlite') {
    for (const [name, value] of Object.entries(SQLITE_LOAD_PRAGMAS)) {
      const current = await sql<Record<string, number>>`${sql.raw(`pragma ${name}`)}`.execute(database.db);
      previous.push([name, Number(current.rows[0]?.[name])]);
      await sql.raw(`pragma ${name} = ${value}`).execute(database.db);
    }
  }
  try {
    await seedAll();
  } finally {
    for (const [name, value] of previous) await sql.raw(`pragma ${name} = ${value}`).execute(database.db);
  }
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { counts: want, rows: written, elapsedMs };

  async function seedAll() {
    await insertAll({
      table: 'products',
      columns: [
        'id',
        'tenant_id',
        'sku',
        'title',
        'price_cents',
        'stock',
        'depth_cm',
        'height_cm',
        'width_cm',
        'weight_g',
        'created_at',
        'updated_at',
      ],
      count: want.products,
      fill(v, at, i, ids, idAt) {
        const created = createdAt(i, want.products);
        v[at] = uuidV7(created, ids, idAt);
        v[at + 1] = tenantId;
        v[at + 2] = `SKU-${run}-${String(i).padStart(7, '0')}`;
        v[at + 3] = `${pick(PRODUCT_WORDS)} ${pick(LAST_NAMES)} ${i}`;
        v[at + 4] = 500 + Math.floor(next() * 50000);
        v[at + 5] = Math.floor(next() * 500);
        v[at + 6] = 5 + Math.floor(next() * 60);
        v[at + 7] = 2 + Math.floor(next() * 40);
        v[at + 8] = 5 + Math.floor(next() * 50);
        v[at + 9] = 50 + Math.floor(next() * 5000);
        v[at + 10] = iso(created);
        v[at + 11] = iso(updatedAt(created));
      },
    });

    await insertAll({
      table: 'orders',
      columns: [
        'id',
        'tenant_id',
        'code',
        'status',
        'customer_id',
        'customer_name',
        'total_amount_cents',
        'currency',
        'items',
        'shipping',
        'shipping_distribution_center_id',
        'created_at',
        'updated_at',
      ],
      count: want.orders,
      fill(v, at, i, ids, idAt) {
        const created = createdAt(i, want.orders);
        const id = uuidV7(created, ids, idAt);
        if (orderIds.length < 10000) orderIds.push(id);
        const quantity = 1 + Math.floor(next() * 3);
        const priceCents = 500 + Math.floor(next() * 50000);
        const centre = next() < 0.5 ? 0 : 1;
        const customer = Math.floor(next() * CUSTOMERS);
        v[at] = id;
        v[at + 1] = tenantId;
        v[at + 2] = `FE-${run}-${String(i).padStart(8, '0')}`;
        v[at + 3] = pick(ORDER_STATUSES);
        v[at + 4] = CUSTOMER_IDS[customer];
        v[at + 5] = CUSTOMER_NAMES[customer];
        v[at + 6] = priceCents * quantity;
        v[at + 7] = 'BRL';
        v[at + 8] =
          `[{"sku":"SKU-${run}-${String(i % 1000).padStart(7, '0')}","quantity":${quantity},"price_cents":${priceCents}}]`;
        v[at + 9] = SHIPPING_JSON[centre];
        v[at + 10] = CENTRES[centre];
        v[at + 11] = iso(created);
        v[at + 12] = iso(updatedAt(created));
      },
    });

    await insertAll({
      table: 'tickets',
      columns: ['id', 'tenant_id', 'subject', 'status', 'order_id', 'customer_id', 'customer_name', 'created_at', 'updated_at'],
      count: want.tickets,
      fill(v, at, i, ids, idAt) {
        const created = createdAt(i, want.tickets);
        const customer = Math.floor(next() * CUSTOMERS);
        v[at] = uuidV7(created, ids, idAt);
        v[at + 1] = tenantId;
        v[at + 2] = pick(SUBJECTS);
        v[at + 3] = pick(TICKET_STATUSES);
        v[at + 4] = orderIds.length > 0 ? pick(orderIds) : null;
        v[at + 5] = CUSTOMER_IDS[customer];
        v[at + 6] = CUSTOMER_NAMES[customer];
        v[at + 7] = iso(created);
        v[at + 8] = iso(updatedAt(created));
      },
    });

    await insertAll({
      table: 'transactions',
      columns: ['id', 'tenant_id', 'type', 'amount_cents', 'currency', 'order_id', 'created_at', 'updated_at'],
      count: want.transactions,
      fill(v, at, i, ids, idAt) {
        const created = createdAt(i, want.transactions);
        const type = pick(TRANSACTION_TYPES);
        const cents = 100 + Math.floor(next() * 50000);
        v[at] = uuidV7(created, ids, idAt);
        v[at + 1] = tenantId;
        v[at + 2] = type;
        v[at + 3] = type === 'sale' ? cents : -cents;
        v[at + 4] = 'BRL';
        v[at + 5] = orderIds.length > 0 && type !== 'payout' ? pick(orderIds) : null;
        v[at + 6] = iso(created);
        v[at + 7] = iso(updatedAt(created));
      },
    });
  }
}
