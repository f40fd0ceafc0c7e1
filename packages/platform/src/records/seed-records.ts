import { ORDER_STATUSES, TICKET_STATUSES, TRANSACTION_TYPES } from '@feira/contract';
import { CompiledQuery, type Insertable, type Kysely, sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import { PlatformError } from '../core/platform-error.js';
import type { Random } from '../core/random.js';
import type { Database } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { withIndexesRebuiltAfter } from './bulk-load-indexes.js';

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
  /** From this many rows (default 50,000), a load into a table holding fewer rows rebuilds its indexes once after. */
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
/** From this many rows (and at least as many as the table holds), indexes are rebuilt once after the load. */
const BULK_THRESHOLD = 50_000;
const SPREAD_MS = 365 * 24 * 3600 * 1000;
const CENTRES = ['dc-sp', 'dc-rj'] as const;
const SHIPPING_JSON = Object.fromEntries(
  CENTRES.map((id) => [
    id,
    JSON.stringify({
      id: 'standard',
      name: 'Standard',
      type: 'conventional',
      price: 19.9,
      delivery_days: 5,
      origin: { distribution_center: { id } },
    }),
  ]),
) as Record<(typeof CENTRES)[number], string>;
const FIRST_NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Heitor', 'Iara', 'João', 'Luíza', 'Marcos'];
const LAST_NAMES = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Lima', 'Pereira', 'Costa', 'Almeida', 'Ribeiro', 'Gomes'];
const PRODUCT_WORDS = ['Camiseta', 'Caneca', 'Mochila', 'Tênis', 'Relógio', 'Fone', 'Luminária', 'Garrafa', 'Agenda', 'Boné'];
const SUBJECTS = ['Where is my order?', 'Wrong size delivered', 'Invoice request', 'Damaged item', 'Change of address'];

/**
 * A small fast PRNG (mulberry32) seeded from the injected Random: a million
 * rows need a million cheap draws, and a seeded generator keeps runs reproducible.
 */
function generator(random: Random): () => number {
  let state = random.bytes(4).readUInt32BE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A UUID v7 (RFC 9562 §5.7) for a seeded row: time-ordered by its created_at,
 * so a million primary-key inserts append to the index instead of landing at
 * random pages of it.
 */
function uuidV7(ms: number, next: () => number): string {
  const hex = (value: number, digits: number) => Math.floor(value).toString(16).padStart(digits, '0');
  const time = hex(ms, 12);
  const randA = hex(next() * 0x1000, 3);
  const variant = (8 + Math.floor(next() * 4)).toString(16) + hex(next() * 0x1000, 3);
  const tail = hex(next() * 0x1000000, 6) + hex(next() * 0x1000000, 6);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randA}-${variant}-${tail}`;
}

/**
 * Fills a tenant with plausible records, fast: multi-row INSERTs compiled
 * once, many per transaction, and for large loads the list indexes rebuilt
 * once at the end instead of updated row by row. Used by `feira
 * seed`, the demo seed and the benchmarks. Seeded rows are fixtures, not
 * marketplace changes: no outbox events are written, so seeding a million
 * orders sends no webhooks. Timestamps are spread over the year before
 * `clock.now()`.
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
  const next = generator(deps.random);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const nowMs = deps.clock.now().getTime();
  // A run tag keeps SKUs and order codes unique when a tenant is seeded twice.
  const run = deps.random.bytes(3).toString('hex').toUpperCase();
  const started = process.hrtime.bigint();
  let written = 0;

  const stamp = (i: number, n: number) => {
    const created = nowMs - SPREAD_MS + Math.floor(((i + next()) * SPREAD_MS) / Math.max(n, 1));
    const updated = Math.min(nowMs, created + Math.floor(next() * 3 * 24 * 3600 * 1000));
    return {
      id: uuidV7(created, next),
      created_at: new Date(created).toISOString(),
      updated_at: new Date(updated).toISOString(),
    };
  };
  const customer = () => {
    const n = Math.floor(next() * 5000);
    return { customer_id: `cust-${n}`, customer_name: `${FIRST_NAMES[n % 12]} ${LAST_NAMES[n % 10]}` };
  };
  const orderIds: string[] = [];

  /**
   * Kysely compiles the multi-row INSERT once per batch size; each batch then
   * only binds new parameters (building a 500-row query tree per batch costs
   * more than SQLite's insert itself).
   */
  async function insertAll<T extends keyof Schema>(table: T, n: number, row: (i: number) => Insertable<Schema[T]>) {
    const compiled = new Map<number, string>();
    const statementFor = (trx: Kysely<Schema>, rows: Array<Record<string, unknown>>) => {
      let text = compiled.get(rows.length);
      if (!text) {
        // The table is generic here; rows are typed by the caller's `row` function.
        text = trx
          .insertInto(table)
          .values(rows as never)
          .compile().sql;
        compiled.set(rows.length, text);
      }
      return text;
    };
    const insertRange = async (trx: Kysely<Schema>, from: number, to: number) => {
      for (let b = from; b < to; b += batchSize) {
        const rows: Array<Record<string, unknown>> = [];
        for (let i = b; i < Math.min(to, b + batchSize); i++) rows.push(row(i) as Record<string, unknown>);
        const columns = Object.keys(rows[0] as object);
        const parameters: unknown[] = [];
        for (const r of rows) for (const column of columns) parameters.push(r[column]);
        await trx.executeQuery(CompiledQuery.raw(statementFor(trx, rows), parameters));
      }
      written += to - from;
      deps.onProgress?.(written, total);
    };
    const chunk = batchSize * BATCHES_PER_TRANSACTION;
    const existing = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
    if (n >= (deps.bulkThreshold ?? BULK_THRESHOLD) && n >= Number(existing.rows[0]?.n ?? 0)) {
      // A large load into a smaller table: one transaction that drops the list indexes, inserts
      // and rebuilds them once. A crash rolls all of it back, indexes included (DDL is
      // transactional on both dialects); readers see the table as it was until the commit.
      await database.db.transaction().execute((trx) =>
        withIndexesRebuiltAfter<Schema, void>(trx, database.dialect, table, async () => {
          for (let start = 0; start < n; start += chunk) await insertRange(trx, start, Math.min(n, start + chunk));
        }),
      );
      return;
    }
    for (let start = 0; start < n; start += chunk) {
      await database.db.transaction().execute((trx) => insertRange(trx, start, Math.min(n, start + chunk)));
    }
  }

  // SQLite: a 128 MiB page cache while seeding keeps the list indexes' hot pages in memory; restored after.
  let previousCacheSize: number | undefined;
  if (database.dialect === 'sqlite') {
    const current = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
    previousCacheSize = current.rows[0]?.cache_size;
    await sql`pragma cache_size = -131072`.execute(database.db);
  }
  try {
    await seedAll();
  } finally {
    if (previousCacheSize !== undefined) await sql.raw(`pragma cache_size = ${Number(previousCacheSize)}`).execute(database.db);
  }
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { counts: want, rows: written, elapsedMs };

  async function seedAll() {
    await insertAll('products', want.products, (i) => {
      const priceCents = 500 + Math.floor(next() * 50000);
      return {
        tenant_id: tenantId,
        sku: `SKU-${run}-${String(i).padStart(7, '0')}`,
        title: `${pick(PRODUCT_WORDS)} ${pick(LAST_NAMES)} ${i}`,
        price_cents: priceCents,
        stock: Math.floor(next() * 500),
        depth_cm: 5 + Math.floor(next() * 60),
        height_cm: 2 + Math.floor(next() * 40),
        width_cm: 5 + Math.floor(next() * 50),
        weight_g: 50 + Math.floor(next() * 5000),
        ...stamp(i, want.products),
      };
    });

    await insertAll('orders', want.orders, (i) => {
      const quantity = 1 + Math.floor(next() * 3);
      const priceCents = 500 + Math.floor(next() * 50000);
      const centre = next() < 0.5 ? CENTRES[0] : CENTRES[1];
      const stamped = stamp(i, want.orders);
      if (orderIds.length < 10000) orderIds.push(stamped.id);
      return {
        tenant_id: tenantId,
        code: `FE-${run}-${String(i).padStart(8, '0')}`,
        status: pick(ORDER_STATUSES),
        ...customer(),
        total_amount_cents: priceCents * quantity,
        currency: 'BRL',
        items: `[{"sku":"SKU-${run}-${String(i % 1000).padStart(7, '0')}","quantity":${quantity},"price_cents":${priceCents}}]`,
        shipping: SHIPPING_JSON[centre],
        shipping_distribution_center_id: centre,
        ...stamped,
      };
    });

    await insertAll('tickets', want.tickets, (i) => ({
      tenant_id: tenantId,
      subject: pick(SUBJECTS),
      status: pick(TICKET_STATUSES),
      order_id: orderIds.length > 0 ? pick(orderIds) : null,
      ...customer(),
      ...stamp(i, want.tickets),
    }));

    await insertAll('transactions', want.transactions, (i) => {
      const type = pick(TRANSACTION_TYPES);
      const cents = 100 + Math.floor(next() * 50000);
      return {
        tenant_id: tenantId,
        type,
        amount_cents: type === 'sale' ? cents : -cents,
        currency: 'BRL',
        order_id: orderIds.length > 0 && type !== 'payout' ? pick(orderIds) : null,
        ...stamp(i, want.transactions),
      };
    });
  }
}
