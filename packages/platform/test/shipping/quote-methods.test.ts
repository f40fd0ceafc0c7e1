// The quote methods of spec-notes Q8 against real endpoints on 127.0.0.1:
// backup rates after a failed seller call, a freight gateway over HTTPS with
// the store's credential, the marketplace delivery service, methods combined,
// and the source carried into the order. On every database.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import { quote, shown, storeWithSettings, uploadTable, vtexCsv } from './freight-kit.js';
import { addProducts, admin, answerWith, option, putSettings, quoteLog } from './shipping-kit.js';
import { type SellerBehaviour, startTestSeller, type TestSeller } from './test-seller.js';

const CART = [
  { sku: 'SKU-A', quantity: 2 },
  { sku: 'SKU-B', quantity: 1 },
];
// The kit's catalogue: 2 × 250 g + 1,500 g = 2,000 g; 2 × 19.99 + 50.00 = 89.98.
const PRODUCTS = [
  { sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 },
  { sku: 'SKU-B', price_cents: 5000, depth_cm: 40, height_cm: 20, width_cm: 20, weight_g: 1500 },
];
// 2,000 g → 12.00 + 0 + 1.00 × (2,000 − 1,000) / 1,000 = 13.00 in 3 days.
const BACKUP = vtexCsv(['01000000;01999999;;1000;5000;12;0;1;;3;BRA;0']);

