import { loadavg } from 'node:os';
import { cryptoRandom, type Database, openDatabase, quoteLogFileOf } from '@feira/platform';
import { pollUntil, testTls } from '@feira/platform/testing';
import { type Insertable, type Kysely, sql } from 'kysely';
import { request } from 'undici';
import { timeOrderedUuid } from '../../packages/platform/src/core/uuid-v7.js';
import type { Schema } from '../../packages/platform/src/storage/schema.js';
import { deliveryId } from '../../packages/platform/src/webhooks/delivery-id.js';
import type { LoadGenerator } from '../lib/load.js';
import { startLoadGenerator } from '../lib/load.js';
import type { LoadResult, RequestSpec } from '../lib/load-plan.js';
import {
  type BenchDatabase,
  benchDatabase,
  chosenVariants,
  type DatabaseKind,
  type PlatformHandle,
  startPlatform,
  stopPlatform,
} from '../lib/platform-process.js';
import { admin, QUOTE_SKU, QUOTE_ZIPCODE, storefrontQuote, storeQuotingAt } from '../lib/quote-store.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { percentile, round } from '../lib/stats.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';
import type { PreparedCodes } from '../processes/fixtures/authorization-codes.js';

const SELLER = new URL('../processes/quote-seller.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const CODE_FIXTURES = new URL('../processes/fixtures/authorization-codes.ts', import.meta.url).href;

const DAY_MS = 86_400_000;
const MONTH_DAYS = 30;
const MONTHS = 12;
/** The goal: after the retention window, month 12 takes at most this much more than month 3. */
const GROWTH_GOAL = 1.2;
/** Another store's storefront quotes per second, quiet and while a month's sweep runs. */
const QUOTE_RATE = 50;
/** Rows per INSERT of the bulk seeding. */
const CHUNK = 500;

/** A month's traffic: deliveries (each with one attempt, every fourth with a failed first one too), quote calls, refreshes. */
interface Volume {
  deliveries: number;
  quoteCalls: number;
  refreshTokens: number;
  /** Refreshes through the real token endpoint (the rest of the month's refresh tokens are seeded). */
  realRefreshes: number;
}

function volumeFor(ctx: ScenarioContext): Volume {
  const override = Number(process.env.FEIRA_BENCH_SOAK_DELIVERIES_PER_MONTH ?? '');
  // Full: 84,000 a month, a million deliveries (1.25 million attempts) in the year; quick: a token year for CI.
  const deliveries = override > 0 ? override : ctx.mode === 'quick' ? 600 : 84_000;
  return {
    deliveries,
    quoteCalls: deliveries,
    refreshTokens: Math.ceil(deliveries / 4),
    realRefreshes: ctx.mode === 'quick' ? 5 : 200,
  };
}

const REQUEST_HEADERS = JSON.stringify({
  'content-type': 'application/json',
  'user-agent': 'Feira-Webhooks/1.0',
  'x-webhook-id': '01938f6e-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
  'x-webhook-timestamp': '1767225600',
  'x-webhook-signature': `v1,${'a'.repeat(44)}`,
  'webhook-id': '01938f6e-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
  'webhook-timestamp': '1767225600',
  'webhook-signature': `v1,${'b'.repeat(44)}`,
});
const RESPONSE_HEADERS = JSON.stringify({
  'content-type': 'application/json; charset=utf-8',
  'content-length': '16',
  date: 'Thu, 01 Jan 2026 00:00:00 GMT',
});

/** The bench's own connections: the platform database, and on SQLite the quote log's file beside it. */
interface Seeder {
  db: Kysely<Schema>;
  quoteLog: Kysely<Schema>;
  close(): Promise<void>;
  /** Bytes the platform's data takes: SQLite's files (page count × page size, free pages included), PostgreSQL's tables with their indexes and TOAST. */
  bytes(): Promise<number>;
  /** PostgreSQL: VACUUMs run so far on each swept table (the sweeper runs one after a pass that deleted a large share); {} on SQLite. */
  vacuums(): Promise<Record<string, number>>;
  /** PostgreSQL: dead rows the swept tables still hold (a VACUUM that could not remove them leaves them); 0 on SQLite. */
  deadRows(): Promise<number>;
}

/** The tables a month's sweep deletes a large share of, each vacuumed by the sweeper after it on PostgreSQL. */
const SWEPT_TABLES = ['outbox_events', 'webhook_deliveries', 'webhook_delivery_attempts', 'quote_calls', 'refresh_tokens'];

async function openSeeder(database: BenchDatabase): Promise<Seeder> {
  const main: Database = await openDatabase(database.url, database.searchPath ? { searchPath: database.searchPath } : {});
  if (database.kind === 'sqlite') {
    const file = database.url.slice('sqlite:'.length);
    const log = await openDatabase(`sqlite:${quoteLogFileOf(file)}`);
    const fileBytes = async (db: Kysely<Schema>) => {
      const { rows } = await sql<{
        n: number;
      }>`select page_count * page_size as n from pragma_page_count(), pragma_page_size()`.execute(db);
      return Number(rows[0]?.n ?? 0);
    };
    return {
      db: main.db,
      quoteLog: log.db,
      close: async () => {
        await log.close();
        await main.close();
      },
      bytes: async () => (await fileBytes(main.db)) + (await fileBytes(log.db)),
      vacuums: async () => ({}),
      deadRows: async () => 0,
    };
  }
  return {
    db: main.db,
    quoteLog: main.db,
    close: () => main.close(),
    bytes: async () => {
      const { rows } = await sql<{ n: string }>`
        select coalesce(sum(pg_total_relation_size(c.oid)), 0) as n from pg_class c
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relkind = 'r'`.execute(main.db);
      return Number(rows[0]?.n ?? 0);
    },
    vacuums: async () => {
      const { rows } = await sql<{ relname: string; n: string }>`
        select relname, vacuum_count as n from pg_stat_user_tables
        where schemaname = current_schema() and relname in (${sql.join(SWEPT_TABLES)})`.execute(main.db);
      return Object.fromEntries(rows.map((row) => [row.relname, Number(row.n)]));
    },
    deadRows: async () => {
      const { rows } = await sql<{ n: string }>`
        select coalesce(sum(n_dead_tup), 0) as n from pg_stat_user_tables
        where schemaname = current_schema() and relname in (${sql.join(SWEPT_TABLES)})`.execute(main.db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

/** A month of rows from `startMs`, spread evenly over its 30 days, as the platform writes them, in transactions of CHUNK. */
async function seedMonth(
  seeder: Seeder,
  tenantId: string,
  subscriptionId: string,
  startMs: number,
  volume: Volume,
): Promise<void> {
  const spread = (i: number, n: number) => new Date(startMs + (i * MONTH_DAYS * DAY_MS) / n);
  for (let at = 0; at < volume.deliveries; at += CHUNK) {
    const n = Math.min(CHUNK, volume.deliveries - at);
    const events: Insertable<Schema['outbox_events']>[] = [];
    const deliveries: Insertable<Schema['webhook_deliveries']>[] = [];
    const attempts: Insertable<Schema['webhook_delivery_attempts']>[] = [];
    for (let i = at; i < at + n; i++) {
      const when = spread(i, volume.deliveries);
      const iso = when.toISOString();
      const id = timeOrderedUuid(cryptoRandom, when);
      const recordId = cryptoRandom.uuid();
      const resource = `/v1/orders/${recordId}`;
      events.push({
        id,
        tenant_id: tenantId,
        topic: 'order',
        status: 'UPDATE',
        record_id: recordId,
        resource,
        body: JSON.stringify({
          data: { status: 'UPDATE', params: { id: recordId }, resource },
          tenant_id: tenantId,
          topic: 'order',
        }),
        created_at: iso,
        dispatched_at: iso,
      });
      const did = deliveryId(id, subscriptionId, iso);
      const retried = i % 4 === 0;
      deliveries.push({
        id: did,
        event_id: id,
        subscription_id: subscriptionId,
        tenant_id: tenantId,
        topic: 'order',
        state: 'succeeded' as const,
        attempts: retried ? 2 : 1,
        next_attempt_at: null,
        lease_owner: null,
        lease_until: null,
        fence: retried ? 2 : 1,
        last_status_code: 200,
        last_error: null,
        event_created_at: iso,
        created_at: iso,
        updated_at: iso,
        delivered_at: iso,
      });
      const attempt = { delivery_id: did, worker: 'feira-dispatcher-1a2b3c', request_headers: REQUEST_HEADERS, started_at: iso };
      if (retried)
        attempts.push({
          ...attempt,
          attempt: 1,
          fence: 1,
          outcome: 'failed' as const,
          status_code: 503,
          duration_ms: 1000,
          error: 'HTTP 503',
          response_body: '{"error":"unavailable"}',
          response_headers: RESPONSE_HEADERS,
          next_attempt_at: iso,
        });
      attempts.push({
        ...attempt,
        attempt: retried ? 2 : 1,
        fence: retried ? 2 : 1,
        outcome: 'succeeded' as const,
        status_code: 200,
        duration_ms: 42,
        error: null,
        response_body: '{"received":true}',
        response_headers: RESPONSE_HEADERS,
        next_attempt_at: null,
      });
    }
    await seeder.db.transaction().execute(async (trx) => {
      await trx.insertInto('outbox_events').values(events).execute();
      await trx.insertInto('webhook_deliveries').values(deliveries).execute();
      await trx.insertInto('webhook_delivery_attempts').values(attempts).execute();
    });
  }
  for (let at = 0; at < volume.quoteCalls; at += CHUNK) {
    const n = Math.min(CHUNK, volume.quoteCalls - at);
    const quotes = Array.from({ length: n }, (_, k) => ({
      id: cryptoRandom.uuid(),
      tenant_id: tenantId,
      session_id: cryptoRandom.uuid(),
      purpose: 'storefront',
      outcome: 'ok',
      latency_ms: 87.25,
      http_status: 200,
      detail: null,
      fallback_used: 0,
      gateway_kind: null,
      created_at: spread(at + k, volume.quoteCalls).toISOString(),
    }));
    await seeder.quoteLog.insertInto('quote_calls').values(quotes).execute();
  }
  for (let at = 0; at < volume.refreshTokens; at += CHUNK) {
    const n = Math.min(CHUNK, volume.refreshTokens - at);
    const tokens = Array.from({ length: n }, (_, k) => {
      const when = spread(at + k, volume.refreshTokens);
      // A rotation: the token replaced its parent at once and was itself replaced a day later, 30 days of life.
      return {
        jti: cryptoRandom.uuid(),
        family_id: cryptoRandom.uuid(),
        parent_jti: cryptoRandom.uuid(),
        created_at: when.toISOString(),
        expires_at: new Date(when.getTime() + 30 * DAY_MS).toISOString(),
        used_at: new Date(when.getTime() + DAY_MS).toISOString(),
        superseded_at: new Date(when.getTime() + DAY_MS).toISOString(),
      };
    });
    await seeder.db.insertInto('refresh_tokens').values(tokens).execute();
  }
}

/** Rows the retention rules may delete at `now` still in the tables (0: the sweep is done). */
async function sweepable(seeder: Seeder, now: Date): Promise<number> {
  const days = (d: number) => new Date(now.getTime() - d * DAY_MS).toISOString();
  const count = async (query: Promise<{ n: number | string | bigint } | undefined>) => Number((await query)?.n ?? 0);
  const n = sql<number>`count(*)`.as('n');
  return (
    (await count(
      seeder.db
        .selectFrom('webhook_deliveries')
        .select(n)
        .where('state', 'in', ['succeeded', 'dead'])
        .where('updated_at', '<', days(30))
        .executeTakeFirst(),
    )) +
    (await count(seeder.quoteLog.selectFrom('quote_calls').select(n).where('created_at', '<', days(30)).executeTakeFirst())) +
    (await count(seeder.db.selectFrom('refresh_tokens').select(n).where('expires_at', '<', days(1)).executeTakeFirst())) +
    (await count(
      seeder.db
        .selectFrom('outbox_events as e')
        .select(n)
        .where('e.dispatched_at', 'is not', null)
        .where('e.created_at', '<', days(1))
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
        )
        .executeTakeFirst(),
    ))
  );
}

async function platformNow(platform: PlatformHandle): Promise<Date> {
  const response = await request(`${platform.origin}/admin/v1/clock`, {
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
  });
  const body = (await response.body.json()) as { now: string };
  return new Date(body.now);
}

/** Refreshes through the token endpoint: a code exchanged, then its refresh token rotated `count` times. */
async function realRefreshes(platform: PlatformHandle, count: number): Promise<number> {
  const codes = await platform.call<PreparedCodes>('issueCodes', { count: 1 });
  const token = async (fields: Record<string, string>) => {
    const response = await request(`${platform.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, client_id: codes.clientId, client_secret: codes.clientSecret }).toString(),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`token endpoint: HTTP ${response.statusCode} ${text.slice(0, 200)}`);
    return JSON.parse(text) as { refresh_token: string };
  };
  let set = await token({ grant_type: 'authorization_code', code: codes.codes[0] as string, redirect_uri: codes.redirectUri });
  for (let i = 0; i < count; i++) set = await token({ grant_type: 'refresh_token', refresh_token: set.refresh_token });
  return count;
}

interface MonthFigures {
  month: number;
  /** After the month's sweep (and on PostgreSQL the sweeper's VACUUMs) ended: one month of rows retained. */
  bytes: number;
  /** After the month's writes, before the clock moved: the month's high-water mark, two months of rows. */
  peakBytes: number;
  /** PostgreSQL: dead rows left in the swept tables when `bytes` was read. */
  deadRows: number;
  /** The host's 1-minute load average when `bytes` was read. */
  load: number;
  sweepMs: number;
  /** The quote phase ended while the sweep still had rows to delete. */
  sweepOutlastedPhase: boolean;
}

async function measureVariant(ctx: ScenarioContext, kind: DatabaseKind): Promise<Figure[]> {
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const volume = volumeFor(ctx);
  const phaseMs = ctx.mode === 'quick' ? 500 : 3_000;
  // PostgreSQL: a database of its own, so that what VACUUM may remove does not depend on other clients' transactions.
  const database = await benchDatabase(ctx, kind, 'year-soak', { ownDatabase: true });
  // A shared host at a load of 40 has taken more than the default 30 s to start it.
  const seller = await ctx.children.start<{ port: number; origin: string }>('quote seller', SELLER, { readyTimeoutMs: 180_000 });
  const platform = await startPlatform(ctx, database, {
    fixtures: [SELLER_ACCESS, CODE_FIXTURES],
    outboundCa: testTls.ca,
    workers: true,
    // The defaults' periods; a sweep every second, so a simulated month's sweep starts as soon as the clock moves.
    retention: { intervalSeconds: 1 },
  });
  let generator: LoadGenerator | undefined;
  let seeder: Seeder | undefined;
  try {
    seeder = await openSeeder(database);
    const quotingStore = await storeQuotingAt(platform, `${seller.info.origin}/quote`);
    // A first quote on a loaded host can time out while the seller process warms up: asked again, within a deadline.
    let probe = await storefrontQuote(platform, quotingStore);
    for (let tries = 1; !probe.available && tries < 10; tries++) probe = await storefrontQuote(platform, quotingStore);
    if (!probe.available) throw new Error(`the other store's quote is not available: ${JSON.stringify(probe.reason)}`);
    // The store whose year of traffic is written: its app's subscription receives every event.
    const { tenantId } = await platform.call<{ tenantId: string }>('createSellerAccess', { scopes: ['open:portfolio:read'] });
    const subscriptionId = cryptoRandom.uuid();
    const at = (await platformNow(platform)).toISOString();
    await seeder.db
      .insertInto('webhook_subscriptions')
      .values({
        id: subscriptionId,
        client_id: 'bench-client',
        tenant_id: tenantId,
        topic: 'order',
        version: 'v1',
        url: 'https://127.0.0.1:9/hooks',
        secret_sealed: 'sealed',
        previous_secret_sealed: null,
        previous_secret_grace_until: null,
        state: 'active',
        failing_since: null,
        disabled_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    generator = await startLoadGenerator(ctx.children);
    const quote: RequestSpec = {
      method: 'POST',
      path: '/storefront/v1/quotes',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: quotingStore, zipcode: QUOTE_ZIPCODE, items: [{ sku: QUOTE_SKU, quantity: 1 }] }),
    };
    const quotePhase = (): Promise<LoadResult> =>
      (generator as LoadGenerator).run({
        origin: platform.origin,
        connections: 16,
        ratePerSecond: QUOTE_RATE,
        warmupMs: 100,
        durationMs: phaseMs,
        requests: [quote],
        sampleField: 'session_id',
      });
    const quietUs: number[] = [];
    const sweepingUs: number[] = [];
    const months: MonthFigures[] = [];
    let refreshed = 0;
    let errors = 0;
    for (let month = 1; month <= MONTHS; month++) {
      // The month's traffic, timed over the 30 days that start now on the platform's clock.
      const start = await platformNow(platform);
      await seedMonth(seeder, tenantId, subscriptionId, start.getTime(), volume);
      refreshed += await realRefreshes(platform, volume.realRefreshes);
      const peakBytes = await seeder.bytes();
      // Quiet: everything past its period was swept at the end of the previous month.
      const quiet = await quotePhase();
      errors += quiet.errors;
      // The month passes: the sweep of what went past its period starts within a second, the quotes meanwhile.
      const vacuumsBefore = await seeder.vacuums();
      await admin(platform, 'POST', '/admin/v1/clock/advance', { duration: `${MONTH_DAYS}d` });
      const moved = await platformNow(platform);
      const sweepStarted = performance.now();
      const loud = await quotePhase();
      errors += loud.errors;
      const outlasted = (await sweepable(seeder, moved)) > 0;
      await pollUntil('the month’s sweep', async () => ((await sweepable(seeder as Seeder, moved)) === 0 ? true : undefined), {
        deadlineMs: 15 * 60_000,
        intervalMs: 200,
      });
      // PostgreSQL: the sweeper vacuums each table it deleted a large share of, after its last batch there; the size is read once all are done.
      // The first month's sweep deletes nothing (nothing is past its period yet), so it vacuums nothing either.
      await pollUntil(
        'the sweep’s VACUUMs',
        async () => {
          if (month === 1) return true;
          const now = await (seeder as Seeder).vacuums();
          return Object.entries(vacuumsBefore).every(([table, n]) => (now[table] ?? 0) > n) ? true : undefined;
        },
        { deadlineMs: 15 * 60_000, intervalMs: 200 },
      );
      const sweepMs = performance.now() - sweepStarted;
      // Months after the first hold rows to sweep; the first month's quotes are quiet twice.
      if (month > 1) {
        for (const [, us] of quiet.samples ?? []) quietUs.push(us);
        if (outlasted) for (const [, us] of loud.samples ?? []) sweepingUs.push(us);
      }
      const bytes = await seeder.bytes();
      const deadRows = await seeder.deadRows();
      const load = loadavg()[0] ?? 0;
      months.push({ month, bytes, peakBytes, deadRows, load, sweepMs, sweepOutlastedPhase: outlasted });
      ctx.log(
        `${label} month ${month}: ${(bytes / 1e6).toFixed(1)} MB (peak ${(peakBytes / 1e6).toFixed(1)} MB, ${deadRows} dead rows, load ${load.toFixed(1)}), sweep ${(sweepMs / 1000).toFixed(1)} s${outlasted ? '' : ' (done before the quote phase ended)'}`,
      );
    }
    const month3 = months[2]?.bytes ?? null;
    const month12 = months[11]?.bytes ?? null;
    const growth = month3 && month12 ? month12 / month3 : null;
    ctx.notes.push(
      `${label}: size by month (MB): ${months.map((m) => (m.bytes / 1e6).toFixed(1)).join(', ')}; high-water by month (MB, before the sweep): ${months
        .map((m) => (m.peakBytes / 1e6).toFixed(1))
        .join(', ')}; dead rows left by month: ${months.map((m) => m.deadRows).join(', ')}; load average by month: ${months
        .map((m) => m.load.toFixed(1))
        .join(', ')}; sweep by month (s): ${months.map((m) => (m.sweepMs / 1000).toFixed(1)).join(', ')}`,
    );
    ctx.notes.push(
      `${label}: each month ${volume.deliveries} deliveries (${Math.round(volume.deliveries * 1.25)} attempts, ${volume.deliveries} outbox events), ${volume.quoteCalls} quote calls and ${volume.refreshTokens} refresh tokens bulk-seeded in the rows the platform writes, plus ${volume.realRefreshes} refreshes through the token endpoint (${refreshed} in the year); the platform's own sweeper (defaults, every second) deletes; ${
        kind === 'postgres'
          ? "in a database of its own; the sweeper's own VACUUMs after each sweep (no bench VACUUM), the size read once they ended"
          : 'no VACUUM'
      }`,
    );
    const outlastedMonths = months.slice(1).filter((m) => m.sweepOutlastedPhase).length;
    ctx.notes.push(
      `${label}: the quote phase ran within the sweep in ${outlastedMonths} of ${MONTHS - 1} months (only those count as "during the sweeps")`,
    );
    if (errors) ctx.notes.push(`${label}: ${errors} quote errors`);
    const p99 = (us: number[]) =>
      us.length
        ? percentile(
            [...us].sort((a, b) => a - b),
            99,
          ) / 1000
        : null;
    const quietP99 = p99(quietUs);
    const sweepP99 = p99(sweepingUs);
    const ratio = figure(`${label}: other store's quote p99 during the sweeps`, sweepP99, 'ms', {
      baseline: { name: 'quiet p99', value: quietP99, unit: 'ms' },
    });
    await stopPlatform(ctx, platform, `platform (${label})`);
    return [
      figure(`${label}: data at month 12`, month12 === null ? null : round(month12 / 1e6, 1), 'MB', {
        baseline: { name: 'month 3', value: month3 === null ? null : round(month3 / 1e6, 1), unit: 'MB' },
        ...(growth === null ? {} : { target: { text: `≤ ${GROWTH_GOAL}× month 3`, met: growth <= GROWTH_GOAL } }),
      }),
      figure(`${label}: high-water at month 12 (before its sweep)`, round((months[11]?.peakBytes ?? 0) / 1e6, 1), 'MB', {
        baseline: { name: 'month 3', value: round((months[2]?.peakBytes ?? 0) / 1e6, 1), unit: 'MB' },
      }),
      ratio,
      figure(`${label}: longest monthly sweep`, round(Math.max(...months.map((m) => m.sweepMs)) / 1000, 1), 's'),
    ];
  } finally {
    await generator?.stop();
    await seeder?.close();
    await seller.stop();
    await database.drop();
  }
}

/**
 * BENCHMARKS.md, "A year of operation": twelve simulated months of a store's
 * webhook deliveries (with their attempts and events), quote calls and token
 * refreshes on the sandbox clock, each month's sweep by the platform's own
 * retention sweeper, the data's size at each month's end (goal: month 12 ≤
 * 1.2× month 3), and another store's quote p99 while the sweeps run as a
 * ratio to the quiet one. SQLite; PostgreSQL too in full mode.
 */
export const yearSoak: Scenario = {
  id: 'year-soak',
  title: 'A year of operation (retention on the sandbox clock)',
  // Twelve months of a million deliveries on each of two databases: more than one scenario's usual half hour.
  fullBudgetMs: 75 * 60_000,
  async unavailable() {
    return null;
  },
  async run(ctx) {
    // FEIRA_BENCH_SOAK_DATABASES=postgres (or sqlite, or both comma-separated) picks the variants; by default
    // SQLite, and PostgreSQL in full mode.
    const variants = await chosenVariants(ctx, 'FEIRA_BENCH_SOAK_DATABASES');
    const figures: Figure[] = [];
    if (variants.sqlite) figures.push(...(await measureVariant(ctx, 'sqlite')));
    const missing = variants.postgres;
    if (missing) ctx.notes.push(`PostgreSQL: ${missing}`);
    else figures.push(...(await measureVariant(ctx, 'postgres')));
    return figures;
  },
};
