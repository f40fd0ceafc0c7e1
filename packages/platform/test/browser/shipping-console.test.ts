import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueStock, configureDemoSellerShipping, type DemoSeller, startDemoSeller } from '../../src/demo/demo-seller.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { vtexCsv } from '../shipping/freight-kit.js';
import { addProducts, cart, putSettings } from '../shipping/shipping-kit.js';
import { seriousAxeViolations } from './axe.js';
import { platformInChromium, signInToConsole } from './browser-kit.js';

/**
 * The console's shipping page in Chromium: a seller tests their quote
 * endpoint and reads each rule's verdict (a conforming seller passes, a broken
 * one fails the rule it breaks), and the quote log shows the store's calls
 * with the latency chart.
 */
describe.each(testDatabaseTargets())('shipping console in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let demo: DemoSeller;
  let broken: Server;
  let brokenUrl: string;

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });
  beforeAll(async () => {
    demo = await startDemoSeller({ host: '127.0.0.1', port: 0, stock: catalogueStock(platform.database) });
    // A seller whose 200 has no package at all: the response's shape is wrong.
    broken = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"packages":[]}'));
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/quote`;
  });
  afterAll(async () => {
    await new Promise((resolve) => broken?.close(resolve));
    await demo?.close();
  });

  const signIn = (locale: string, login: string, password: string) =>
    signInToConsole(browser, platform.url, { login, password }, locale);

  it('spec "Seller-implemented shipping-quote endpoint": "Test my endpoint" shows every rule passed for a conforming seller, in pt-BR; the quote log lists a storefront quote and draws the chart; axe finds nothing serious', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await addProducts(platform, tenantId, [
      { sku: 'SKU-A', stock: 5 },
      { sku: 'SKU-B', stock: 5 },
    ]);
    await configureDemoSellerShipping(platform.app.platform, tenantId, demo.url);
    const quoted = await platform.app.inject({
      method: 'POST',
      url: '/storefront/v1/quotes',
      payload: { tenant_id: tenantId, zipcode: '20040002', items: cart },
    });
    expect(quoted.statusCode).toBe(200);

    const page = await signIn('pt-BR', seller.login, seller.password);
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    await page.getByRole('heading', { name: 'Frete de Store 1' }).waitFor({ timeout: 10_000 });
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('API do vendedor (seu endpoint)');
    // The quote log: the storefront quote, and the chart drawn from the same figures.
    const log = page.getByRole('table', { name: 'Registro de cotações' });
    await expect(log.getByRole('row').count()).resolves.toBe(2);
    // D81: the outcome by its label, not the API's code.
    await expect(log.getByRole('row').nth(1).textContent()).resolves.toMatch(/página do produto.*cotado/);
    await page.locator('#quote-chart canvas').first().waitFor({ timeout: 10_000 });
    await expect(page.locator('#quote-chart .uplot').count()).resolves.toBe(2);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Testar meu endpoint' }).click();
    await page.getByRole('status').waitFor({ timeout: 30_000 });
    await expect(page.getByRole('status').textContent()).resolves.toBe('Resultado: todas as regras passaram.');
    const rules = page.getByRole('table', { name: 'Regras da interface' });
    const deadline = rules.getByRole('row').filter({ hasText: 'exchange.deadline' });
    await expect(deadline.textContent()).resolves.toContain('passou');
    await expect(rules.getByText('falhou', { exact: true }).count()).resolves.toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("a broken endpoint fails the rule it breaks, in English; filters narrow the log; a seller cannot see another store's shipping page or stats", async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await addProducts(platform, tenantId, [{ sku: 'SKU-A' }, { sku: 'SKU-B' }]);
    const set = await putSettings(platform, tenantId, { method: 'seller_api', url: brokenUrl });
    expect(set.statusCode).toBe(200);
    // The storefront answers the shopper either way; the log records the seller's failure.
    await platform.app.inject({
      method: 'POST',
      url: '/storefront/v1/quotes',
      payload: { tenant_id: tenantId, zipcode: '20040002', items: cart },
    });

    const page = await signIn('en-US', seller.login, seller.password);
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping?outcome=ok`);
    await page.getByText('No quote in this period.').waitFor({ timeout: 10_000 });
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping?outcome=failed`);
    await expect(page.getByRole('table', { name: 'Quote log' }).getByRole('row').count()).resolves.toBe(2);

    await page.getByRole('button', { name: 'Test my endpoint' }).click();
    await page.getByRole('status').waitFor({ timeout: 30_000 });
    await expect(page.getByRole('status').textContent()).resolves.toContain('some rules failed');
    const schema = page
      .getByRole('table', { name: 'Rules of the interface' })
      .getByRole('row')
      .filter({ hasText: 'response.schema' });
    await expect(schema.textContent()).resolves.toContain('failed');
    expect(await seriousAxeViolations(page)).toEqual([]);

    const other = await platform.createSeller({ tenants: 1 });
    const response = await page.goto(`${platform.url}/console/stores/${other.tenantIds[0]}/shipping`);
    expect(response?.status()).toBe(404);
    const stats = await page
      .context()
      .request.get(`${platform.url}/seller/v1/shipping/quote-stats?tenant_id=${other.tenantIds[0]}`);
    expect(stats.status()).toBe(404);
    const mine = await page.context().request.get(`${platform.url}/seller/v1/shipping/quote-stats?tenant_id=${tenantId}`);
    const body = (await mine.json()) as { buckets: Array<{ calls: number; failed: number }>; deadlineMs: number };
    expect(body.deadlineMs).toBe(1000);
    // The storefront's failed quote and, logged as tests (D83), the 12 calls of Test my endpoint, every one failed.
    expect(body.buckets.reduce((sum, b) => sum + b.failed, 0)).toBe(13);
    const tests = await page.context().request.get(`${platform.url}/seller/v1/shipping/quote-calls?purpose=test&_limit=100`);
    expect(((await tests.json()) as { results: unknown[] }).results).toHaveLength(12);
    const calls = await page.context().request.get(`${platform.url}/seller/v1/shipping/quote-calls?outcome=ok`);
    expect(((await calls.json()) as { results: unknown[] }).results).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("spec-notes Q8: a seller uploads a freight table from the console with a progress bar, downloads it, sees a bad spreadsheet's problems with nothing changed (an upload limit and a cent's fraction too, in pt-BR), and deletes it; another store is a 404 and a change without the CSRF token a 403", async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const page = await signIn('pt-BR', seller.login, seller.password);
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    await page.getByText('Nenhuma tabela de frete ainda.').waitFor({ timeout: 10_000 });

    const good = vtexCsv([
      '01000000;39999999;SP;0;1000;12,50;0;0;;2;BRA;0',
      '01000000;39999999;SP;1001;30000;19,90;0;1,5;;3;BRA;0',
    ]);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'sedex.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
    await page.getByLabel('Id da tabela').fill('SEDEX');
    await page.getByLabel('Tabela', { exact: true }).fill('Sedex Sudeste');
    await page.getByLabel('Centro de distribuição (opcional)').fill('CD-SP');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.getByRole('status').getByText('Tabela de frete SEDEX salva.').waitFor({ timeout: 10_000 });
    expect(await page.locator('#freight-progress').count()).toBe(1);
    const row = page.getByRole('table', { name: 'Tabelas de frete' }).getByRole('row').nth(1);
    await expect(row.textContent()).resolves.toMatch(/SEDEX.*Sedex Sudeste.*CD-SP.*2/);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The download is the table as uploaded, in the VTEX layout.
    const csv = await page
      .context()
      .request.get(`${platform.url}/seller/v1/stores/${tenantId}/shipping/freight-tables/SEDEX?format=csv`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect((await csv.text()).split(/\r?\n/).filter(Boolean)).toHaveLength(3);

    // A spreadsheet with a bad cell: its problem is listed and the table is unchanged.
    const bad = vtexCsv(['01000000;39999999;SP;0;1000;doze;0;0;;2;BRA;0']);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    await page.getByLabel('Id da tabela').fill('SEDEX');
    await page.getByLabel('Tabela', { exact: true }).fill('Sedex Sudeste');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.locator('#freight-result [role="alert"]').waitFor({ timeout: 10_000 });
    // D81: the API's English problem, said in the page's language.
    await expect(page.locator('#freight-result').textContent()).resolves.toMatch(
      /A tabela não foi alterada: A planilha tem 1 problema\..*Linha 2, AbsoluteMoneyCost: "doze" não é um número \(escreva valores como 18,50\)/,
    );
    const kept = await platform.database.db
      .selectFrom('freight_tables')
      .select('row_count')
      .where('owner', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(kept.row_count)).toBe(2);

    // An upload limit (docs/security.md, "Tenant isolation"): a 40,000-character cell and a cent's fraction, in pt-BR too.
    const hostile = vtexCsv([`01000000;39999999;${'x'.repeat(40_000)};0;1000;12;0;0;;2;BRA;0`]);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'hostil.csv', mimeType: 'text/csv', buffer: Buffer.from(hostile) });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => page.locator('#freight-result').textContent(), { timeout: 10_000 })
      .toMatch(/Linha 2, PolygonName: a célula tem mais de 32\.767 caracteres \(um limite de envio/);
    const fraction = vtexCsv(['01000000;39999999;SP;0;1000;12,905;0;0;;2;BRA;0']);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'centavos.csv', mimeType: 'text/csv', buffer: Buffer.from(fraction) });
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await expect
      .poll(() => page.locator('#freight-result').textContent(), { timeout: 10_000 })
      .toMatch(/Linha 2, AbsoluteMoneyCost: precisa ser um valor com no máximo 2 casas decimais/);

    // Another seller's store, and a change without the CSRF token.
    const other = await platform.createSeller({ tenants: 1 });
    const foreign = await page
      .context()
      .request.get(`${platform.url}/seller/v1/stores/${other.tenantIds[0]}/shipping/freight-tables`);
    expect(foreign.status()).toBe(404);
    const forged = await page
      .context()
      .request.delete(`${platform.url}/seller/v1/stores/${tenantId}/shipping/freight-tables/SEDEX`);
    expect(forged.status()).toBe(403);

    await page.getByRole('button', { name: 'Excluir SEDEX' }).click();
    // D69: deleting a table asks first, in a dialog.
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir tabela' }).click();
    await page.getByText('Nenhuma tabela de frete ainda.').waitFor({ timeout: 10_000 });
    await page.context().close();
  }, 120_000);
});