describe.each(testDatabaseTargets())('quote methods on $dialect', (target) => {
  let platform: TestPlatform;
  let seller: TestSeller | undefined;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterAll(() => platform.close());
  afterEach(async () => {
    await seller?.close();
    seller = undefined;
  });

  async function sellerWithBackup(behaviour: SellerBehaviour) {
    seller = await startTestSeller({ behave: () => behaviour });
    const tenantId = await storeWithSettings(platform, {
      method: 'seller_api',
      url: `${seller.url}/quote`,
      fallback: 'freight_table',
    });
    await addProducts(platform, tenantId, PRODUCTS);
    await uploadTable(platform, tenantId, 'backup', BACKUP, { name: 'Backup rate' });
    return tenantId;
  }

  it.each<[string, SellerBehaviour, string]>([
    ['hangs past the 1.0 s deadline', { late: { afterMs: 5000, status: 200, json: answerWith([option()]) } }, 'timeout'],
    ['answers 500', { status: 500, body: 'oops' }, 'http_error'],
    ['answers garbage', { status: 200, body: '<html>not json</html>' }, 'invalid_response'],
  ])(
    'spec-notes Q8: backup rates: a seller that %s → the freight-table options, the real outcome logged with fallback_used',
    async (_name, behaviour, outcome) => {
      const tenantId = await sellerWithBackup(behaviour);
      const body = await quote(platform, tenantId, '01310100', CART);
      expect(body.available).toBe(true);
      expect(body.packages[0]?.options).toEqual([
        expect.objectContaining({ id: 'backup', name: 'Backup rate', price: 13, delivery_days: 3, source: 'freight_table' }),
      ]);
      const log = await quoteLog(platform, tenantId);
      expect(log).toEqual([expect.objectContaining({ session_id: body.session_id, outcome, fallback_used: 1 })]);
      const listed = await platform.app.inject({
        method: 'GET',
        url: `/admin/v1/tenants/${tenantId}/shipping/quote-calls`,
        headers: admin,
      });
      expect(listed.json().results[0]).toEqual(expect.objectContaining({ outcome, fallback_used: true }));
    },
  );

  it('spec-notes Q8: backup rates never replace a business error: out_of_stock stays unavailable, no fallback logged', async () => {
    const tenantId = await sellerWithBackup({
      status: 400,
      json: { message: 'Itens sem Estoque', code: 'out_of_stock', items: [{ sku: 'SKU-B', available_quantity: '0' }] },
    });
    const body = await quote(platform, tenantId, '01310100', CART);
    expect(body.available).toBe(false);
    expect(body.reason?.code).toBe('out_of_stock');
    expect(await quoteLog(platform, tenantId)).toEqual([expect.objectContaining({ outcome: 'out_of_stock', fallback_used: 0 })]);
  });

  it('spec-notes Q8: a seller that answers is used as usual; the tables are not consulted and fallback_used stays 0', async () => {
    const tenantId = await sellerWithBackup({
      status: 200,
      json: answerWith([option({ id: 'seller', price: 20, delivery_days: 2 })]),
    });
    const body = await quote(platform, tenantId, '01310100', CART);
    expect(shown(body)).toEqual([['seller', 20, 2, ['fastest', 'cheapest']]]);
    expect(body.packages[0]?.options[0]?.source).toBe('seller_api');
    expect(await quoteLog(platform, tenantId)).toEqual([expect.objectContaining({ outcome: 'ok', fallback_used: 0 })]);
  });

  it('spec-notes Q8: the gateway method calls the operator-registered HTTPS gateway with the store credential in Authorization', async () => {
    const credentials: (string | undefined)[] = [];
    seller = await startTestSeller({
      tls: true,
      behave: (request) => {
        credentials.push(request.headers.authorization);
        return request.headers.authorization === 'Bearer store-key-123'
          ? { status: 200, json: answerWith([option({ id: 'gw-express', price: 30, delivery_days: 1 })]) }
          : { status: 401, body: 'bad credential' };
      },
    });
    const registered = await platform.app.inject({
      method: 'PUT',
      url: '/admin/v1/shipping-gateways/fretes-br',
      headers: admin,
      payload: { name: 'Fretes BR', url: `${seller.url}/v1/quote` },
    });
    expect(registered.statusCode).toBe(200);
    const tenantId = await storeWithSettings(platform, {
      method: 'gateway',
      gateway: { id: 'fretes-br', credential: 'Bearer store-key-123' },
    });
    await addProducts(platform, tenantId, PRODUCTS);
    const settings = await platform.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenantId}/shipping`, headers: admin });
    // The credential is write-only.
    expect(settings.json()).toEqual({ method: 'gateway', gateway: { id: 'fretes-br' }, distribution_centers: [] });
    const body = await quote(platform, tenantId, '01310100', CART);
    expect(shown(body)).toEqual([['gw-express', 30, 1, ['fastest', 'cheapest']]]);
    expect(body.packages[0]?.options[0]?.source).toBe('gateway');
    expect(seller.requests[0]?.url).toBe('/v1/quote');
    expect(credentials).toEqual(['Bearer store-key-123']);
    const log = await quoteLog(platform, tenantId);
    expect(log).toEqual([expect.objectContaining({ outcome: 'ok', http_status: 200 })]);
    expect(JSON.stringify(log)).not.toContain('store-key-123');

    // Another store with a wrong credential: the gateway refuses, shipping is unavailable (http_error).
    const other = await storeWithSettings(platform, {
      method: 'gateway',
      gateway: { id: 'fretes-br', credential: 'Bearer wrong' },
    });
    await addProducts(platform, other, PRODUCTS);
    const refused = await quote(platform, other, '01310100', CART);
    expect(refused.reason?.code).toBe('http_error');
  });

  it('spec-notes Q8: marketplace_delivery: the operator tables, for stores that opt in, merged with the store tables before Q5', async () => {
    await uploadTable(platform, null, 'feira-envios', vtexCsv(['01000000;01999999;;0;30000;8;0;0;;6;BRA;0']), {
      name: 'Feira Envios',
      distribution_center_id: 'HUB',
    });
    const optedIn = await storeWithSettings(platform, { methods: ['freight_table', 'marketplace_delivery'] });
    await addProducts(platform, optedIn, PRODUCTS);
    await uploadTable(platform, optedIn, 'own', BACKUP, { name: 'Own courier' });
    const body = await quote(platform, optedIn, '01310100', CART);
    expect(body.packages[0]?.options.map((o) => [o.id, o.price, o.delivery_days, o.source, o.labels])).toEqual([
      ['own', 13, 3, 'freight_table', ['fastest']],
      ['feira-envios', 8, 6, 'marketplace_delivery', ['cheapest']],
    ]);
    // A store that did not opt in never sees them.
    const notIn = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, notIn, PRODUCTS);
    expect((await quote(platform, notIn, '01310100', CART)).reason?.code).toBe('no_freight_rate');
  });

  it('spec-notes Q8: seller_api combined with freight_table: every option merged before Q5, checkout carries the source into the order', async () => {
    seller = await startTestSeller({
      behave: () => ({ status: 200, json: answerWith([option({ id: 'seller-fast', price: 40, delivery_days: 1 })]) }),
    });
    const tenantId = await storeWithSettings(platform, { methods: ['seller_api', 'freight_table'], url: `${seller.url}/q` });
    await addProducts(platform, tenantId, PRODUCTS);
    await uploadTable(platform, tenantId, 'table', BACKUP, { name: 'Table rate' });
    const body = await quote(platform, tenantId, '01310100', CART);
    expect(body.packages[0]?.options.map((o) => [o.id, o.source, o.labels])).toEqual([
      ['seller-fast', 'seller_api', ['fastest']],
      ['table', 'freight_table', ['cheapest']],
    ]);
    const checkout = await platform.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkouts',
      payload: { tenant_id: tenantId, zipcode: '01310100', items: CART, choice: 'cheapest' },
    });
    expect(checkout.statusCode).toBe(201);
    expect(checkout.json().order.shipping).toEqual(
      expect.objectContaining({ id: 'table', source: 'freight_table', price: 13, delivery_days: 3 }),
    );
  });

  it('spec-notes Q8: settings refuse a fallback without a call to back up, a gateway that is not registered, url for another method', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const cases: [object, string][] = [
      [{ method: 'freight_table', fallback: 'freight_table', distribution_centers: [] }, 'fallback'],
      [{ method: 'gateway', gateway: { id: 'nobody', credential: 'x' }, distribution_centers: [] }, 'gateway.id'],
      [{ method: 'freight_table', url: 'http://127.0.0.1:1/q', distribution_centers: [] }, 'url'],
      [{ method: 'freight_table', methods: ['seller_api'], distribution_centers: [] }, 'methods'],
      [{ distribution_centers: [] }, 'method'],
    ];
    for (const [body, field] of cases) {
      const res = await putSettings(platform, tenantId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });
});
