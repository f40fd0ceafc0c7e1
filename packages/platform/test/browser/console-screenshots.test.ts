import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { describe, it } from 'vitest';
import { catalogueStock, configureDemoSellerShipping, startDemoSeller } from '../../src/demo/demo-seller.js';
import { seedRecords } from '../../src/records/seed-records.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, testTls } from '../../src/testing.js';
import { startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { platformInChromium, signInOperatorOn, storeWithSubscribedApp } from './browser-kit.js';

/**
 * `npm run screenshots`: each main page at 1280 px and 375 px, light and dark
 * (prefers-color-scheme), in pt-BR, written to docs/console/. Skipped in the
 * ordinary test run (FEIRA_SCREENSHOTS unset).
 */
const OUT = fileURLToPath(new URL('../../../../docs/console/', import.meta.url));
const enabled = process.env.FEIRA_SCREENSHOTS === '1';

describe.skipIf(!enabled)('console screenshots', () => {
  let platform: ListeningPlatform;
  let browser: Browser;
  platformInChromium(
    testDatabaseTargets()[0],
    (opened) => {
      ({ platform, browser } = opened);
    },
    { outboundCa: testTls.ca },
  );

  it('writes the screenshots', async () => {
    mkdirSync(OUT, { recursive: true });
    const hooks = await startReceiver({
      tls: true,
      answer: (_r, i) => (i === 0 ? { status: 500, body: 'database unavailable' } : { status: 200, body: 'ok' }),
    });
    const { seller, tenantId } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`, ['sac_ticket', 'order'], {
      tenants: 2,
    });
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    await recordChange(platform, { tenantId, topic: 'order', resource: '/seller/v1/orders/1' });
    await dispatcherOf(platform).runOnce();
    const delivery = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    const subscription = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('topic', '=', 'sac_ticket')
      .executeTakeFirstOrThrow();

    // Records, and a store quoting through the demo seller with a few quotes in its log.
    await seedRecords(
      platform.database,
      tenantId,
      { products: 6, orders: 60, tickets: 10, transactions: 10 },
      platform.app.platform,
    );
    const demo = await startDemoSeller({ host: '127.0.0.1', port: 0, stock: catalogueStock(platform.database) });
    await configureDemoSellerShipping(platform.app.platform, tenantId, demo.url);
    const skus = await platform.database.db
      .selectFrom('products')
      .select('sku')
      .where('tenant_id', '=', tenantId)
      .limit(2)
      .execute();
    for (let i = 0; i < 12; i++) {
      await platform.app.inject({
        method: 'POST',
        url: '/storefront/v1/quotes',
        payload: { tenant_id: tenantId, zipcode: '20040002', items: skus.map((p) => ({ sku: p.sku, quantity: 1 })) },
      });
      platform.clock.advance(60_000);
    }

    const pages: Array<[string, string]> = [
      ['login', '/console'],
      ['stores', '/console'],
      ['webhooks', `/console/stores/${tenantId}/webhooks`],
      ['delivery', `/console/stores/${tenantId}/webhooks/deliveries/${delivery.id}`],
      ['subscription', `/console/stores/${tenantId}/webhooks/subscriptions/${subscription.id}`],
      ['events', `/console/stores/${tenantId}/webhooks/events`],
      ['alerts', `/console/stores/${tenantId}/webhooks/alerts`],
      ['apps', `/console/stores/${tenantId}/apps`],
      ['records', `/console/stores/${tenantId}/records/orders`],
      ['shipping', `/console/stores/${tenantId}/shipping`],
      ['operator', '/console/operator'],
      ['health', '/console/operator/health'],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 375]) {
        const context = await browser.newContext({ locale: 'pt-BR', colorScheme: scheme, viewport: { width, height: 800 } });
        const page = await context.newPage();
        for (const [name, path] of pages) {
          if (name === 'stores') {
            await page.getByLabel('Login').fill(seller.login);
            await page.getByLabel('Senha').fill(seller.password);
            await page.getByRole('button', { name: 'Entrar' }).click();
            await page.getByRole('heading', { name: 'Suas lojas' }).waitFor();
          } else if (name === 'operator') {
            await signInOperatorOn(page, platform.url);
          } else {
            await page.goto(`${platform.url}${path}`);
          }
          if (name === 'shipping') {
            await page.getByRole('button', { name: 'Testar meu endpoint' }).click();
            await page.getByRole('status').waitFor({ timeout: 30_000 });
          }
          if (name === 'shipping' || name === 'health') await page.locator('.uplot canvas').first().waitFor();
          await page.screenshot({ path: `${OUT}${name}-${width}-${scheme}.png`, fullPage: true });
        }
        await context.close();
      }
    }
    await hooks.close();
    await demo.close();
  }, 600_000);
});
