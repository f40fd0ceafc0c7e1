// The gateway method's adapters (spec-notes Q8 as ruled by D57–D59) against
// fakes of Melhor Envio's and Frenet's quote APIs over HTTPS (the test CA):
// units and prices mapped, refused services dropped, failures mapped to the
// seller API's outcomes with its deadline, log and backup rates. On every database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGateway, type FakeGatewayKind, startFakeGateway } from '../../src/demo/fake-gateways.js';
import { createTestPlatform, type TestPlatform, testConfig, testDatabaseTargets, testTls } from '../../src/testing.js';
import { quote, shown, storeWithSettings, uploadTable, vtexCsv } from './freight-kit.js';
import { addProducts, admin, putSettings, quoteLog } from './shipping-kit.js';

const CART = [
  { sku: 'SKU-A', quantity: 2 },
  { sku: 'SKU-B', quantity: 1 },
];
// 2 × 250 g + 1,500 g = 2 kg; 2 × 19.99 + 50.00 = 89.98.
const PRODUCTS = [
  { sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 },
  { sku: 'SKU-B', price_cents: 5000, depth_cm: 40, height_cm: 20, width_cm: 20, weight_g: 1500 },
];
// The backup rate: 13.00 in 3 days for 2 kg to 01xxxxxx.
const BACKUP = vtexCsv(['01000000;01999999;;1000;5000;12;0;1;;3;BRA;0']);
const TOKEN: Record<FakeGatewayKind, string> = { melhor_envio: 'me-token-abc', frenet: 'frenet-token-xyz' };
// The fakes' documented services for a 2 kg cart: (id, price, days); the refused Jadlog service never shows.
const EXPECTED: Record<FakeGatewayKind, { fastest: [string, number, number]; cheapest: [string, number, number] }> = {
  melhor_envio: { fastest: ['melhor-envio-2', 50.74, 2], cheapest: ['melhor-envio-1', 25.95, 6] },
  frenet: { fastest: ['frenet-04014', 44.1, 3], cheapest: ['frenet-04510', 25.31, 7] },
};

