import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { recordConsent } from '../../src/identity/consent-store.js';
import { testDatabaseTargets } from '../../src/storage/test-databases.js';
import { chromiumLaunchOptions, type ListeningPlatform, listenPlatform, testTls } from '../../src/testing.js';
import { startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, SELLER_SCOPES, signup } from '../webhooks/webhook-kit.js';

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
  beforeAll(async () => {
    platform = await listenPlatform(testDatabaseTargets()[0] as ReturnType<typeof testDatabaseTargets>[number], {
      outboundCa: testTls.ca,
    });
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('writes the screenshots', async () => {
    mkdirSync(OUT, { recursive: true });
    const hooks = await startReceiver({
      tls: true,
      answer: (_r, i) => (i === 0 ? { status: 500, body: 'database unavailable' } : { status: 200, body: 'ok' }),
    });
    const seller = await platform.createSeller({ tenants: 2 });
    const tenantId = seller.tenantIds[0] as string;
    const app = await platform.createClient({ name: 'Acme Integrações' });
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
    await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/hooks`, ['sac_ticket', 'order']);
    await recordConsent(
      platform.database.db,
      { clientId: app.clientId, sellerId: seller.sellerId, tenants: [tenantId] },
      [...SELLER_SCOPES],
      platform.clock,
    );
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

    const pages: Array<[string, string]> = [
      ['login', '/console'],
      ['stores', '/console'],
      ['webhooks', `/console/stores/${tenantId}/webhooks`],
      ['delivery', `/console/stores/${tenantId}/webhooks/deliveries/${delivery.id}`],
      ['apps', `/console/stores/${tenantId}/apps`],
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
          } else {
            await page.goto(`${platform.url}${path}`);
          }
          await page.screenshot({ path: `${OUT}${name}-${width}-${scheme}.png`, fullPage: true });
        }
        await context.close();
      }
    }
    await hooks.close();
  }, 300_000);
});
