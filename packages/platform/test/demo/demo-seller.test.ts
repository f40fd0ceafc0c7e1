// The sandbox's demo seller: its own small server
// that makes the storefront work out of the box with the demo data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueStock, configureDemoSellerShipping, type DemoSeller, startDemoSeller } from '../../src/demo/demo-seller.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { addProducts, admin, cart } from '../shipping/shipping-kit.js';

describe.each(testDatabaseTargets())('demo seller on $dialect', (target) => {
  let platform: TestPlatform;
  let demo: DemoSeller;
  let tenantId: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    demo = await startDemoSeller({ host: '127.0.0.1', port: 0, stock: catalogueStock(platform.database) });
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    await addProducts(platform, tenantId, [
      { sku: 'SKU-A', price_cents: 1999, stock: 5, weight_g: 250 },
      { sku: 'SKU-B', price_cents: 5000, stock: 1, weight_g: 1500 },
    ]);
    await configureDemoSellerShipping(platform.app.platform, tenantId, demo.url);
  });
  afterAll(async () => {
    await demo.close();
    await platform.close();
  });

  const quote = (zipcode: string, items = cart) =>
    platform.app.inject({ method: 'POST', url: '/storefront/v1/quotes', payload: { tenant_id: tenantId, zipcode, items } });

  it('configureDemoSellerShipping points the store at the demo seller with its two distribution centres', async () => {
    const res = await platform.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenantId}/shipping`, headers: admin });
    expect(res.json()).toEqual({
      method: 'seller_api',
      url: `${demo.url}/quote?store=${tenantId}`,
      distribution_centers: [{ id: 'CD-SP' }, { id: 'CD-RJ' }],
    });
  });

  it("RFC 9110 §15.5.6: a browser's GET of the banner's Demo quotes URL is 405 Allow: POST saying what the endpoint is and how to try it", async () => {
    const res = await fetch(`${demo.url}/quote?store=${tenantId}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as { message: string }).message).toMatch(/shipping-quote endpoint.*npx feira quote-check/);
  });

  it('spec-notes Q5: the demo answer passes the rule set and shows the fastest (CD-SP) and the cheapest (CD-RJ)', async () => {
    const body = (await quote('20040002')).json();
    expect(body.available).toBe(true);
    expect(body.packages[0].options).toEqual([
      expect.objectContaining({ id: 'expressa', labels: ['fastest'], origin: { distribution_center: { id: 'CD-SP' } } }),
      expect.objectContaining({ id: 'economica', labels: ['cheapest'], origin: { distribution_center: { id: 'CD-RJ' } } }),
    ]);
  });

  it('Errors / Shipping quote: the demo seller answers out_of_stock with the available quantity when the stock is short', async () => {
    const body = (
      await quote('20040002', [
        { sku: 'SKU-A', quantity: 2 },
        { sku: 'SKU-B', quantity: 3 },
      ])
    ).json();
    expect(body.reason).toEqual({
      code: 'out_of_stock',
      message: 'Itens sem Estoque',
      items: [{ sku: 'SKU-B', available_quantity: 1 }],
    });
  });

  it('Errors / Shipping quote: invalid_zipcode for zipcodes starting with 0, delivery_not_available for 99', async () => {
    expect((await quote('01310100')).json().reason).toMatchObject({ code: 'invalid_zipcode', message: 'Invalid zipcode' });
    expect((await quote('99000000')).json().reason).toMatchObject({
      code: 'delivery_not_available',
      message: 'Delivery Not Available',
    });
  });

  it('spec-notes Q6: a checkout against the demo seller creates the order with the chosen origin', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkouts',
      payload: { tenant_id: tenantId, zipcode: '20040002', items: [{ sku: 'SKU-A', quantity: 1 }], choice: 'fastest' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().order.shipping).toMatchObject({ id: 'expressa', origin: { distribution_center: { id: 'CD-SP' } } });
  });
});
