// The test's side of the hosts: the operator's tool (an in-process platform on
// the database, for what has no HTTP API: sellers, clients, authorization
// codes), the clients' calls to the API hosts, the receiver's log, and the
// figures at a given round trip to the database.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { issueAuthorizationCode } from '../packages/platform/src/index.js';
import { openDatabase } from '../packages/platform/src/storage/database.js';
import { createTestPlatform, ManualClock, type TestPlatform, testConfig } from '../packages/platform/src/testing.js';
import { ADMIN_TOKEN, type Hosts, SECRET_KEY, SELLER_QUOTE_URL, waitUntil } from './harness.js';

export const REDIRECT_URI = 'https://integrator.example/callback';
const SCOPES = ['open:order-order:read', 'open:webhook:write'] as const;
export const QUOTE_SKU = 'SKU-HOSTS-1';

export interface Arrival {
  id: string;
  from: string;
  at: number;
}

export interface Store {
  tenantId: string;
  token: string;
}

/** The operator's tool: the same database, reached directly, with the hosts' secret key and public URL. */
export async function operatorTool(hosts: Hosts): Promise<TestPlatform> {
  return createTestPlatform(
    { dialect: 'postgres', open: () => openDatabase(hosts.directDatabaseUrl) },
    {
      config: testConfig({
        secretKey: SECRET_KEY,
        adminToken: ADMIN_TOKEN,
        publicUrl: hosts.publicUrl,
        authUrl: hosts.publicUrl,
      }),
      clock: new ManualClock(new Date()),
    },
  );
}

/**
 * The operator's tool of another build (a previous release's: hosts/release.ts), from that build's own
 * compiled modules: it opens the database as that release does, so it migrates nothing newer.
 */
export async function releaseOperatorTool(hosts: Hosts, buildRoot: string): Promise<TestPlatform> {
  const dist = (file: string) => pathToFileURL(join(buildRoot, 'packages/platform/dist', file)).href;
  const testing = (await import(dist('testing.js'))) as typeof import('../packages/platform/src/testing.js');
  const storage = (await import(dist('storage/database.js'))) as typeof import('../packages/platform/src/storage/database.js');
  return testing.createTestPlatform(
    { dialect: 'postgres', open: () => storage.openDatabase(hosts.directDatabaseUrl) },
    {
      config: testing.testConfig({
        secretKey: SECRET_KEY,
        adminToken: ADMIN_TOKEN,
        publicUrl: hosts.publicUrl,
        authUrl: hosts.publicUrl,
      }),
      clock: new testing.ManualClock(new Date()),
    },
  );
}

/** A seller's store subscribed (v0) to order events at `webhook`, with a token for its API calls. */
export async function subscribedStore(hosts: Hosts, tool: TestPlatform, webhook: string): Promise<Store> {
  const { tenantIds } = await tool.createSeller();
  const tenantId = tenantIds[0] as string;
  const token = await tool.mintAccessToken({ tenants: [tenantId], scopes: [...SCOPES], clientId: 'hosts-client' });
  const res = await request(`${hosts.apiOrigin('api1')}/v0/onboarding/signup`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ webhook, topics: ['order'] }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`signup: HTTP ${res.statusCode} ${text}`);
  return { tenantId, token };
}

/** A store quoting through the seller host (its product, its shipping method). */
export async function quotingStore(hosts: Hosts, tool: TestPlatform): Promise<string> {
  const { tenantIds } = await tool.createSeller();
  const tenantId = tenantIds[0] as string;
  await admin(hosts, 'POST', `/admin/v1/tenants/${tenantId}/products`, {
    sku: QUOTE_SKU,
    title: 'Caneca Silva',
    price: 49.9,
    stock: 1000,
    dimensions: { depth: 20, height: 10, width: 15, weight: 500 },
  });
  await admin(hosts, 'PUT', `/admin/v1/tenants/${tenantId}/shipping`, {
    method: 'seller_api',
    url: SELLER_QUOTE_URL,
    distribution_centers: [],
  });
  return tenantId;
}

