// A store that quotes through the seller API, as the quote and tenant-isolation
// scenarios set it up through the admin API, and one storefront quote of it.
import { request } from 'undici';
import { BENCH_ADMIN_TOKEN } from '../processes/bench-credentials.js';
import type { PlatformHandle } from './platform-process.js';

export const QUOTE_SKU = 'SKU-QUOTE-1';
export const QUOTE_ZIPCODE = '01310100';
/** An admin API call that must succeed; its JSON answer (null when it has none). */
export async function admin(
  platform: PlatformHandle,
  method: 'PUT' | 'POST' | 'PATCH',
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await request(`${platform.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A store whose quote method is the seller API at `url`, with one product in its catalogue. */
export async function storeQuotingAt(platform: PlatformHandle, url: string): Promise<string> {
  const { tenantId } = await platform.call<{ tenantId: string }>('createSellerAccess', { scopes: ['open:portfolio:read'] });
  await admin(platform, 'POST', `/admin/v1/tenants/${tenantId}/products`, {
    sku: QUOTE_SKU,
    title: 'Caneca Silva',
    price: 49.9,
    stock: 1000,
    dimensions: { depth: 20, height: 10, width: 15, weight: 500 },
  });
  await admin(platform, 'PUT', `/admin/v1/tenants/${tenantId}/shipping`, { method: 'seller_api', url, distribution_centers: [] });
  return tenantId;
}

export async function storefrontQuote(
  platform: PlatformHandle,
  tenantId: string,
): Promise<{ available: boolean; reason: { code: string } | null }> {
  const response = await request(`${platform.origin}/storefront/v1/quotes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: tenantId, zipcode: QUOTE_ZIPCODE, items: [{ sku: QUOTE_SKU, quantity: 1 }] }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`storefront quote: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}
