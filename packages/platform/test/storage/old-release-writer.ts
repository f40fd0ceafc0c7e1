// The previous release still serving while the new one migrates: writes
// records as that release writes them (an order and its outbox event in one
// transaction, and a quote call), with exactly the columns its statements
// named, through the bare drivers, so nothing of this release's code is in
// the path. It writes until a line arrives on stdin (or a bound is reached),
// then prints the ids of the orders whose commits it saw succeed, and every
// error, as JSON.
//
//   FEIRA_DATABASE_URL=sqlite:/tmp/x/feira.db FEIRA_TENANT_ID=t2 node --import tsx old-release-writer.ts
import { randomUUID } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

const url = process.env.FEIRA_DATABASE_URL;
const tenantId = process.env.FEIRA_TENANT_ID;
if (!url || !tenantId) throw new Error('FEIRA_DATABASE_URL and FEIRA_TENANT_ID are required');
/** Bounds: never more than this many orders, nor longer than this. */
const MAX_ORDERS = 5_000;
const MAX_MS = 60_000;

const ORDER_COLUMNS =
  'id, tenant_id, code, status, customer_id, customer_name, total_amount_cents, currency, items, shipping, shipping_distribution_center_id, created_at, updated_at';
const OUTBOX_COLUMNS = 'id, tenant_id, topic, status, record_id, resource, body, created_at, dispatched_at';
const QUOTE_COLUMNS =
  'id, tenant_id, session_id, purpose, outcome, latency_ms, http_status, detail, fallback_used, gateway_kind, created_at';

function rows(n: number) {
  const id = `old-${String(n).padStart(5, '0')}-${randomUUID()}`;
  const at = new Date().toISOString();
  const resource = `/seller/v1/orders/${id}`;
  return {
    id,
    order: [id, tenantId, `OLD-${n}`, 'new', `c-${n}`, 'Cliente Antigo', 1990 + n, 'BRL', '[]', null, null, at, at],
    event: [
      randomUUID(),
      tenantId,
      'order',
      'CREATION',
      id,
      resource,
      JSON.stringify({ data: { status: 'CREATION', params: { id }, resource }, tenant_id: tenantId, topic: 'order' }),
      at,
      null,
    ],
    quote: [randomUUID(), tenantId, randomUUID(), 'storefront', 'ok', 12.5, 200, null, 0, null, at],
  };
}

let stop = false;
process.stdin.on('data', () => {
  stop = true;
});
process.stdin.resume();

const acknowledged: string[] = [];
const errors: string[] = [];
const deadline = performance.now() + MAX_MS;
const placeholders = (n: number, dollar: boolean) => Array.from({ length: n }, (_, i) => (dollar ? `$${i + 1}` : '?')).join(', ');

if (url.startsWith('sqlite:')) {
  const sqlite = new SqliteDatabase(url.slice('sqlite:'.length), { timeout: 5_000 });
  sqlite.pragma('foreign_keys = ON');
  const insertOrder = sqlite.prepare(`insert into orders (${ORDER_COLUMNS}) values (${placeholders(13, false)})`);
  const insertEvent = sqlite.prepare(`insert into outbox_events (${OUTBOX_COLUMNS}) values (${placeholders(9, false)})`);
  const insertQuote = sqlite.prepare(`insert into quote_calls (${QUOTE_COLUMNS}) values (${placeholders(11, false)})`);
  const write = sqlite.transaction((r: ReturnType<typeof rows>) => {
    insertOrder.run(...r.order);
    insertEvent.run(...r.event);
    insertQuote.run(...r.quote);
  });
  for (let n = 0; !stop && n < MAX_ORDERS && performance.now() < deadline; n++) {
    const r = rows(n);
    try {
      write.immediate(r);
      acknowledged.push(r.id);
    } catch (error) {
      errors.push(String(error));
    }
    // A turn of the event loop, so the stop line is read.
    await new Promise((resolve) => setImmediate(resolve));
  }
  sqlite.close();
} else {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (let n = 0; !stop && n < MAX_ORDERS && performance.now() < deadline; n++) {
    const r = rows(n);
    try {
      await client.query('begin');
      await client.query(`insert into orders (${ORDER_COLUMNS}) values (${placeholders(13, true)})`, r.order);
      await client.query(`insert into outbox_events (${OUTBOX_COLUMNS}) values (${placeholders(9, true)})`, r.event);
      await client.query(`insert into quote_calls (${QUOTE_COLUMNS}) values (${placeholders(11, true)})`, r.quote);
      await client.query('commit');
      acknowledged.push(r.id);
    } catch (error) {
      errors.push(String(error));
      await client.query('rollback').catch(() => {});
    }
  }
  await client.end();
}
process.stdout.write(`${JSON.stringify({ acknowledged, errors })}\n`);
process.exit(0);
