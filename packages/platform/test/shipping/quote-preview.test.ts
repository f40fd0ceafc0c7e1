// The quote preview API (D61) on every database: each method's raw answer,
// which options were merged, the backup rates, and `shown` equal to the
// storefront quote for the same zipcode and cart; documented in OpenAPI.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { operatorSession } from '../console/console-session.js';
import { quote, storeWithSettings, uploadTable, vtexCsv } from './freight-kit.js';
import { addProducts, admin, answerWith, option, quoteLog } from './shipping-kit.js';
import { startTestSeller, type TestSeller } from './test-seller.js';

const CART = [
  { sku: 'SKU-A', quantity: 2 },
  { sku: 'SKU-B', quantity: 1 },
];
const PRODUCTS = [
  { sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 },
  { sku: 'SKU-B', price_cents: 5000, depth_cm: 40, height_cm: 20, width_cm: 20, weight_g: 1500 },
];
// 2 kg to 01xxxxxx: 13.00 in 3 days, offered with the id `normal` (the seller's id too) and `tabela`.
const TABLE = vtexCsv(['01000000;01999999;;1000;5000;12;0;1;;3;BRA;0']);

describe.each(testDatabaseTargets())('quote preview on $dialect', (target) => {
  let platform: TestPlatform;
  let seller: TestSeller | undefined;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());
  afterEach(async () => {
    await seller?.close();
    seller = undefined;
  });

  const preview = (tenantId: string, body: object = { zipcode: '01310100', items: CART }) =>
    platform.app.inject({ method: 'POST', url: `/admin/v1/tenants/${tenantId}/shipping/preview`, headers: admin, payload: body });

  it('spec-notes Q5, Q8 (D61): the preview shows each method raw, which options were merged (a repeated id is not), why the two shown were chosen, and `shown` is the storefront quote', async () => {
    seller = await startTestSeller({
      behave: () => ({
        status: 200,
        json: answerWith([
          option({ id: 'normal', price: 20, delivery_days: 2 }),
          option({ id: 'lenta', price: 30, delivery_days: 9 }),
        ]),
      }),
    });
    const tenantId = await storeWithSettings(platform, { methods: ['seller_api', 'freight_table'], url: `${seller.url}/quote` });
    await addProducts(platform, tenantId, PRODUCTS);
    await uploadTable(platform, tenantId, 'normal', TABLE, { name: 'Tabela' });

    const res = await preview(tenantId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.methods.map((m: { method: string; result: string }) => [m.method, m.result])).toEqual([
      ['seller_api', 'options'],
      ['freight_table', 'options'],
    ]);
    expect(body.methods[0].call).toEqual(expect.objectContaining({ outcome: 'ok', http_status: 200 }));
    expect(body.methods[1].call).toBeNull();
    // The table's `normal` repeats the seller's id: left out of the merge.
    expect(body.methods[1].packages[0].options).toEqual([
      expect.objectContaining({ id: 'normal', price: 13, merged: false, left_out_because: 'duplicate_id' }),
    ]);
    expect(body.merged[0].options.map((o: { id: string; source: string }) => [o.id, o.source])).toEqual([
      ['normal', 'seller_api'],
      ['lenta', 'seller_api'],
    ]);
    expect(body.choice).toEqual([expect.objectContaining({ fastest: 'normal', cheapest: 'normal', same_option: true })]);
    expect(body.fallback).toBeNull();

    // The same zipcode and cart on the storefront: the same options shown.
    const storefront = await quote(platform, tenantId, '01310100', CART);
    const { session_id: _previewSession, ...shown } = body.shown;
    const { session_id: _storefrontSession, ...quoted } = storefront;
    expect(shown).toEqual(quoted);
    // spec-notes Q7: the preview's call is logged, as a preview.
    const log = await quoteLog(platform, tenantId);
    expect(log.map((row) => row.purpose).sort()).toEqual(['preview', 'storefront']);
  });

  it('spec-notes Q8 (D61): a failed seller call shows its outcome and the backup rates that answered; a bad zipcode is a 422, an unknown store a 404', async () => {
    seller = await startTestSeller({ behave: () => ({ status: 503, body: 'down' }) });
    const tenantId = await storeWithSettings(platform, {
      method: 'seller_api',
      url: `${seller.url}/quote`,
      fallback: 'freight_table',
    });
    await addProducts(platform, tenantId, PRODUCTS);
    await uploadTable(platform, tenantId, 'tabela', TABLE, { name: 'Tabela' });
    const body = (await preview(tenantId)).json();
    expect(body.methods[0]).toEqual(
      expect.objectContaining({
        method: 'seller_api',
        result: 'call_failed',
        call: expect.objectContaining({ outcome: 'http_error', http_status: 503 }),
      }),
    );
    expect(body.fallback).toEqual(expect.objectContaining({ used: true, method: 'freight_table', result: 'options' }));
    expect(body.shown.packages[0].options.map((o: { id: string }) => o.id)).toEqual(['tabela']);

    expect((await preview(tenantId, { zipcode: '123', items: CART })).statusCode).toBe(422);
    expect((await preview('no-such-store')).statusCode).toBe(404);
  });

  it("spec-notes Q5 (D61): the operator's console previews any store: the options it shows are the storefront quote's; no operator session, no page", async () => {
    seller = await startTestSeller({
      behave: () => ({
        status: 200,
        json: answerWith(
          [option({ id: 'rapida', price: 30, delivery_days: 1 }), option({ id: 'barata', price: 9, delivery_days: 7 })],
          [{ sku: 'SKU-A', quantity: 2 }],
        ),
      }),
    });
    const tenantId = await storeWithSettings(platform, { method: 'seller_api', url: `${seller.url}/quote` });
    await addProducts(platform, tenantId, PRODUCTS);
    const url = `/console/operator/stores/${tenantId}/shipping/preview`;
    const anonymous = await platform.app.inject({ method: 'GET', url });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/console/operator');

    const operator = await operatorSession(platform.app);
    expect((await operator.get(url)).statusCode).toBe(200);
    const page = await operator.post(url, { zipcode: '01310100', sku: 'SKU-A', quantity: '2' });
    expect(page.statusCode).toBe(200);
    const shownIds = [...page.body.matchAll(/<tr data-option-id="([^"]+)">/g)].map((match) => match[1]);
    const storefront = await quote(platform, tenantId, '01310100', [{ sku: 'SKU-A', quantity: 2 }]);
    expect(shownIds).toEqual(storefront.packages[0]?.options.map((o) => o.id));
    expect(shownIds).toEqual(['rapida', 'barata']);
    expect((await operator.get('/console/operator/stores/no-such-store/shipping/preview')).statusCode).toBe(404);
  });

  it('the preview routes are in the OpenAPI document with their answer schema', async () => {
    const doc = (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const admin = doc.paths['/admin/v1/tenants/{tenant_id}/shipping/preview']?.post;
    const sellerRoute = doc.paths['/seller/v1/stores/{tenant_id}/shipping/preview']?.post;
    expect(admin?.operationId).toBe('adminPreviewShippingQuote');
    expect(sellerRoute?.operationId).toBe('sellerPreviewShippingQuote');
    const schema = admin.responses['200'].content['application/json'].schema;
    expect(Object.keys(schema.properties ?? {})).toEqual(
      expect.arrayContaining(['methods', 'fallback', 'merged', 'shown', 'choice']),
    );
  });
});
