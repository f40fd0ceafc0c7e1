// The webhook dispatcher's database work per delivery, in one process and
// without HTTP: the fan-out of a backlog of outbox events into
// leased deliveries, 500 a transaction, then the recording of their successes,
// as the dispatcher batches them. Prints the process CPU time of each per
// delivery and, on PostgreSQL, the server's too (every `postgres` process of
// the machine, read from /proc: its backends, WAL writer and autovacuum; do
// not run anything else against PostgreSQL meanwhile). A full benchmark run
// varies between runs on a shared host more than such a change moves it; this
// varies less, so alternate it between two trees to see a change to the
// dispatcher's database path (docs/decisions.md D32):
//
//   node --import tsx bench/tools/dispatcher-db-path.ts                   # this tree, SQLite
//   node --import tsx bench/tools/dispatcher-db-path.ts --root /tmp/base  # another checkout's sources
//   node --import tsx bench/tools/dispatcher-db-path.ts --profile drain.cpuprofile
//   FEIRA_BENCH_DATABASE_URL=postgres://… node --import tsx bench/tools/dispatcher-db-path.ts --dialect postgres
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Database } from '../../packages/platform/src/storage/database.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(import.meta.dirname, '../..') },
    events: { type: 'string', default: '40000' },
    profile: { type: 'string' },
    dialect: { type: 'string', default: 'sqlite' },
  },
});
if (values.dialect !== 'sqlite' && values.dialect !== 'postgres') throw new Error('--dialect is sqlite or postgres');
const postgresUrl = process.env.FEIRA_BENCH_DATABASE_URL;
if (values.dialect === 'postgres' && !postgresUrl) throw new Error('--dialect postgres needs FEIRA_BENCH_DATABASE_URL');
const root = resolve(values.root as string);
const events = Number(values.events);
const load = (path: string) => import(pathToFileURL(resolve(root, 'packages/platform/src', path)).href);
// A checkout from before prepareDatabase keeps the test databases under storage/.
const { openSqliteTestDatabase, openPostgresTestDatabase } = await load('test-databases.ts').catch(() =>
  load('storage/test-databases.ts'),
);
const { fanOutEvents } = await load('webhooks/fan-out.ts');
const { recordAttempts } = await load('webhooks/delivery-log.ts');
const { timeOrderedUuids } = await load('core/uuid-v7.ts');
const { cryptoRandom } = await load('core/random.ts');

const database: Database =
  values.dialect === 'postgres' ? await openPostgresTestDatabase(postgresUrl, { poolSize: 2 }) : await openSqliteTestDatabase();
const { db } = database;
// One subscription, outside any seller or app: only the dispatcher's own tables are measured.
if (database.dialect === 'sqlite') await sql`pragma foreign_keys = off`.execute(db);
else await sql`alter table webhook_subscriptions drop constraint webhook_subscriptions_tenant_id_fkey`.execute(db);
const now = new Date().toISOString();
await db
  .insertInto('webhook_subscriptions')
  .values({
    id: 'bench-subscription',
    client_id: 'bench-client',
    tenant_id: 'bench-tenant',
    topic: 'order',
    version: 'v1',
    url: 'https://127.0.0.1/webhooks',
    secret_sealed: null,
    previous_secret_sealed: null,
    previous_secret_grace_until: null,
    state: 'active',
    failing_since: null,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  })
  .execute();
const body = JSON.stringify({
  data: { status: 'CREATION', params: { id: 'order-1' }, resource: '/v1/orders/order-1' },
  tenant_id: 'bench-tenant',
  topic: 'order',
});
for (let i = 0; i < events; i += 1000) {
  const ids: string[] = timeOrderedUuids(cryptoRandom, new Date(), 1000);
  const rows = ids.map((id) => ({
    id,
    tenant_id: 'bench-tenant',
    topic: 'order',
    status: 'CREATION',
    record_id: 'order-1',
    resource: '/v1/orders/order-1',
    body,
    created_at: new Date().toISOString(),
  }));
  await db.transaction().execute(async (trx) => {
    for (let j = 0; j < rows.length; j += 100)
      await trx
        .insertInto('outbox_events')
        .values(rows.slice(j, j + 100))
        .execute();
  });
}

const requestHeaders = {
  'content-type': 'application/json',
  'user-agent': 'feira-webhooks/1',
  'x-webhook-id': '0190a6c8-0000-7000-8000-000000000000',
  'x-timestamp': '1700000000',
  'x-signature-256': `sha256=${'a'.repeat(64)}`,
};
const session = new Session();
if (values.profile) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
/** CPU time of every `postgres` process, in µs (clock ticks of 10 ms: meaningful over a whole drain only). */
const serverCpu = () => {
  if (database.dialect !== 'postgres') return 0;
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10_000;
};
let fanOutMicros = 0;
let recordMicros = 0;
let fanOutServer = 0;
let recordServer = 0;
let delivered = 0;
for (;;) {
  // The server's CPU is read around the process's, so that reading /proc is not counted as the process's.
  let fromServer = serverCpu();
  let from = cpu();
  const leaseUntilIso = new Date(Date.now() + 60_000).toISOString();
  const out = await fanOutEvents(database, { clock: { now: () => new Date() } }, 500, {
    worker: 'bench-worker',
    leaseUntilIso,
    max: 1000,
  });
  fanOutMicros += cpu() - from;
  fanOutServer += serverCpu() - fromServer;
  if (out.events === 0) break;
  const at = new Date();
  const finished = out.leased.map(({ claim }: { claim: unknown }) => ({
    claim,
    worker: 'bench-worker',
    startedAt: at,
    finishedAt: at,
    result: { ok: true, statusCode: 200, error: null, responseBody: null, requestHeaders, durationMs: 2, retryAfterMs: null },
  }));
  fromServer = serverCpu();
  from = cpu();
  await recordAttempts(database, finished, [], cryptoRandom);
  recordMicros += cpu() - from;
  recordServer += serverCpu() - fromServer;
  delivered += finished.length;
}
if (values.profile) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(values.profile, JSON.stringify(profile));
}
await database.close();
if (delivered !== events) throw new Error(`delivered ${delivered} of ${events} events`);
const perDelivery = (micros: number) => `${(micros / delivered).toFixed(2)} µs`;
console.log(
  `${root} (${database.dialect}): ${delivered.toLocaleString('en-US')} deliveries; CPU per delivery: ` +
    `fan-out ${perDelivery(fanOutMicros)}, recording ${perDelivery(recordMicros)}` +
    (database.dialect === 'postgres'
      ? `; PostgreSQL's: fan-out ${perDelivery(fanOutServer)}, recording ${perDelivery(recordServer)}`
      : ''),
);