async function admin(hosts: Hosts, method: 'PUT' | 'POST', path: string, body: unknown): Promise<void> {
  const res = await request(`${hosts.apiOrigin('api1')}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
}

/** Errors a request gets before the server could have seen it: safe to send again elsewhere, even a POST. */
export function notSent(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return ['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
}

export interface WriteResult {
  ids: string[];
  /** Answers other than 201, and errors after the request may have been sent, by kind. */
  failures: Map<string, number>;
}

/**
 * Writes `count` orders through the admin API, `parallel` at a time, each on the next origin `origins()`
 * gives (the load balancer's rotation); a write refused before it was sent goes to the next one.
 */
export async function writeOrders(
  origins: () => string[],
  tenantId: string,
  count: number,
  parallel: number,
  inFlight?: Map<string, number>,
): Promise<WriteResult> {
  const ids: string[] = [];
  const failures = new Map<string, number>();
  let next = 0;
  let turn = 0;
  const one = async () => {
    while (next < count) {
      next += 1;
      for (let attempt = 0; attempt < 6; attempt++) {
        const rotation = origins();
        const origin = rotation[turn++ % rotation.length] as string;
        inFlight?.set(origin, (inFlight.get(origin) ?? 0) + 1);
        try {
          const res = await request(`${origin}/admin/v1/tenants/${tenantId}/orders`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              customer: { id: 'cust-hosts', name: 'Ana Silva' },
              items: [{ sku: 'SKU-1', quantity: 1, price: 10 }],
            }),
            headersTimeout: 30_000,
            bodyTimeout: 30_000,
          });
          const text = await res.body.text();
          if (res.statusCode === 201) ids.push((JSON.parse(text) as { id: string }).id);
          else failures.set(`HTTP ${res.statusCode}`, (failures.get(`HTTP ${res.statusCode}`) ?? 0) + 1);
          break;
        } catch (error) {
          if (notSent(error)) continue;
          const kind = (error as { code?: string }).code ?? String(error);
          failures.set(kind, (failures.get(kind) ?? 0) + 1);
          break;
        } finally {
          inFlight?.set(origin, (inFlight.get(origin) ?? 1) - 1);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, one));
  return { ids, failures };
}

export async function receiverLog(hosts: Hosts): Promise<Arrival[]> {
  const res = await request(`${hosts.receiverOrigin}/log`);
  return (await res.body.json()) as Arrival[];
}

export async function setReceiverDelay(hosts: Hosts, delayMs: number): Promise<void> {
  const res = await request(`${hosts.receiverOrigin}/config?delayMs=${delayMs}`, { method: 'PUT' });
  await res.body.dump();
}

/** The delivery id (X-Webhook-Id) of each order's event, once each has one. */
export async function deliveryIds(tool: TestPlatform, orders: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < orders.length; i += 500) {
    const rows = await tool.database.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
      .select(['e.record_id', 'd.id'])
      .where('e.record_id', 'in', orders.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.record_id, r.id);
  }
  return out;
}

/** Waits until every order's delivery reached the receiver; resolves with the receiver's log then. */
export async function allDelivered(hosts: Hosts, tool: TestPlatform, orders: string[], deadlineMs: number): Promise<Arrival[]> {
  return waitUntil(`${orders.length} orders delivered`, deadlineMs, async () => {
    const ids = await deliveryIds(tool, orders);
    if (ids.size < orders.length) return undefined;
    const log = await receiverLog(hosts);
    const seen = new Set(log.map((a) => a.id));
    return [...ids.values()].every((id) => seen.has(id)) ? log : undefined;
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs `parallel` loops of `call` for `durationMs` (or until `call` returns false); latencies of the calls that returned true. */
async function loop(parallel: number, durationMs: number, call: (worker: number) => Promise<boolean | 'stop'>) {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + durationMs;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async (_, worker) => {
      while (performance.now() < end) {
        const t = performance.now();
        let ok: boolean | 'stop';
        try {
          ok = await call(worker);
        } catch {
          ok = false;
        }
        if (ok === 'stop') return;
        if (ok) latencies.push(performance.now() - t);
        else errors += 1;
      }
    }),
  );
  return { latencies, errors, seconds: (performance.now() - start) / 1000 };
}

export interface Figures {
  delayMs: number;
  /** The round trip a `SELECT 1` through the proxy took, median (what the added delay really was). */
  selectOneMs: number;
  exchangesPerSecond: number;
  refreshesPerSecond: number;
  listP50Ms: number;
  quoteOverheadP50Ms: number;
  deliveriesPerSecond: number;
  errors: number;
}

/** Issues `count` authorization codes for a client of the operator's (as the consent page issues them). */
export async function issueCodes(tool: TestPlatform, count: number) {
  const { clientId, clientSecret } = await tool.createClient({ redirectUris: [REDIRECT_URI], scopes: [...SCOPES] });
  const { sellerId, tenantIds } = await tool.createSeller();
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    codes.push(
      await issueAuthorizationCode(tool.app.identity, {
        clientId,
        sellerId,
        redirectUri: REDIRECT_URI,
        scope: SCOPES.join(' '),
        tenants: tenantIds,
        codeChallenge: undefined,
      }),
    );
  }
  return { clientId, clientSecret, codes };
}

/** The round trip of `SELECT 1` through the proxy, median of 30. */
export async function selectOneMs(hosts: Hosts): Promise<number> {
  const database = await openDatabase(hosts.databaseUrl, { poolSize: 1 });
  try {
    const { sql } = await import('kysely');
    await sql`select 1`.execute(database.db);
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await sql`select 1`.execute(database.db);
      times.push(performance.now() - t);
    }
    return percentile(times, 50);
  } finally {
    await database.close();
  }
}

/** The figures at the proxy's current delay: bounded, a few seconds each. */
export async function measure(
  hosts: Hosts,
  tool: TestPlatform,
  delayMs: number,
  stores: { orders: Store; quoteTenant: string },
): Promise<Figures> {
  const origins = [hosts.apiOrigin('api1'), hosts.apiOrigin('api2')];
  let errors = 0;
  const prepared = await issueCodes(tool, 1_500);
  const basic = `Basic ${Buffer.from(`${prepared.clientId}:${prepared.clientSecret}`).toString('base64')}`;
  let nextCode = 0;
  const refreshTokens: string[] = [];
  const exchanges = await loop(8, 5_000, async (worker) => {
    const code = prepared.codes[nextCode++];
    if (!code) return 'stop';
    const res = await request(`${origins[worker % 2]}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code }).toString(),
    });
    const body = (await res.body.json()) as { refresh_token?: string };
    if (res.statusCode !== 200) return false;
    if (body.refresh_token && refreshTokens.length < 8) refreshTokens.push(body.refresh_token);
    return true;
  });
  errors += exchanges.errors;
  const refreshes = await loop(8, 4_000, async (worker) => {
    const token = refreshTokens[worker];
    if (!token) return false;
    const res = await request(`${origins[worker % 2]}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
    });
    const body = (await res.body.json()) as { refresh_token?: string };
    if (res.statusCode !== 200 || !body.refresh_token) return false;
    refreshTokens[worker] = body.refresh_token;
    return true;
  });
  errors += refreshes.errors;
  const list = await loop(4, 3_000, async (worker) => {
    const res = await request(`${origins[worker % 2]}/v1/orders?_limit=20&_sort=created_at:desc`, {
      headers: { authorization: `Bearer ${stores.orders.token}`, 'x-tenant-id': stores.orders.tenantId },
    });
    await res.body.dump();
    return res.statusCode === 200;
  });
  errors += list.errors;
  const quoteBody = JSON.stringify({
    tenant_id: stores.quoteTenant,
    zipcode: '01310100',
    items: [{ sku: QUOTE_SKU, quantity: 1 }],
  });
  const quotes = await loop(1, 2_000, async () => {
    const res = await request(`${origins[0]}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: quoteBody,
    });
    const body = (await res.body.json()) as { available?: boolean };
    return res.statusCode === 200 && body.available === true;
  });
  errors += quotes.errors;
  const bare = await loop(1, 1_000, async () => {
    const res = await request(`${hosts.sellerOrigin}/quote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ sku: QUOTE_SKU, quantity: 1 }] }),
    });
    await res.body.dump();
    return res.statusCode === 200;
  });
  const started = Date.now();
  const written = await writeOrders(() => origins, stores.orders.tenantId, 500, 16);
  errors += [...written.failures.values()].reduce((a, b) => a + b, 0);
  const log = await allDelivered(hosts, tool, written.ids, 120_000);
  const ids = new Set((await deliveryIds(tool, written.ids)).values());
  const last = Math.max(...log.filter((a) => ids.has(a.id)).map((a) => a.at));
  return {
    delayMs,
    selectOneMs: await selectOneMs(hosts),
    exchangesPerSecond: exchanges.latencies.length / exchanges.seconds,
    refreshesPerSecond: refreshes.latencies.length / refreshes.seconds,
    listP50Ms: percentile(list.latencies, 50),
    quoteOverheadP50Ms: percentile(quotes.latencies, 50) - percentile(bare.latencies, 50),
    deliveriesPerSecond: written.ids.length / ((last - started) / 1000),
    errors,
  };
}

/** Waits until the database records every order's delivery as succeeded (its result written, by whichever dispatcher). */
export async function allRecorded(tool: TestPlatform, orders: string[], deadlineMs: number): Promise<void> {
  await waitUntil(`${orders.length} deliveries recorded as succeeded`, deadlineMs, async () => {
    const ids = [...(await deliveryIds(tool, orders)).values()];
    if (ids.length < orders.length) return false;
    for (let i = 0; i < ids.length; i += 500) {
      const open = await tool.database.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('id', 'in', ids.slice(i, i + 500))
        .where('state', '!=', 'succeeded')
        .executeTakeFirstOrThrow();
      if (Number(open.n) > 0) return false;
    }
    return true;
  });
}
