import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRecords } from '../../src/records/seed-records.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { chromiumLaunchOptions, type ListeningPlatform, listenPlatform } from '../../src/testing.js';
import { seriousAxeViolations } from './axe.js';
import { signInToConsole } from './console-sign-in.js';

/**
 * The console's records in Chromium: the store's orders in a table
 * driven by the list conventions (a filter, a sort, cursor pagination to the
 * next page), each row opening its JSON; a bad parameter is shown, not a crash.
 */
describe.each(testDatabaseTargets())('records console in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  beforeAll(async () => {
    platform = await listenPlatform(target);
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('spec-notes L1–L9: orders filtered by status, sorted, paged by cursor; a row opens its JSON; axe finds nothing serious', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await seedRecords(platform.database, tenantId, { products: 5, orders: 300 }, platform.app.platform);
    const approved = await platform.database.db
      .selectFrom('orders')
      .select(['id', 'code'])
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'approved')
      .execute();
    expect(approved.length).toBeGreaterThan(20);

    const page = await signInToConsole(browser, platform.url, seller, 'en-US');
    const context = page.context();
    await page.goto(`${platform.url}/console/stores/${tenantId}/records`);
    await page.getByRole('heading', { name: 'Records of Store 1' }).waitFor({ timeout: 10_000 });
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('status').selectOption('approved');
    await page.getByLabel('Sort').selectOption('code:asc');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=approved/);
    const table = page.getByRole('table', { name: 'Orders' });
    const firstPage = await table.locator('tbody tr').allTextContents();
    expect(firstPage).toHaveLength(20);
    for (const row of firstPage) expect(row).toContain('approved');
    const codes = [...approved.map((o) => o.code)].sort();
    expect(firstPage[0]).toContain(codes[0]);

    // Cursor pagination: the next page continues in code order, with nothing repeated.
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/_next_token=/);
    const secondPage = await page.getByRole('table', { name: 'Orders' }).locator('tbody tr').allTextContents();
    expect(secondPage[0]).toContain(codes[20]);

    // A row's JSON is the record as the API returns it.
    await page.getByRole('table', { name: 'Orders' }).locator('summary').first().click();
    const json = JSON.parse((await page.locator('#json-0').textContent()) ?? '{}') as { code: string; status: string };
    expect(json).toMatchObject({ code: codes[20], status: 'approved' });
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A parameter the list conventions refuse is shown on the page.
    const bad = await page.goto(`${platform.url}/console/stores/${tenantId}/records/orders?_sort=nonsense:asc`);
    expect(bad?.status()).toBeGreaterThanOrEqual(400);
    // D81: the refusal names the field by its label, in the page's language.
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Sort: has a value that is not accepted');
    // Another kind, and an unknown one.
    await page.goto(`${platform.url}/console/stores/${tenantId}/records/products`);
    await expect(page.getByRole('table', { name: 'Products' }).locator('tbody tr').count()).resolves.toBe(5);
    expect((await page.goto(`${platform.url}/console/stores/${tenantId}/records/sellers`))?.status()).toBe(404);
    await context.close();
  }, 120_000);
});
