// Shared steps of the shipping tests: a store with products, its quote settings
// set through the admin API, and storefront calls through the real app.
import type { QuoteCallRecord } from '../../src/shipping/quote-log/quote-call-rows.js';
import { quoteLogStoreFor } from '../../src/shipping/quote-log/quote-log.js';
import type { QuoteLogStore } from '../../src/shipping/quote-log/quote-log-store.js';
import type { Database } from '../../src/storage/database.js';
import { TEST_ADMIN_TOKEN, type TestPlatform } from '../../src/testing.js';

export const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

export interface ProductSpec {
  sku: string;
  price_cents?: number;
  stock?: number;
  depth_cm?: number;
  height_cm?: number;
  width_cm?: number;
  weight_g?: number;
}

/** Inserts catalogue rows as the records capability stores them (cents, cm, g). */
export async function addProducts(platform: TestPlatform, tenantId: string, products: ProductSpec[]): Promise<void> {
  const now = platform.clock.now().toISOString();
  for (const p of products) {
    await platform.database.db
      .insertInto('products')
      .values({
        id: platform.app.platform.random.uuid(),
        tenant_id: tenantId,
        sku: p.sku,
        title: `Product ${p.sku}`,
        price_cents: p.price_cents ?? 1990,
        stock: p.stock ?? 10,
        depth_cm: p.depth_cm ?? 10,
        height_cm: p.height_cm ?? 10,
        width_cm: p.width_cm ?? 10,
        weight_g: p.weight_g ?? 500,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
}

export async function putSettings(platform: TestPlatform, tenantId: string, body: unknown) {
  return platform.app.inject({
    method: 'PUT',
    url: `/admin/v1/tenants/${tenantId}/shipping`,
    headers: admin,
    payload: body as object,
  });
}

/** A store with SKU-A and SKU-B whose quotes go to `url` (with these distribution centres). */
export async function storeSellingVia(
  platform: TestPlatform,
  url: string,
  centres: string[] = ['CD-1'],
  existingTenantId?: string,
): Promise<string> {
  const tenantId = existingTenantId ?? ((await platform.createSeller()).tenantIds[0] as string);
  await addProducts(platform, tenantId, [
    { sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 },
    { sku: 'SKU-B', price_cents: 5000, depth_cm: 40, height_cm: 20, width_cm: 20, weight_g: 1500 },
  ]);
  const res = await putSettings(platform, tenantId, {
    method: 'seller_api',
    url,
    distribution_centers: centres.map((id) => ({ id })),
  });
  if (res.statusCode !== 200) throw new Error(`settings refused: ${res.body}`);
  return tenantId;
}

export const cart = [
  { sku: 'SKU-A', quantity: 2 },
  { sku: 'SKU-B', quantity: 1 },
];

export async function storefrontCheckout(platform: TestPlatform, tenantId: string, choice: string, extra: object = {}) {
  return platform.app.inject({
    method: 'POST',
    url: '/storefront/v1/checkouts',
    payload: { tenant_id: tenantId, zipcode: '01310100', items: cart, choice, ...extra },
  });
}

export async function storefrontQuote(platform: TestPlatform, tenantId: string, zipcode = '01310100', items = cart) {
  return platform.app.inject({ method: 'POST', url: '/storefront/v1/quotes', payload: { tenant_id: tenantId, zipcode, items } });
}

/** A store's rows in a quote-log store, oldest first, read straight from the log's table. */
export async function quoteCallsIn(store: QuoteLogStore, tenantId: string) {
  return (await store.reader())
    .selectFrom('quote_calls')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The logged calls of a store on a running platform, after the batched
 * writer's flush (as the admin list does): on SQLite, in the log's own file.
 */
export async function quoteLog(platform: TestPlatform, tenantId: string) {
  const { quoteLog } = platform.app.shipping;
  await quoteLog.flush();
  return quoteCallsIn(quoteLog.store, tenantId);
}

/** A store's rows as a later start reads them: through a store opened afresh on the same database, then closed. */
export async function quoteCallsAfterRestart(database: Database, tenantId: string) {
  const store = quoteLogStoreFor(database);
  try {
    return await quoteCallsIn(store, tenantId);
  } finally {
    await store.close();
  }
}

/** A conforming answer for the kit's cart: items exactly as requested, given options. */
export function answerWith(options: object[], items: { sku: string; quantity: number }[] = cart) {
  return { packages: [{ delivery_options: options, items }] };
}

export const option = (overrides: Record<string, unknown> = {}) => ({
  id: 'normal',
  name: 'Normal',
  price: 15.5,
  delivery_days: 5,
  type: 'conventional',
  ...overrides,
});

/** Quote-log row number `n` of a store: its latency is `n` ms, its time `n` s into 2026, so the rows sort by `n`. */
export function quoteCallRow(tenantId: string, n: number): QuoteCallRecord {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    tenant_id: tenantId,
    session_id: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    purpose: 'storefront',
    outcome: 'ok',
    latency_ms: n,
    http_status: 200,
    detail: null,
    fallback_used: 0,
    gateway_kind: null,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  };
}

/** The numbers (`quoteCallRow`) of a store's rows in a quote-log store, oldest first. */
export async function logged(store: QuoteLogStore, tenantId: string): Promise<number[]> {
  return (await quoteCallsIn(store, tenantId)).map((r) => r.latency_ms);
}