describe.each(testDatabaseTargets())('freight gateway adapters on $dialect', (target) => {
  let platform: TestPlatform;
  const fakes = {} as Record<FakeGatewayKind, FakeGateway>;
  beforeAll(async () => {
    for (const kind of ['melhor_envio', 'frenet'] as const)
      fakes[kind] = await startFakeGateway({ kind, token: TOKEN[kind], tls: { key: testTls.key, cert: testTls.cert } });
    platform = await createTestPlatform(target, {
      outboundCa: testTls.ca,
      config: testConfig({
        gateways: { melhorEnvio: fakes.melhor_envio.url, frenet: fakes.frenet.url },
        gatewayContactEmail: 'ops@feira.example',
      }),
    });
  });
  afterAll(async () => {
    await platform.close();
    for (const fake of Object.values(fakes)) await fake.close();
  });

  async function gatewayStore(kind: FakeGatewayKind, credential = TOKEN[kind], backup = false) {
    const tenantId = await storeWithSettings(platform, {
      method: 'gateway',
      gateway: { kind, credential },
      distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }, { id: 'CD-RJ' }],
      ...(backup ? { fallback: 'freight_table' } : {}),
    });
    await addProducts(platform, tenantId, PRODUCTS);
    if (backup) await uploadTable(platform, tenantId, 'backup', BACKUP, { name: 'Backup rate' });
    return tenantId;
  }

  describe.each(['melhor_envio', 'frenet'] as const)('%s', (kind) => {
    it("spec-notes Q8 (D57, D58, D59): the gateway is asked in centimetres and kilograms from the centre's CEP; its priced services become options (Q5 fastest + cheapest), the refused one is dropped", async () => {
      const fake = fakes[kind];
      fake.behave('ok');
      const tenantId = await gatewayStore(kind);
      const before = fake.calls.length;
      const body = await quote(platform, tenantId, '01310100', CART);
      expect(body.available).toBe(true);
      const { fastest, cheapest } = EXPECTED[kind];
      expect(shown(body)).toEqual([
        [...fastest, ['fastest']],
        [...cheapest, ['cheapest']],
      ]);
      expect(body.packages[0]?.options.map((o) => [o.name, o.source, o.origin])).toEqual([
        [expect.stringMatching(/^Correios SEDEX$/), 'gateway', { distribution_center: { id: 'CD-SP' } }],
        [expect.stringMatching(/^Correios PAC$/), 'gateway', { distribution_center: { id: 'CD-SP' } }],
      ]);

      const call = fake.calls[before];
      if (kind === 'melhor_envio') {
        expect(call?.headers.authorization).toBe(`Bearer ${TOKEN[kind]}`);
        expect(call?.body).toEqual({
          from: { postal_code: '01001000' },
          to: { postal_code: '01310100' },
          products: [
            { id: 'SKU-A', width: 30, height: 5, length: 12.3, weight: 0.25, insurance_value: 19.99, quantity: 2 },
            { id: 'SKU-B', width: 20, height: 20, length: 40, weight: 1.5, insurance_value: 50, quantity: 1 },
          ],
        });
      } else {
        expect(call?.headers.token).toBe(TOKEN[kind]);
        expect(call?.body).toEqual({
          SellerCEP: '01001000',
          RecipientCEP: '01310100',
          ShipmentInvoiceValue: 89.98,
          ShippingItemArray: [
            { Height: 5, Length: 12.3, Width: 30, Weight: 0.25, Quantity: 2, SKU: 'SKU-A' },
            { Height: 20, Length: 40, Width: 20, Weight: 1.5, Quantity: 1, SKU: 'SKU-B' },
          ],
          RecipientCountry: 'BR',
        });
      }

      // spec-notes Q7: the log row carries the gateway kind; the admin list shows it.
      expect(await quoteLog(platform, tenantId)).toEqual([
        expect.objectContaining({ session_id: body.session_id, outcome: 'ok', gateway_kind: kind, fallback_used: 0 }),
      ]);
      const listed = await platform.app.inject({
        method: 'GET',
        url: `/admin/v1/tenants/${tenantId}/shipping/quote-calls`,
        headers: admin,
      });
      expect(listed.json().results[0]).toEqual(expect.objectContaining({ outcome: 'ok', gateway_kind: kind }));
    });

    it.each([
      ['a bad token (401)', 'unauthorized', 'http_error'],
      ['a 502 page', 'server_error', 'http_error'],
      ['no answer within the 1.0 s deadline (Q3)', 'slow', 'timeout'],
      ['an answer unlike the documented one', 'malformed', 'invalid_response'],
      ['every service refused', 'all_refused', 'invalid_response'],
    ] as const)(
      'spec-notes Q3, Q7, Q8 (D58): a gateway with %s ends %s, the call is logged with its kind and the backup rates answer',
      async (_name, behaviour, outcome) => {
        const fake = fakes[kind];
        fake.behave(behaviour === 'unauthorized' ? 'ok' : behaviour);
        const tenantId = await gatewayStore(kind, behaviour === 'unauthorized' ? 'revoked-token' : TOKEN[kind], true);
        const body = await quote(platform, tenantId, '01310100', CART);
        fake.behave('ok');
        expect(shown(body)).toEqual([['backup', 13, 3, ['fastest', 'cheapest']]]);
        const log = await quoteLog(platform, tenantId);
        expect(log).toEqual([expect.objectContaining({ outcome, gateway_kind: kind, fallback_used: 1 })]);
        if (behaviour === 'unauthorized') expect(log[0]?.http_status).toBe(401);
        // Each refused service is named with the gateway's reason.
        if (behaviour === 'all_refused')
          expect(log[0]?.detail).toMatch(/^gateway\.no-service: .*Correios PAC: .*; Jadlog [^:]+: [^;]+$/);
        // The credential is never written to the log.
        expect(JSON.stringify(log)).not.toContain(TOKEN[kind]);
        expect(JSON.stringify(log)).not.toContain('revoked-token');
      },
    );

    it('D107: a service without price or delivery time is left out and named in the quote log, the others are offered; every call names the operator in its User-Agent', async () => {
      const fake = fakes[kind];
      fake.behave('one_malformed');
      const tenantId = await gatewayStore(kind, TOKEN[kind], true);
      const before = fake.calls.length;
      const body = await quote(platform, tenantId, '01310100', CART);
      fake.behave('ok');
      const { fastest, cheapest } = EXPECTED[kind];
      expect(shown(body)).toEqual([
        [...fastest, ['fastest']],
        [...cheapest, ['cheapest']],
      ]);
      const log = await quoteLog(platform, tenantId);
      expect(log).toEqual([expect.objectContaining({ outcome: 'ok', gateway_kind: kind, fallback_used: 0 })]);
      expect(log[0]?.detail).toMatch(/^gateway\.service-skipped: .*Mini Envios.* has no /);
      // Melhor Envio's rule: `Application (technical contact e-mail)` on every request.
      expect(fake.calls[before]?.headers['user-agent']).toBe('Feira (ops@feira.example)');
    });

    it('spec-notes Q8 (D57, D59): the credential is write-only, never logged, and the gateway needs a centre with a zipcode', async () => {
      const tenantId = await gatewayStore(kind);
      const read = await platform.app.inject({ method: 'GET', url: `/admin/v1/tenants/${tenantId}/shipping`, headers: admin });
      expect(read.json()).toEqual({
        method: 'gateway',
        gateway: { kind },
        distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }, { id: 'CD-RJ' }],
      });
      expect(read.body).not.toContain(TOKEN[kind]);
      // Omitting the credential keeps the stored one for the same kind.
      const kept = await putSettings(platform, tenantId, {
        method: 'gateway',
        gateway: { kind },
        distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }],
      });
      expect(kept.statusCode).toBe(200);
      const noOrigin = await putSettings(platform, tenantId, {
        method: 'gateway',
        gateway: { kind, credential: 'x' },
        distribution_centers: [{ id: 'CD-SP' }],
      });
      expect(noOrigin.statusCode).toBe(422);
      expect(noOrigin.json().details[0].field).toBe('distribution_centers');
      const otherKind = await putSettings(platform, tenantId, {
        method: 'gateway',
        gateway: { kind: kind === 'frenet' ? 'melhor_envio' : 'frenet' },
        distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }],
      });
      expect(otherKind.statusCode).toBe(422);
      expect(otherKind.json().details[0].field).toBe('gateway.credential');
    });
  });

  it("D107: the operator's gateway deadline (PlatformConfig.gatewayTimeoutMs) is the one a silent gateway is cut at, and the log says it", async () => {
    const short = await createTestPlatform(target, {
      outboundCa: testTls.ca,
      config: testConfig({ gateways: { melhorEnvio: fakes.melhor_envio.url }, gatewayTimeoutMs: 300 }),
    });
    try {
      fakes.melhor_envio.behave('slow');
      const tenantId = await storeWithSettings(short, {
        method: 'gateway',
        gateway: { kind: 'melhor_envio', credential: TOKEN.melhor_envio },
        distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }],
      });
      await addProducts(short, tenantId, PRODUCTS);
      await quote(short, tenantId, '01310100', CART);
      const log = await quoteLog(short, tenantId);
      expect(log).toEqual([expect.objectContaining({ outcome: 'timeout', gateway_kind: 'melhor_envio' })]);
      expect(log[0]?.detail).toBe('no full answer within 300 ms');
      // Without a contact e-mail the User-Agent names the application alone.
      expect(fakes.melhor_envio.calls.at(-1)?.headers['user-agent']).toBe('Feira');
    } finally {
      fakes.melhor_envio.behave('ok');
      await short.close();
    }
  });
});
