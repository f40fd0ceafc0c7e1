// The "Add a quote method" recipe (docs/architecture.md), proved with a
// throw-away method: a constant rate, added at test time through the same
// registration function the platform's own methods go through. The admin
// settings API accepts it, the storefront quote merges its options with the
// freight tables', the OpenAPI document lists it and the console names it in
// both languages; an app without it knows nothing of it. On every database.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eitherOf, QUOTE_METHOD_MODULES, type QuoteMethodModule, quoteMethodRegistry } from '../../src/shipping/methods/index.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { sellerSession } from '../console/console-session.js';
import { quote, shown, storeWithSettings, uploadTable, vtexCsv } from './freight-kit.js';
import { addProducts, admin, putSettings } from './shipping-kit.js';

/** A constant rate for every cart: one option of 9.90 in 5 days, priced without calling anyone. */
const flatRateMethod: QuoteMethodModule<Record<never, never>> = {
  name: 'flat_rate',
  description: 'one constant rate for every cart',
  // Its label carried for each locale, as a method of an embedding app may; a method of the platform's own has its
  // two catalogue strings instead (the recipe's step 3).
  labelKey: { en: 'Flat rate', 'pt-BR': 'Frete fixo' },
  settingsFields: {},
  backedUp: false,
  answer: async (_services, input) => ({
    method: 'flat_rate',
    kind: 'options',
    packages: [
      {
        items: input.request.items.map((item) => ({ sku: item.sku, quantity: item.quantity })),
        delivery_options: [{ id: 'flat', name: 'Flat rate', price: 9.9, delivery_days: 5, type: 'Normal', source: 'flat_rate' }],
      },
    ],
  }),
};

const PRODUCTS = [{ sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 }];
const CART = [{ sku: 'SKU-A', quantity: 2 }];
// 500 g → 12.00 in 3 days.
const TABLE = vtexCsv(['01000000;01999999;;1;5000;12;0;0;;3;BRA;0']);

// OpenAPI 3.0 converters write a literal as a one-value enum; 3.1 keeps `const`.
type Property = { anyOf?: { const?: string; enum?: string[] }[]; description?: string };
type Operation = {
  requestBody?: { content: Record<string, { schema: { properties: Record<string, Property> } }> };
  responses: Record<string, unknown>;
};
type OpenApi = { paths: Record<string, Record<string, Operation>> };

async function openApi(platform: TestPlatform): Promise<OpenApi> {
  return (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;
}

/** The `method` property of the settings body the admin API documents. */
function methodProperty(doc: OpenApi): Property | undefined {
  return doc.paths['/admin/v1/tenants/{tenant_id}/shipping']?.put?.requestBody?.content['application/json']?.schema.properties
    .method;
}

describe.each(testDatabaseTargets())('a quote method added to the registry on $dialect', (target) => {
  let platform: TestPlatform;
  let plain: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, {
      quoteMethods: quoteMethodRegistry([...QUOTE_METHOD_MODULES, flatRateMethod]),
    });
    plain = await createTestPlatform(target);
  });
  afterAll(async () => {
    await platform?.close();
    await plain?.close();
  });

  it('spec-notes Q8: the admin settings API accepts the new method alone and combined, and reads it back', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const alone = await putSettings(platform, tenantId, { method: 'flat_rate', distribution_centers: [] });
    expect(alone.statusCode).toBe(200);
    expect(alone.json()).toEqual({ method: 'flat_rate', distribution_centers: [] });
    const combined = await putSettings(platform, tenantId, { methods: ['freight_table', 'flat_rate'], distribution_centers: [] });
    expect(combined.statusCode).toBe(200);
    const read = await platform.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenantId}/shipping`, headers: admin });
    expect(read.json()).toEqual({ methods: ['freight_table', 'flat_rate'], distribution_centers: [] });
  });

  it('spec-notes Q8: the new method calls nobody, so backup rates refuse it as the only method; an app without it refuses its name', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const fallback = await putSettings(platform, tenantId, {
      method: 'flat_rate',
      fallback: 'freight_table',
      distribution_centers: [],
    });
    expect(fallback.statusCode).toBe(422);
    expect(fallback.json().details).toEqual([
      expect.objectContaining({
        field: 'fallback',
        location: 'body',
        message: 'backs up a seller_api or gateway method; the store has neither',
      }),
    ]);

    const otherTenant = (await plain.createSeller()).tenantIds[0] as string;
    const unknown = await putSettings(plain, otherTenant, { method: 'flat_rate', distribution_centers: [] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'method', location: 'body' })]),
    );
  });

  it('spec-notes Q5, Q8: the storefront quote merges the new method with the freight tables before picking fastest and cheapest', async () => {
    const tenantId = await storeWithSettings(platform, { methods: ['freight_table', 'flat_rate'] });
    await addProducts(platform, tenantId, PRODUCTS);
    await uploadTable(platform, tenantId, 'standard', TABLE, { name: 'Standard' });
    const body = await quote(platform, tenantId, '01310100', CART);
    expect(body.available).toBe(true);
    expect(shown(body)).toEqual([
      ['standard', 12, 3, ['fastest']],
      ['flat', 9.9, 5, ['cheapest']],
    ]);
    expect(body.packages[0]?.options.map((option) => option.source)).toEqual(['freight_table', 'flat_rate']);
  });

  it('the console’s shipping page names the new method in the page’s language', async () => {
    const seller = await platform.createSeller();
    const tenantId = seller.tenantIds[0] as string;
    const saved = await putSettings(platform, tenantId, { distribution_centers: [], methods: ['freight_table', 'flat_rate'] });
    expect(saved.statusCode, saved.body).toBe(200);
    const english = await sellerSession(platform.app, seller);
    const page = await english.get(`/console/stores/${tenantId}/shipping`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Flat rate');
    const portuguese = await sellerSession(platform.app, seller, { 'accept-language': 'pt-BR' });
    expect((await portuguese.get(`/console/stores/${tenantId}/shipping`)).body).toContain('Frete fixo');
  });

  it('OpenAPI 3.1 / spec-notes Q8: the document lists the new method in the settings schema and the option source; an app without it does not', async () => {
    const doc = await openApi(platform);
    const method = methodProperty(doc);
    const names = [...QUOTE_METHOD_MODULES.map((module) => module.name), 'flat_rate'];
    expect(method?.anyOf?.map((literal) => literal.const ?? literal.enum?.[0])).toEqual(names);
    expect(method?.description).toContain('flat_rate: one constant rate for every cart');
    const quoteAnswer = JSON.stringify(doc.paths['/storefront/v1/quotes']?.post?.responses['200']);
    expect(quoteAnswer).toContain(eitherOf(names));

    const plainDoc = await openApi(plain);
    expect(JSON.stringify(plainDoc)).not.toContain('flat_rate');
    expect(methodProperty(plainDoc)?.anyOf).toHaveLength(QUOTE_METHOD_MODULES.length);
  });

  it('a method name already registered, or a settings field another method owns, is refused when the registry is built', () => {
    expect(() => quoteMethodRegistry([...QUOTE_METHOD_MODULES, { ...flatRateMethod, name: 'gateway' }])).toThrow(
      'quote method gateway is registered twice',
    );
    expect(() =>
      quoteMethodRegistry([
        ...QUOTE_METHOD_MODULES,
        { ...flatRateMethod, settingsFields: { url: Type.Optional(Type.String()) } } as QuoteMethodModule,
      ]),
    ).toThrow('settings field url of quote method flat_rate belongs to seller_api already');
  });
});
