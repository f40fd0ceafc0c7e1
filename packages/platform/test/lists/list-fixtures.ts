import type { Order, Product } from '@feira/contract';
import type { TestPlatform } from '../../src/testing.js';
import { TEST_ADMIN_TOKEN } from '../../src/testing.js';

/** Helpers shared by the list tests: records created through the admin API, read through the seller API. */

export const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

const TITLES = ['Caneca azul', 'Camiseta 100% algodão', 'Mochila_escolar', 'Tênis corrida', 'caneca VERDE', 'Boné'];

/** The n-th fixture product: varied prices, stock, dimensions and titles (with %, _ and accents). */
export function productInput(n: number) {
  return {
    sku: `SKU-${String(n).padStart(3, '0')}`,
    title: `${TITLES[n % TITLES.length]} ${n % 7}`,
    price: ((n * 37) % 50) + 0.5 * (n % 2),
    stock: (n * 13) % 11,
    dimensions: { depth: 10 + (n % 4) * 2.5, height: 5 + (n % 3), width: 20, weight: 100 * ((n % 5) + 1) },
  };
}

export async function createProducts(platform: TestPlatform, tenantId: string, count: number, from = 0): Promise<Product[]> {
  const created: Product[] = [];
  for (let n = from; n < from + count; n++) {
    const response = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/products`,
      headers: ADMIN,
      payload: productInput(n),
    });
    if (response.statusCode !== 201) throw new Error(`product ${n}: ${response.statusCode} ${response.body}`);
    created.push(response.json());
    // Every other product shares its created_at with the previous one, so id must break ties.
    if (n % 2 === 1) platform.clock.advance(1000 + (n % 50) * 10);
  }
  return created;
}

const STATUSES = ['new', 'approved', 'invoiced', 'shipped', 'delivered', 'cancelled'] as const;

export function orderInput(n: number) {
  return {
    status: STATUSES[n % STATUSES.length],
    customer: { id: `cust-${n % 4}`, name: ['Ana Souza', 'Bruno Lima', 'Carla_Dias', 'Dora 50%'][n % 4] as string },
    items: [{ sku: `SKU-${n % 9}`, quantity: (n % 3) + 1, price: 10 + (n % 6) * 5.25 }],
    ...(n % 3 === 0
      ? { shipping: null }
      : { shipping: { id: 'std', name: 'Standard', origin: { distribution_center: { id: n % 3 === 1 ? 'dc-sp' : 'dc-rj' } } } }),
  };
}

export async function createOrders(platform: TestPlatform, tenantId: string, count: number, from = 0): Promise<Order[]> {
  const created: Order[] = [];
  for (let n = from; n < from + count; n++) {
    const response = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenantId}/orders`,
      headers: ADMIN,
      payload: orderInput(n),
    });
    if (response.statusCode !== 201) throw new Error(`order ${n}: ${response.statusCode} ${response.body}`);
    created.push(response.json());
    if (n % 3 !== 0) platform.clock.advance(1000 + n);
  }
  return created;
}

/** GET a path with a bearer token; returns status and parsed body. */
export async function getJson(platform: TestPlatform, token: string, url: string) {
  const response = await platform.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: response.statusCode, body: response.json() };
}

/** The path and query of an absolute link from meta.links, to inject it. */
export function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}
