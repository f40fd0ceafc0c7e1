// The read path's JavaScript alone, two builds side by side in one process: each builds the real app
// (from @feira/platform or another build's index.js) over its own copy of one seeded SQLite file, and
// the loop sends batches of requests with app.inject (no sockets, no second process), A then B then
// B then A …, timing each batch's CPU. Interleaved in one process, both builds see the same machine at
// the same moments, so the per-round ratio B ÷ A holds on a busy host where absolute figures do not.
// A CPU profile of this loop (node --cpu-prof) shows the process's own work per function, which a
// profile of a served process blurs on a shared host (a sample lands in `writev` while the thread waits
// for a core after waking the client).
//
//   node --import tsx bench/tools/inject-ab.ts --seed /tmp/list.db --orders 20000        # once
//   node --import tsx bench/tools/inject-ab.ts [--db /tmp/list.db] --a <dist dir> [--b current]
//        [--case cursor1|cursor2|cursordeep|offset1|record|all] [--rounds 10] [--batch 300] [--deep 1000]
//   (cursor2: the page after cursor1; cursordeep: page --deep, reached by following next links;
//   --b-case names another case for B, so that two pages of one build are weighed against each other)
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from '../lib/stats.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'current' },
    b: { type: 'string', default: 'current' },
    db: { type: 'string' },
    seed: { type: 'string' },
    orders: { type: 'string', default: '20000' },
    case: { type: 'string', default: 'cursor1' },
    rounds: { type: 'string', default: '10' },
    batch: { type: 'string', default: '300' },
    deep: { type: 'string', default: '1000' },
    'b-case': { type: 'string' },
  },
});

type PlatformModule = typeof import('@feira/platform');
const load = async (spec: string): Promise<PlatformModule> =>
  spec === 'current' ? import('@feira/platform') : import(pathToFileURL(join(resolve(spec), 'index.js')).href);

const BASE = '/v1/orders?status=approved&_sort=created_at:desc&_limit=20';

async function seedInto(platform: PlatformModule, file: string): Promise<void> {
  const database = await platform.openDatabase(`sqlite:${file}`);
  await platform.migrateToLatest(database);
  const now = new Date().toISOString();
  const sellerId = platform.cryptoRandom.uuid();
  const tenantId = platform.cryptoRandom.uuid();
  await database.db
    .insertInto('sellers')
    .values({ id: sellerId, name: 'Bench', login: `b-${sellerId}`, password_hash: 'x', created_at: now })
    .execute();
  await database.db
    .insertInto('tenants')
    .values({ id: tenantId, seller_id: sellerId, name: 'Bench store', created_at: now })
    .execute();
  const deps = { clock: platform.systemClock, random: platform.cryptoRandom };
  await platform.seedRecords(database, tenantId, { orders: Number(values.orders) }, deps);
  await database.close();
}

if (values.seed) {
  await seedInto(await load(values.a as string), resolve(values.seed));
  console.log(`seeded ${values.orders} orders into ${values.seed}`);
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'feira-inject-ab-'));

