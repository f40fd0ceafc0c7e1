import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../../src/demo/fake-gateways.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { chromiumLaunchOptions, type ListeningPlatform, listenPlatform, testConfig, testTls } from '../../src/testing.js';
import { uploadTable, vtexCsv } from '../shipping/freight-kit.js';
import { addProducts, putSettings } from '../shipping/shipping-kit.js';
import { seriousAxeViolations } from './axe.js';
import { signInToConsole } from './browser-kit.js';

const TOKEN = 'preview-me-token';

/**
 * The console's quote preview in Chromium (D61): a seller whose store merges
 * a Melhor Envio gateway (the fake, over HTTPS) with its own freight table
 * types a CEP and a cart and sees the options a shopper would, each method's
 * own, and which were merged; the options shown are the storefront quote's.
 */
describe('quote preview in Chromium', () => {
  const target = testDatabaseTargets()[0];
  let platform: ListeningPlatform;
  let browser: Browser;
  let fake: FakeGateway;

  beforeAll(async () => {
    fake = await startFakeGateway({ kind: 'melhor_envio', token: TOKEN, tls: { key: testTls.key, cert: testTls.cert } });
    platform = await listenPlatform(target, {
      outboundCa: testTls.ca,
      config: testConfig({ gateways: { melhorEnvio: fake.url } }),
    });
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await fake?.close();
  });

  it.each([
    ['pt-BR', 375, 'Ver a prévia', 'Prévia da cotação de Store 1'],
    ['en-US', 1280, 'Preview the quote', 'Quote preview for Store 1'],
  ])(
    'spec-notes Q5, Q8 (D61): in %s at %i px the preview shows the options the storefront quote shows for the same CEP and cart, each method and what was merged; axe finds nothing serious',
    async (locale, width, submit, heading) => {
      const seller = await platform.createSeller({ tenants: 1 });
      const tenantId = seller.tenantIds[0] as string;
      await addProducts(platform, tenantId, [
        { sku: 'SKU-A', price_cents: 1999, depth_cm: 12.3, height_cm: 5, width_cm: 30, weight_g: 250 },
        { sku: 'SKU-B', price_cents: 5000, depth_cm: 40, height_cm: 20, width_cm: 20, weight_g: 1500 },
      ]);
      const settings = await putSettings(platform, tenantId, {
        methods: ['gateway', 'freight_table'],
        gateway: { kind: 'melhor_envio', credential: TOKEN },
        distribution_centers: [{ id: 'CD-SP', zipcode: '01001000' }],
      });
      expect(settings.statusCode).toBe(200);
      // 2 kg to 01xxxxxx: 13.00 in 3 days, the cheapest; the gateway's SEDEX (2 days) is the fastest.
      await uploadTable(platform, tenantId, 'tabela', vtexCsv(['01000000;01999999;;1000;5000;12;0;1;;3;BRA;0']), {
        name: 'Tabela própria',
      });

      const page = await signInToConsole(browser, platform.url, seller, locale);
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${platform.url}/console/stores/${tenantId}/shipping/preview`);
      await page.getByRole('heading', { name: heading }).waitFor({ timeout: 10_000 });
      await page.locator('#zipcode').fill('01310100');
      await page.locator('#sku-0').fill('SKU-A');
      await page.locator('#quantity-0').fill('2');
      await page.locator('#sku-1').fill('SKU-B');
      await page.locator('#quantity-1').fill('1');
      await page.getByRole('button', { name: submit }).click();
      await page.locator('table.preview-shown').waitFor({ timeout: 10_000 });
      const previewed = await page
        .locator('table.preview-shown tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-option-id')));

      const storefront = await fetch(`${platform.url}/storefront/v1/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant_id: tenantId,
          zipcode: '01310100',
          items: [
            { sku: 'SKU-A', quantity: 2 },
            { sku: 'SKU-B', quantity: 1 },
          ],
        }),
      });
      const quote = (await storefront.json()) as { packages: { options: { id: string }[] }[] };
      expect(previewed).toEqual(quote.packages[0]?.options.map((option) => option.id));
      expect(previewed).toEqual(['melhor-envio-2', 'tabela']);

      // Each method's own options: the gateway's two priced services and the table's row, all merged.
      const methods = page.locator('section.card table');
      await expect(methods.count()).resolves.toBe(2);
      await expect(methods.nth(0).locator('tbody tr').count()).resolves.toBe(2);
      await expect(page.locator('section.card').nth(0).textContent()).resolves.toContain('melhor_envio');
      expect(await seriousAxeViolations(page)).toEqual([]);
      // The page fits the viewport: nothing but the tables' own wrappers scrolls sideways.
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      expect(overflow).toBeLessThanOrEqual(0);
      // The shipping page names the gateway's kind and the origin's CEP, never the credential (D57).
      await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
      const facts = (await page.locator('dl.facts').textContent()) ?? '';
      expect(facts).toContain('Melhor Envio');
      expect(facts).toContain('CEP 01001000');
      expect(await page.content()).not.toContain(TOKEN);
      await page.context().close();
    },
    // A browser, a sign-in, two page loads and axe: generous on a shared, loaded machine.
    90_000,
  );
});
