import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { addProducts, putSettings } from '../shipping/shipping-kit.js';
import { platformInChromium, signInToConsole } from './browser-kit.js';

/**
 * D83: Test my endpoint against a seller that never quotes (every answer a
 * valid 400 delivery_not_available): the rules about delivery options are "not
 * exercised", never "passed"; the failed rule comes first with the request
 * and the answer; the calls are logged as tests and charted as business
 * answers, apart from endpoint failures. In pt-BR at 375 px and English at 1280 px.
 */
describe.each(testDatabaseTargets().slice(0, 1))('Test my endpoint in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let refusing: Server;
  let refusingUrl: string;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });
  beforeAll(async () => {
    refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            code: 'delivery_not_available',
            message: 'Não entregamos aí',
            items: [{ sku: 'SKU-A', available_quantity: 0 }],
          }),
        ),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/quote`;
  });
  afterAll(async () => {
    await new Promise((resolve) => refusing?.close(resolve));
  });

  for (const view of [
    { locale: 'pt-BR', width: 375, notExercised: 'não exercitada', failed: 'falhou', test: 'Testar meu endpoint' },
    { locale: 'en-US', width: 1280, notExercised: 'not exercised', failed: 'failed', test: 'Test my endpoint' },
  ]) {
    it(`D83: ${view.locale} at ${view.width} px: rules needing a quote are not exercised, the failure comes first with its request and answer, and the calls are logged as tests`, async () => {
      const seller = await platform.createSeller({ tenants: 1 });
      const tenantId = seller.tenantIds[0] as string;
      await addProducts(platform, tenantId, [{ sku: 'SKU-A' }]);
      expect((await putSettings(platform, tenantId, { method: 'seller_api', url: refusingUrl })).statusCode).toBe(200);
      const page = await signInToConsole(browser, platform.url, seller, view.locale);
      await page.setViewportSize({ width: view.width, height: 900 });
      await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
      await page.getByRole('button', { name: view.test }).click();
      await page.getByRole('status').first().waitFor({ timeout: 30_000 });
      const rules = page.locator('table.stack').filter({ has: page.locator('code', { hasText: 'exchange.quotes-something' }) });
      const rows = rules.locator('tbody tr');
      // Failed first: the endpoint never quoted.
      await expect(rows.first().textContent()).resolves.toContain('exchange.quotes-something');
      await expect(rows.first().textContent()).resolves.toContain(view.failed);
      for (const id of ['response.price-positive', 'response.items-match-request']) {
        const row = rows.filter({ has: page.locator('code', { hasText: id }) });
        await expect(row.textContent()).resolves.toContain(view.notExercised);
      }
      // The failure shows the request that was sent and the answer that came back.
      const first = rows.first();
      await first.locator('summary').first().click();
      await expect(first.locator('details pre').first().textContent()).resolves.toContain('"zipcode"');
      await first.locator('summary').nth(1).click();
      await expect(first.locator('details pre').nth(1).textContent()).resolves.toContain('delivery_not_available');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      // Logged as tests; on the chart's figures, business answers, not endpoint failures.
      const calls = await page.context().request.get(`${platform.url}/seller/v1/shipping/quote-calls?purpose=test&_limit=100`);
      const logged = ((await calls.json()) as { results: Array<{ tenant_id: string; outcome: string }> }).results.filter(
        (c) => c.tenant_id === tenantId,
      );
      expect(logged).toHaveLength(12);
      expect(new Set(logged.map((c) => c.outcome))).toEqual(new Set(['delivery_not_available']));
      const stats = await page.context().request.get(`${platform.url}/seller/v1/shipping/quote-stats?tenant_id=${tenantId}`);
      const buckets = ((await stats.json()) as { buckets: Array<{ failed: number; business: number }> }).buckets;
      expect(buckets.reduce((sum, b) => sum + b.business, 0)).toBe(12);
      expect(buckets.reduce((sum, b) => sum + (b.failed - b.business), 0)).toBe(0);
      await page.context().close();
    }, 120_000);
  }
});
