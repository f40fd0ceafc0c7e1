import { testTls } from '@feira/platform/testing';
import { request } from 'undici';
import { VTEX_HEADER } from '../../packages/platform/test/shipping/freight-kit.js';
import { hugeInlineCell, sharedStringsBomb } from '../../packages/platform/test/shipping/xlsx-bombs.js';
import { type LoadGenerator, startLoadGenerator } from '../lib/load.js';
import type { LoadResult, RequestSpec } from '../lib/load-plan.js';
import {
  benchDatabase,
  type DatabaseKind,
  type PlatformHandle,
  postgresMissing,
  startPlatform,
  stopPlatform,
} from '../lib/platform-process.js';
import { admin, QUOTE_SKU, QUOTE_ZIPCODE, storefrontQuote, storeQuotingAt } from '../lib/quote-store.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';

const SELLER = new URL('../processes/quote-seller.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
/** Storefront quotes of the other store, and list pages of the other app, each per second (open loop). */
const VICTIM_RATE = 100;
/** The hostile app's calls per second: fifty times its limit. */
const FLOOD_RATE = 500;
/** The hostile app's limit: the platform's default per app and store (spec-notes I20), set on it explicitly. */
const HOSTILE_LIMIT = { requests_per_second: 10, burst: 100 };
const GOAL = 1.5;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The hostile tenant's files: the three (a shared-strings bomb, a huge inline cell, a CSV with a 30 MB cell). */
function hostileFiles(): Array<{ contentType: string; body: Buffer }> {
  const cell = 'x'.repeat(30 * 1024 * 1024);
  return [
    { contentType: XLSX, body: sharedStringsBomb().zip },
    { contentType: XLSX, body: hugeInlineCell().zip },
    { contentType: 'text/csv', body: Buffer.from(`${VTEX_HEADER}\n01000000;01999999;${cell};0;30000;12,90;0;0;;3;BRA;0\n`) },
  ];
}

/** A client application registered through the admin API, with a seller and store of its own and an access token. */
async function app(platform: PlatformHandle, name: string, tenantId?: string) {
  const client = (await admin(platform, 'POST', '/admin/v1/clients', {
    name,
    redirect_uris: ['https://app.example/callback'],
    scopes: ['open:portfolio:read'],
    default_scopes: [],
  })) as { client_id: string };
  const access = await platform.call<{ tenantId: string; accessToken: string }>('createSellerAccess', {
    scopes: ['open:portfolio:read'],
    clientId: client.client_id,
    ...(tenantId ? { tenantId } : {}),
  });
  return { clientId: client.client_id, ...access };
}

interface UploadTally {
  sent: number;
  /** Answers by status: every one should be a refusal (413 or 422). */
  statuses: Record<string, number>;
}

/** Uploads the hostile files to the hostile store, two at a time, until `stop()`; what the platform answered. */
function uploadLoop(platform: PlatformHandle, tenantId: string) {
  const files = hostileFiles();
  const tally: UploadTally = { sent: 0, statuses: {} };
  let stopped = false;
  const lane = async (lane: number) => {
    for (let n = lane; !stopped && n < 10_000; n += 2) {
      const file = files[n % files.length] as (typeof files)[number];
      let status: string;
      try {
        const response = await request(
          `${platform.origin}/admin/v1/tenants/${tenantId}/shipping/freight-tables/hostile-${lane}`,
          {
            method: 'PUT',
            headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': file.contentType },
            body: file.body,
            headersTimeout: 0,
            bodyTimeout: 0,
          },
        );
        await response.body.dump();
        status = String(response.statusCode);
      } catch (error) {
        // A refused upload's connection may be closed before its body is sent whole.
        status = (error as { code?: string }).code ?? 'error';
      }
      tally.sent += 1;
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    }
  };
  const lanes = Promise.all([lane(0), lane(1)]);
  return {
    tally,
    stop: async () => {
      stopped = true;
      await lanes;
    },
  };
}

interface Phase {
  quotes: LoadResult;
  lists: LoadResult;
}

async function measureVariant(ctx: ScenarioContext, kind: DatabaseKind): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  // p99 needs a few hundred samples: quick mode's one-second window holds too few.
  const warmupMs = Math.max(timing.warmupMs, 500);
  const durationMs = Math.max(timing.durationMs, 3_000);
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const database = await benchDatabase(ctx, kind, 'tenant-isolation');
  const seller = await ctx.children.start<{ port: number; origin: string }>('quote seller', SELLER);
  const platform = await startPlatform(ctx, database, { fixtures: [SELLER_ACCESS], outboundCa: testTls.ca });
  const generators: LoadGenerator[] = [];
  try {
    const quotingStore = await storeQuotingAt(platform, `${seller.info.origin}/quote`);
    const probe = await storefrontQuote(platform, quotingStore);
    if (!probe.available) throw new Error(`the other store's quote is not available: ${JSON.stringify(probe.reason)}`);
    const other = await app(platform, 'Other app', quotingStore);
    const hostile = await app(platform, 'Hostile app');
    await admin(platform, 'PATCH', `/admin/v1/clients/${hostile.clientId}`, { rate_limit: HOSTILE_LIMIT });

    const quote: RequestSpec = {
      method: 'POST',
      path: '/storefront/v1/quotes',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: quotingStore, zipcode: QUOTE_ZIPCODE, items: [{ sku: QUOTE_SKU, quantity: 1 }] }),
    };
    const list = (token: string): RequestSpec => ({
      method: 'GET',
      path: '/seller/v1/products?_limit=20',
      headers: { authorization: `Bearer ${token}` },
    });
    const [quotes, lists, flood] = await Promise.all([1, 2, 3].map(() => startLoadGenerator(ctx.children)));
    generators.push(quotes as LoadGenerator, lists as LoadGenerator, flood as LoadGenerator);
    const victims = (): Promise<Phase> =>
      Promise.all([
        (quotes as LoadGenerator).run({
          origin: platform.origin,
          connections: 32,
          ratePerSecond: VICTIM_RATE,
          warmupMs,
          durationMs,
          requests: [quote],
        }),
        (lists as LoadGenerator).run({
          origin: platform.origin,
          connections: 32,
          ratePerSecond: VICTIM_RATE,
          warmupMs,
          durationMs,
          requests: [list(other.accessToken)],
        }),
      ]).then(([q, l]) => ({ quotes: q, lists: l }));

    ctx.log(`${label}: quiet, the other store's quotes and the other app's lists at ${VICTIM_RATE}/s each`);
    const quiet = await victims();
    ctx.log(`${label}: the same while the hostile app floods at ${FLOOD_RATE}/s and its store uploads hostile files`);
    const uploads = uploadLoop(platform, hostile.tenantId);
    const flooding = (flood as LoadGenerator).run({
      origin: platform.origin,
      connections: 64,
      ratePerSecond: FLOOD_RATE,
      warmupMs,
      durationMs,
      requests: [list(hostile.accessToken)],
      okStatuses: [200, 429],
    });
    const [loud, floodResult] = await Promise.all([victims(), flooding]);
    await uploads.stop();

    for (const [name, r] of [
      ['quiet quotes', quiet.quotes],
      ['quiet lists', quiet.lists],
      ['quotes under attack', loud.quotes],
      ['lists under attack', loud.lists],
      ['flood', floodResult],
    ] as const) {
      if (r.errors)
        ctx.notes.push(`${label} ${name}: ${r.errors} errors (${r.firstError}); statuses ${JSON.stringify(r.statusCounts)}`);
      if (r.late) ctx.notes.push(`${label} ${name}: ${r.late} requests could not be sent on time`);
    }
    const refused = uploads.tally.statuses;
    // Refused: a bound (413, 422), the store's upload rate (429), or the connection closed on a refused body.
    const accepted = Object.entries(refused)
      .filter(([status]) => status.startsWith('2'))
      .reduce((sum, [, n]) => sum + n, 0);
    ctx.notes.push(
      `${label}: hostile uploads answered ${JSON.stringify(refused)} (${uploads.tally.sent} sent, two at a time, through the admin API's freight-table PUT, the same reader as the seller's)` +
        (accepted ? `; ${accepted} NOT refused` : ''),
    );
    const floodTotal = Object.values(floodResult.statusCounts).reduce((a, b) => a + b, 0);
    const limited = floodTotal ? (floodResult.statusCounts['429'] ?? 0) / floodTotal : null;
    const ratioFigure = (name: string, loudMs: number | null, quietMs: number | null, baselineName: string) => {
      const f = figure(name, loudMs, 'ms', { baseline: { name: baselineName, value: quietMs, unit: 'ms' } });
      return f.ratio === null ? f : { ...f, target: { text: `≤ ${GOAL}× quiet`, met: f.ratio <= GOAL } };
    };
    await stopPlatform(ctx, platform, `platform (${label})`);
    return [
      ratioFigure(
        `${label}: other store's quote p99 under attack`,
        loud.quotes.latency.p99Ms,
        quiet.quotes.latency.p99Ms,
        'quiet p99',
      ),
      figure(`${label}: other store's quote p50 under attack`, loud.quotes.latency.p50Ms, 'ms', {
        baseline: { name: 'quiet p50', value: quiet.quotes.latency.p50Ms, unit: 'ms' },
      }),
      ratioFigure(
        `${label}: other app's list p99 under attack`,
        loud.lists.latency.p99Ms,
        quiet.lists.latency.p99Ms,
        'quiet p99',
      ),
      figure(`${label}: other app's list p50 under attack`, loud.lists.latency.p50Ms, 'ms', {
        baseline: { name: 'quiet p50', value: quiet.lists.latency.p50Ms, unit: 'ms' },
      }),
      figure(`${label}: hostile app's calls refused 429`, limited === null ? null : round(limited * 100, 1), '%'),
      figure(`${label}: hostile uploads refused`, uploads.tally.sent - accepted, 'uploads'),
    ];
  } finally {
    for (const generator of generators) await generator.stop();
    await seller.stop();
    await database.drop();
  }
}

/**
 * BENCHMARKS.md, "Tenant isolation": another store's storefront quotes and
 * another app's list pages, each at ${VICTIM_RATE}/s, measured quiet and then
 * while one tenant's app floods the API at fifty times its limit and its store
 * uploads hostile freight files; each p99 as a ratio to the same run's quiet
 * p99 (goal ≤ 1.5×). SQLite; PostgreSQL too in full mode.
 */
export const tenantIsolation: Scenario = {
  id: 'tenant-isolation',
  title: 'Tenant isolation (a hostile tenant floods and uploads)',
  quickBudgetMs: 180_000,
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const figures = await measureVariant(ctx, 'sqlite');
    const missing = ctx.mode === 'quick' ? 'not in quick mode' : await postgresMissing(ctx);
    if (missing) ctx.notes.push(`PostgreSQL: ${missing}`);
    else figures.push(...(await measureVariant(ctx, 'postgres')));
    return figures;
  },
};