/** One build's app over a private copy of the seeded file, and the requests of each case. */
async function side(name: string, spec: string) {
  const platform = await load(spec);
  const file = join(scratch, `${name}.db`);
  // Without --db each build seeds its own file (builds of other commits may hold other migrations).
  if (values.db) copyFileSync(resolve(values.db), file);
  else await seedInto(platform, file);
  const database = await platform.openDatabase(`sqlite:${file}`);
  await platform.migrateToLatest(database);
  const given = {
    mode: 'sandbox',
    publicUrl: 'http://127.0.0.1',
    authUrl: 'http://127.0.0.1',
    adminToken: 'bench-admin-token-0123456789abcdef',
    secretKey: 'bench-secret-key-not-for-production',
    accessTokenTtlSeconds: platform.DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: platform.DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    bodyLimitBytes: platform.DEFAULT_BODY_LIMIT_BYTES,
    // spec-notes I20: the bucket is still taken on every request, under a limit the comparison never reaches.
    apiRateLimit: { requestsPerSecond: 100_000, burst: 1_000_000 },
  } as const;
  const app = await platform.buildApp({
    // A build that fills the defaults from the settings schema is given what it must be given; an older one took the literal.
    config:
      'platformConfig' in platform
        ? platform.platformConfig(given)
        : (given as unknown as ReturnType<PlatformModule['platformConfig']>),
    database,
    logger: false,
  });
  await app.ready();
  const tenant = await database.db.selectFrom('tenants').select(['id', 'seller_id']).executeTakeFirstOrThrow();
  const familyId = platform.cryptoRandom.uuid();
  await database.db
    .insertInto('token_families')
    .values({
      id: familyId,
      client_id: 'bench-client',
      seller_id: tenant.seller_id,
      created_at: new Date().toISOString(),
      revoked_at: null,
      revoked_reason: null,
    })
    .execute();
  // Older builds kept the signer on the platform decoration.
  const holder =
    (app as unknown as { identity?: { signer: typeof app.identity.signer } }).identity ??
    (app.platform as unknown as typeof app.identity);
  const { token } = await holder.signer.sign(platform.ACCESS_TOKEN_TYP, {
    sellerId: tenant.seller_id,
    clientId: 'bench-client',
    scope: 'open:order-order:read',
    tenants: [tenant.id],
    familyId,
    ttlSeconds: 7200,
  });
  const headers = { authorization: `Bearer ${token}` };
  const first = await app.inject({ url: `${BASE}&_paginate=cursor`, headers });
  const firstId = (first.json() as { results: Array<{ id: string }> }).results[0]?.id;
  // A later cursor page: the first page's next link (its path and query), so the cursor is checked and signed.
  const next = new URL((first.json() as { meta: { links: { next: string } } }).meta.links.next);
  let deep = next;
  for (let page = 2; page < Number(values.deep); page++) {
    const response = await app.inject({ url: `${deep.pathname}${deep.search}`, headers });
    const link = (response.json() as { meta: { links: { next?: string } } }).meta.links.next;
    if (!link) throw new Error(`${name}: the list ends at page ${page}; seed more orders for --deep ${values.deep}`);
    deep = new URL(link);
  }
  const urls: Record<string, string> = {
    cursor1: `${BASE}&_paginate=cursor`,
    cursor2: `${next.pathname}${next.search}`,
    cursordeep: `${deep.pathname}${deep.search}`,
    offset1: BASE,
    record: `/v1/orders/${firstId}`,
  };
  return {
    name,
    urls,
    async batch(url: string, n: number): Promise<number> {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const response = await app.inject({ url, headers });
        if (response.statusCode !== 200)
          throw new Error(`${name}: HTTP ${response.statusCode} ${response.payload.slice(0, 200)}`);
      }
      const c = process.cpuUsage(c0);
      return (c.user + c.system) / n;
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

const a = await side('A', values.a as string);
const b = await side('B', values.b as string);
const batch = Number(values.batch);
const med = (xs: number[]) => percentile(Float64Array.from(xs).sort(), 50);
for (const name of values.case === 'all' ? Object.keys(a.urls) : [values.case as string]) {
  const urlA = a.urls[name];
  const urlB = b.urls[values['b-case'] ?? name];
  if (!urlA || !urlB) throw new Error(`unknown case ${name}`);
  await a.batch(urlA, batch);
  await b.batch(urlB, batch);
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const [ra, rb] =
      round % 2 === 0
        ? [await a.batch(urlA, batch), await b.batch(urlB, batch)]
        : await b.batch(urlB, batch).then(async (y) => [await a.batch(urlA, batch), y]);
    cpuA.push(ra as number);
    cpuB.push(rb as number);
    ratios.push((rb as number) / (ra as number));
  }
  const span = (xs: number[]) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
  console.log(
    `${name}: CPU µs per request A ${med(cpuA).toFixed(1)}, B ${med(cpuB).toFixed(1)}; B ÷ A median ${med(ratios).toFixed(3)} (rounds ${span(ratios)})`,
  );
}
await a.close();
await b.close();
rmSync(scratch, { recursive: true, force: true });
