// What retention keeps on disk, and what its sweep costs: fills a fresh
// database with a month of a marketplace's rows as the platform writes them
// (outbox events, one delivery per event with one attempt and its headers,
// quote calls, refresh tokens), reports the bytes per row of each table with
// its indexes, then sweeps them all with the platform's rules and reports the
// longest and median batch (what a request queued behind a batch waits at
// most) and, on PostgreSQL, the table's size after the next month's rows
// went into the space the sweep freed (docs/decisions.md D99):
//
//   node --import tsx bench/tools/retention-disk.ts --rows 50000
//   FEIRA_BENCH_DATABASE_URL=postgres://… node --import tsx bench/tools/retention-disk.ts --dialect postgres
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { ManualClock } from '../../packages/platform/src/core/clock.js';
import { DEFAULT_RETENTION, platformConfig } from '../../packages/platform/src/core/config.js';
import { cryptoRandom } from '../../packages/platform/src/core/random.js';
import { timeOrderedUuid } from '../../packages/platform/src/core/uuid-v7.js';
import type { PlatformContext } from '../../packages/platform/src/http/platform-context.js';
import { quoteLogInDatabase } from '../../packages/platform/src/shipping/index.js';
import type { Database } from '../../packages/platform/src/storage/database.js';
import { openPostgresTestDatabase, openSqliteTestDatabase } from '../../packages/platform/src/test-databases.js';
import { deliveryId } from '../../packages/platform/src/webhooks/delivery-id.js';
import { retentionRules } from '../../packages/platform/src/workers.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '50000' }, dialect: { type: 'string', default: 'sqlite' } },
});
const rows = Number(values.rows);
const database: Database =
  values.dialect === 'postgres'
    ? await openPostgresTestDatabase(process.env.FEIRA_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
    : await openSqliteTestDatabase();
const db = database.db;
const clock = new ManualClock('2026-01-01T00:00:00.000Z');
const DAY = 86_400_000;

const REQUEST_HEADERS = JSON.stringify({
  'content-type': 'application/json',
  'user-agent': 'Feira-Webhooks/1.0',
  'x-webhook-id': randomUUID(),
  'x-webhook-timestamp': '1767225600',
  'x-webhook-signature': `v1,${'a'.repeat(44)}`,
  'webhook-id': randomUUID(),
  'webhook-timestamp': '1767225600',
  'webhook-signature': `v1,${'b'.repeat(44)}`,
});
const RESPONSE_HEADERS = JSON.stringify({
  'content-type': 'application/json; charset=utf-8',
  'content-length': '16',
  date: 'Thu, 01 Jan 2026 00:00:00 GMT',
});

await db
  .insertInto('sellers')
  .values({ id: 's', name: 'S', login: 's', password_hash: 'x', created_at: clock.now().toISOString() })
  .execute();
await db.insertInto('tenants').values({ id: 't', seller_id: 's', name: 'T', created_at: clock.now().toISOString() }).execute();
await db
  .insertInto('webhook_subscriptions')
  .values({
    id: 'sub',
    client_id: 'c',
    tenant_id: 't',
    topic: 'orders',
    version: 'v1',
    url: 'https://r.example/h',
    secret_sealed: 'x',
    previous_secret_sealed: null,
    previous_secret_grace_until: null,
    state: 'active',
    failing_since: null,
    disabled_at: null,
    created_at: clock.now().toISOString(),
    updated_at: clock.now().toISOString(),
  })
  .execute();

/** A month of rows from `startMs`, spread evenly, in transactions of 500. */
async function fill(startMs: number) {
  for (let at = 0; at < rows; at += 500) {
    await db.transaction().execute(async (trx) => {
      const n = Math.min(500, rows - at);
      const events = [];
      const deliveries = [];
      const attempts = [];
      const quotes = [];
      const tokens = [];
      for (let i = 0; i < n; i++) {
        const when = new Date(startMs + ((at + i) * 30 * DAY) / rows);
        const iso = when.toISOString();
        const id = timeOrderedUuid(cryptoRandom, when);
        const recordId = randomUUID();
        events.push({
          id,
          tenant_id: 't',
          topic: 'orders',
          status: 'UPDATE',
          record_id: recordId,
          resource: `/seller/v0/orders/${recordId}`,
          body: JSON.stringify({
            data: { status: 'UPDATE', params: { id: recordId }, resource: `/seller/v0/orders/${recordId}` },
            tenant_id: 't',
            topic: 'orders',
          }),
          created_at: iso,
          dispatched_at: iso,
        });
        const did = deliveryId(id, 'sub', iso);
        deliveries.push({
          id: did,
          event_id: id,
          subscription_id: 'sub',
          tenant_id: 't',
          topic: 'orders',
          state: 'succeeded' as const,
          attempts: 1,
          next_attempt_at: null,
          lease_owner: null,
          lease_until: null,
          fence: 1,
          last_status_code: 200,
          last_error: null,
          event_created_at: iso,
          created_at: iso,
          updated_at: iso,
          delivered_at: iso,
        });
        attempts.push({
          delivery_id: did,
          attempt: 1,
          fence: 1,
          worker: 'feira-dispatcher-1a2b3c',
          outcome: 'succeeded' as const,
          status_code: 200,
          duration_ms: 42,
          error: null,
          response_body: '{"received":true}',
          request_headers: REQUEST_HEADERS,
          response_headers: RESPONSE_HEADERS,
          next_attempt_at: null,
          started_at: iso,
        });
        quotes.push({
          id: randomUUID(),
          tenant_id: 't',
          session_id: randomUUID(),
          purpose: 'storefront',
          outcome: 'ok',
          latency_ms: 87.25,
          http_status: 200,
          detail: null,
          fallback_used: 0,
          gateway_kind: null,
          created_at: iso,
        });
        tokens.push({
          jti: randomUUID(),
          family_id: randomUUID(),
          parent_jti: randomUUID(),
          created_at: iso,
          expires_at: new Date(when.getTime() + 30 * DAY).toISOString(),
          used_at: iso,
          superseded_at: iso,
        });
      }
      await trx.insertInto('outbox_events').values(events).execute();
      await trx.insertInto('webhook_deliveries').values(deliveries).execute();
      await trx.insertInto('webhook_delivery_attempts').values(attempts).execute();
      await trx.insertInto('quote_calls').values(quotes).execute();
      await trx.insertInto('refresh_tokens').values(tokens).execute();
    });
  }
}

const TABLES = ['outbox_events', 'webhook_deliveries', 'webhook_delivery_attempts', 'quote_calls', 'refresh_tokens'] as const;

/** Bytes on disk of each table with its indexes. */
async function sizes(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (database.dialect === 'postgres') {
    for (const table of TABLES) {
      const { rows: r } = await sql<{ bytes: string }>`select pg_total_relation_size(${table}::regclass) as bytes`.execute(db);
      out[table] = Number(r[0]?.bytes);
    }
  } else {
    const { rows: r } = await sql<{
      tbl: string;
      bytes: number;
    }>`select tbl_name as tbl, sum(pgsize) as bytes from dbstat join sqlite_master on dbstat.name = sqlite_master.name group by tbl_name`.execute(
      db,
    );
    for (const table of TABLES) out[table] = Number(r.find((row) => row.tbl === table)?.bytes ?? 0);
  }
  return out;
}

const t0 = clock.now().getTime();
await fill(t0);
const filled = await sizes();
console.log(`${database.dialect}: ${rows} rows per table (a month), bytes per row with indexes:`);
for (const table of TABLES)
  console.log(`  ${table}: ${Math.round((filled[table] ?? 0) / rows)} B/row, ${((filled[table] ?? 0) / 1e6).toFixed(1)} MB`);

// The sweep, with every row of the month past its period.
clock.set(new Date(t0 + 62 * DAY));
const context = {
  database,
  clock,
  config: platformConfig({
    mode: 'sandbox',
    publicUrl: 'http://x',
    adminToken: 'x'.repeat(16),
    secretKey: 'y'.repeat(16),
    retention: DEFAULT_RETENTION,
  }),
} as unknown as PlatformContext;
const rules = retentionRules(context, quoteLogInDatabase(database));
const batchMs: number[] = [];
let deleted = 0;
for (const rule of rules) {
  let after: string | null = null;
  const ruleMs: number[] = [];
  do {
    const started = performance.now();
    const batch: { deleted: number; next: string | null } = await rule.sweep({
      now: clock.now(),
      limit: DEFAULT_RETENTION.batchRows,
      after,
    });
    ruleMs.push(performance.now() - started);
    batchMs.push(performance.now() - started);
    deleted += batch.deleted;
    after = batch.next;
  } while (after !== null);
  ruleMs.sort((a, b) => a - b);
  if (ruleMs.length > 1)
    console.log(
      `  ${rule.name}: ${ruleMs.length} batches, p50 ${ruleMs[Math.floor(ruleMs.length / 2)]?.toFixed(1)} ms, max ${ruleMs.at(-1)?.toFixed(1)} ms`,
    );
}
batchMs.sort((a, b) => a - b);
const pct = (p: number) => (batchMs[Math.min(batchMs.length - 1, Math.floor(p * batchMs.length))] ?? 0).toFixed(1);
console.log(
  `sweep: ${deleted} rows in ${batchMs.length} batches of ${DEFAULT_RETENTION.batchRows}; batch p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`,
);

// The next month's rows, into the space the sweep freed: on PostgreSQL once VACUUM marked it free, as
// autovacuum does after a sweep's deletes (without it, the second month would take new pages).
if (database.dialect === 'postgres') for (const table of TABLES) await sql`vacuum ${sql.table(table)}`.execute(db);
await fill(t0 + 62 * DAY);
const refilled = await sizes();
for (const table of TABLES)
  console.log(
    `  ${table}: after the sweep and a second month, ${((refilled[table] ?? 0) / 1e6).toFixed(1)} MB (first month ${((filled[table] ?? 0) / 1e6).toFixed(1)} MB)`,
  );
await database.close();
