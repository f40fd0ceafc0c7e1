import { randomUUID } from 'node:crypto';
import { testTls } from '@feira/platform/testing';
import { request } from 'undici';
import { startLoadGenerator } from '../lib/load.js';
import { benchDatabase, type PlatformHandle, profiled, startPlatform, stopPlatform } from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { difference } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';

const SELLER = new URL('../processes/quote-seller.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const RATE = 1000;
const DEADLINE_MS = 1000;
const DEADLINE_CONNECTIONS = 32;
const SKU = 'SKU-QUOTE-1';
const ZIPCODE = '01310100';

async function admin(platform: PlatformHandle, method: 'PUT' | 'POST', path: string, body: unknown): Promise<void> {
  const response = await request(`${platform.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
}

/** A store whose quote method is the seller API at `url`, with one product in its catalogue. */
async function storeQuotingAt(platform: PlatformHandle, url: string): Promise<string> {
  const { tenantId } = await platform.call<{ tenantId: string }>('createSellerAccess', { scopes: ['open:portfolio:read'] });
  await admin(platform, 'POST', `/admin/v1/tenants/${tenantId}/products`, {
    sku: SKU,
    title: 'Caneca Silva',
    price: 49.9,
    stock: 1000,
    dimensions: { depth: 20, height: 10, width: 15, weight: 500 },
  });
  await admin(platform, 'PUT', `/admin/v1/tenants/${tenantId}/shipping`, { method: 'seller_api', url, distribution_centers: [] });
  return tenantId;
}

async function storefrontQuote(
  platform: PlatformHandle,
  tenantId: string,
): Promise<{ available: boolean; reason: { code: string } | null }> {
  const response = await request(`${platform.origin}/storefront/v1/quotes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: tenantId, zipcode: ZIPCODE, items: [{ sku: SKU, quantity: 1 }] }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`storefront quote: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function measure(ctx: ScenarioContext): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  const database = await benchDatabase(ctx, 'sqlite', 'quote');
  const seller = await ctx.children.start<{ port: number; origin: string }>('quote seller', SELLER);
  const platform = await startPlatform(ctx, database, { fixtures: [SELLER_ACCESS], outboundCa: testTls.ca });
  const answering = await storeQuotingAt(platform, `${seller.info.origin}/quote`);
  const silent = await storeQuotingAt(platform, `${seller.info.origin}/silent`);
  const probe = await storefrontQuote(platform, answering);
  if (!probe.available) throw new Error(`the answering seller's quote is not available: ${JSON.stringify(probe.reason)}`);
  const probeStart = performance.now();
  const silentProbe = await storefrontQuote(platform, silent);
  ctx.notes.push(`probe: one quote to the silent seller ended after ${Math.round(performance.now() - probeStart)} ms`);
  if (silentProbe.reason?.code !== 'timeout')
    throw new Error(`a silent seller should time out, got ${JSON.stringify(silentProbe)}`);

  const generator = await startLoadGenerator(ctx.children);
  // Baseline: the same seller, the same kind of request body, straight from undici.
  const sellerRequest = JSON.stringify({
    session_id: randomUUID(),
    zipcode: ZIPCODE,
    items: [
      { sku: SKU, quantity: 1, price: 49.9, currency: 'BRL', dimensions: { depth: 0.2, height: 0.1, width: 0.15, weight: 0.5 } },
    ],
  });
  ctx.log(`bare undici POST at ${RATE}/s`);
  const bare = await generator.run({
    origin: seller.info.origin,
    ca: testTls.ca,
    connections: 64,
    ratePerSecond: RATE,
    warmupMs: timing.warmupMs,
    durationMs: timing.durationMs,
    requests: [{ method: 'POST', path: '/quote', headers: { 'content-type': 'application/json' }, body: sellerRequest }],
  });
  ctx.log(`storefront quotes at ${RATE}/s`);
  const storefront = await profiled(ctx, platform, 'quote-storefront', () =>
    generator.run({
      origin: platform.origin,
      connections: 64,
      ratePerSecond: RATE,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      requests: [
        {
          method: 'POST',
          path: '/storefront/v1/quotes',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tenant_id: answering, zipcode: ZIPCODE, items: [{ sku: SKU, quantity: 1 }] }),
        },
      ],
    }),
  );
  ctx.log('silent seller (deadline)');
  const deadline = await generator.run({
    origin: platform.origin,
    connections: DEADLINE_CONNECTIONS,
    // Every call lasts about a second: the window must hold several of them.
    warmupMs: Math.max(timing.warmupMs, 1500),
    durationMs: Math.max(timing.durationMs, 4000),
    requests: [
      {
        method: 'POST',
        path: '/storefront/v1/quotes',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: silent, zipcode: ZIPCODE, items: [{ sku: SKU, quantity: 1 }] }),
      },
    ],
  });
  await generator.stop();
  await stopPlatform(ctx, platform, 'platform (SQLite)');
  await seller.stop();

  for (const [name, r] of [
    ['bare', bare],
    ['storefront', storefront],
    ['deadline', deadline],
  ] as const) {
    if (r.errors) ctx.notes.push(`${name}: ${r.errors} errors (${r.firstError})`);
    if (r.requests === 0)
      ctx.notes.push(`${name}: no request completed inside the window (statuses ${JSON.stringify(r.statusCounts)})`);
    if (r.late) ctx.notes.push(`${name}: ${r.late} requests could not be sent on time (64 in flight)`);
  }
  ctx.notes.push(
    `open loop at ${RATE}/s, HTTPS seller on loopback, SQLite; overhead = storefront percentile − bare undici percentile to the same seller; ` +
      `deadline: ${DEADLINE_CONNECTIONS} concurrent quotes to a seller that never answers, error = latency − ${DEADLINE_MS} ms`,
  );
  const p50Overhead = difference(storefront.latency.p50Ms, bare.latency.p50Ms);
  const p99Overhead = difference(storefront.latency.p99Ms, bare.latency.p99Ms);
  const errorP50 = difference(deadline.latency.p50Ms, DEADLINE_MS);
  const errorP99 = difference(deadline.latency.p99Ms, DEADLINE_MS);
  return [
    figure(`storefront quote p50 at ${RATE}/s`, storefront.latency.p50Ms, 'ms', {
      baseline: { name: 'bare undici POST p50', value: bare.latency.p50Ms, unit: 'ms' },
    }),
    figure(`storefront quote p99 at ${RATE}/s`, storefront.latency.p99Ms, 'ms', {
      baseline: { name: 'bare undici POST p99', value: bare.latency.p99Ms, unit: 'ms' },
    }),
    figure('quote overhead p50 (minus seller time)', p50Overhead, 'ms', {
      target: { text: '< 1 ms', met: p50Overhead !== null && p50Overhead < 1 },
    }),
    figure('quote overhead p99 (minus seller time)', p99Overhead, 'ms', {
      target: { text: '< 5 ms', met: p99Overhead !== null && p99Overhead < 5 },
    }),
    figure('storefront quotes achieved', storefront.requestsPerSecond, 'quotes/s', {
      baseline: { name: 'bare undici POSTs achieved', value: bare.requestsPerSecond, unit: 'req/s' },
    }),
    figure('silent seller: deadline error p50', errorP50, 'ms'),
    figure('silent seller: deadline error p99', errorP99, 'ms', {
      target: { text: '< 20 ms', met: errorP99 !== null && Math.abs(errorP99) < 20 },
    }),
    figure('silent seller: cut-offs measured', deadline.requests, 'calls'),
  ];
}

/**
 * Issue 8, "Quote overhead" and "Quote deadline": storefront quotes at
 * 1,000/s against a seller answering at once, compared with a bare undici
 * POST of the same request to the same seller; and the cut-off time of quotes
 * to a seller that never answers, against the 1.0 s deadline (SPEC-DECISIONS Q3).
 */
export const quote: Scenario = {
  id: 'quote',
  title: 'Shipping quote (overhead, deadline)',
  async unavailable() {
    const platform = (await import('@feira/platform')) as Record<string, unknown>;
    if (typeof platform.callSellerQuote !== 'function') return 'the quote caller and storefront have not landed';
    return null;
  },
  run: measure,
};
