import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seedRecords } from '../../src/records/seed-records.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { axeViolations, seriousAxeViolations } from './axe.js';
import { platformInChromium, signInToConsole } from './browser-kit.js';

/**
 * The console's records in Chromium: the store's orders in a table
 * driven by the list conventions (a filter, a sort, cursor pagination to the
 * next page), each row opening its JSON; a bad parameter is shown, not a crash.
 */
describe.each(testDatabaseTargets())('records console in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
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

  it('D155: a store finds an order by the beginning of its code or its whole id, a product by its SKU, says when more match and when nothing does; pt-BR at 375 px dark and English at 1280 px light, axe clean', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await seedRecords(platform.database, tenantId, { products: 5, orders: 120 }, platform.app.platform);
    const orders = await platform.database.db
      .selectFrom('orders')
      .select(['id', 'code'])
      .where('tenant_id', '=', tenantId)
      .orderBy('code')
      .execute();
    const sku = (
      await platform.database.db.selectFrom('products').select('sku').where('tenant_id', '=', tenantId).executeTakeFirstOrThrow()
    ).sku;
    // Seeded codes end in a running number: all but its last digit names ten orders, two digits fewer a hundred.
    const first = orders[0] as { id: string; code: string };
    const ten = first.code.slice(0, -1);
    const hundred = first.code.slice(0, -2);
    const path = `${platform.url}/console/stores/${tenantId}/records/orders`;

    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'pt-BR',
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
    });
    await page.goto(path);
    const search = page.getByRole('search', { name: 'Buscar em Pedidos' });
    await expect(page.locator('#q-hint').textContent()).resolves.toBe(
      'Busca por: ID (completo), Código (completo ou o começo), ID do cliente (completo). Maiúsculas e minúsculas contam.',
    );
    await search.getByLabel('Buscar em Pedidos').fill(ten);
    await search.getByRole('button', { name: 'Buscar' }).click();
    await page.waitForURL(/[?&]q=/);
    await expect(page.getByRole('status').textContent()).resolves.toBe(`10 registros correspondem a “${ten}”.`);
    const rows = page.getByRole('table', { name: 'Pedidos' }).locator('tbody tr');
    const shown = await rows.allTextContents();
    expect(shown).toHaveLength(10);
    expect(shown[0]).toContain(first.code);
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
    // A short beginning names more than a page: the first fifty, and a word to type more.
    await search.getByLabel('Buscar em Pedidos').fill(hundred);
    await search.getByRole('button', { name: 'Buscar' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      `Mais de 50 registros correspondem a “${hundred}”: os 50 primeiros estão abaixo. Digite mais para restringir a busca.`,
    );
    await expect(rows.count()).resolves.toBe(50);
    await page.getByRole('link', { name: 'Limpar a busca' }).click();
    await expect(page.getByRole('link', { name: 'Próxima página' }).count()).resolves.toBe(1);
    await page.context().close();

    const en = await signInToConsole(browser, platform.url, seller, { locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const last = orders.at(-1) as { id: string; code: string };
    await en.goto(`${path}?q=${encodeURIComponent(last.id)}`);
    await expect(en.getByRole('status').textContent()).resolves.toBe(`One record matches “${last.id}”.`);
    await expect(en.getByRole('table', { name: 'Orders' }).locator('tbody tr').textContent()).resolves.toContain(last.code);
    expect(await axeViolations(en)).toEqual([]);
    // In other capitals, or a code's middle: no record (a beginning, as typed).
    for (const term of [last.code.toLowerCase(), last.code.slice(3)]) {
      await en.goto(`${path}?q=${encodeURIComponent(term)}`);
      await expect(en.getByRole('status').textContent()).resolves.toBe(`No record matches “${term}”.`);
    }
    // A product by the beginning of its SKU.
    await en.goto(`${platform.url}/console/stores/${tenantId}/records/products`);
    await en.getByRole('searchbox', { name: 'Search Products' }).fill(sku);
    await en.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(en.getByRole('table', { name: 'Products' }).locator('tbody tr').textContent()).resolves.toContain(sku);
    // A term past the bound is refused, said beside the box.
    const long = await en.goto(`${path}?q=${'x'.repeat(101)}`);
    expect(long?.status()).toBe(422);
    await expect(en.getByRole('alert').textContent()).resolves.toBe(
      'Type what to search for: up to 100 characters, no control characters.',
    );
    expect((await en.goto(`${path}?q=a&q=b`))?.status()).toBe(422);
    await en.context().close();
  }, 60_000);
});
