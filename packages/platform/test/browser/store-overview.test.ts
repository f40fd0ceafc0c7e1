import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import type { LoopbackReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange } from '../webhooks/webhook-kit.js';
import { seriousAxeViolations } from './axe.js';
import { signInToConsole, storeWithSubscribedApp, webhooksInChromium } from './browser-kit.js';

/**
 * A store's overview (D149): the stores list leads to it; it counts the whole
 * store's deliveries per state over 24 hours, 7 or 30 days and charts them
 * with the console's chart module.
 */
describe.each(testDatabaseTargets())('store overview in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let hooks: LoopbackReceiver;
  webhooksInChromium(target, (opened) => {
    ({ platform, browser, hooks } = opened);
  });

  it('the overview counts the store’s deliveries per state for 24 hours and 7 days and draws the chart, in pt-BR at 1280 px and in English at 375 px dark; axe finds nothing serious; another seller’s store is a 404', async () => {
    const { seller, tenantId } = await storeWithSubscribedApp(platform, `${hooks.url}/hooks`, ['sac_ticket'], {
      name: 'Acme',
      consented: null,
    });
    for (let i = 0; i < 4; i++) {
      await recordChange(platform, { tenantId });
      await dispatcherOf(platform).runOnce();
    }
    const ids = (
      await platform.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .execute()
    ).map((row) => row.id);
    expect(ids).toHaveLength(4);
    const db = platform.database.db;
    await db
      .updateTable('webhook_deliveries')
      .set({ state: 'dead' })
      .where('id', '=', ids[1] as string)
      .execute();
    await db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending' })
      .where('id', '=', ids[2] as string)
      .execute();
    const threeDaysAgo = new Date(platform.clock.now().getTime() - 3 * 24 * 3600_000).toISOString();
    await db
      .updateTable('webhook_deliveries')
      .set({ created_at: threeDaysAgo })
      .where('id', '=', ids[3] as string)
      .execute();

    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 1280, height: 900 },
    });
    await page.getByRole('link', { name: 'Store 1' }).click();
    await page.getByRole('heading', { name: 'Visão geral de Store 1', level: 1 }).waitFor({ timeout: 10_000 });
    const facts = page.locator('dl.overview-counts');
    await expect(facts.textContent()).resolves.toMatch(
      /a loja toda\)3 entregas.*Entregues1.*Pendentes ou em nova tentativa1.*Falharam de vez1.*Assinaturas1 ativa, nenhuma desativada/s,
    );
    await page.locator('#overview-chart canvas').first().waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Últimos 7 dias' }).click();
    await expect.poll(() => facts.textContent(), { timeout: 10_000 }).toMatch(/a loja toda\)4 entregas.*Entregues2/s);
    await expect(page.getByRole('link', { name: 'Últimos 7 dias' }).getAttribute('aria-current')).resolves.toBe('page');
    await page.context().close();

    const narrow = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      viewport: { width: 375, height: 812 },
      colorScheme: 'dark',
    });
    await narrow.goto(`${platform.url}/console/stores/${tenantId}/overview?window=30d`);
    await narrow.getByRole('heading', { name: 'Overview of Store 1', level: 1 }).waitFor({ timeout: 10_000 });
    await expect(narrow.locator('dl.overview-counts').textContent()).resolves.toMatch(/whole store\)4 deliveries/);
    await narrow.locator('#overview-chart canvas').first().waitFor({ timeout: 10_000 });
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(narrow)).toEqual([]);
    const other = await platform.createSeller({ tenants: 1 });
    expect((await narrow.goto(`${platform.url}/console/stores/${other.tenantIds[0]}/overview`))?.status()).toBe(404);
    await narrow.context().close();
  }, 180_000);
});
