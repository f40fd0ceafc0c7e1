import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FREIGHT_COLUMNS } from '../../src/shipping/freight/freight-csv.js';
import { XLSX_MEDIA_TYPE } from '../../src/shipping/freight/freight-xlsx.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { vtexCsv } from '../shipping/freight-kit.js';
import { admin } from '../shipping/shipping-kit.js';
import { seriousAxeViolations } from './axe.js';
import { platformInChromium, signInToConsole } from './browser-kit.js';

/** A one-sheet workbook in the VTEX layout, written by exceljs (the platform's own library). */
async function workbook(rows: Array<Array<string | number | null>>): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => out.on('end', resolve));
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out });
  const sheet = writer.addWorksheet('Frete');
  for (const row of [[...FREIGHT_COLUMNS], ...rows]) sheet.addRow(row).commit();
  sheet.commit();
  await writer.commit();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Freight tables in the console (D62, D148): a workbook picked in the upload
 * form declares its type and imports; a bad one gets the API's own problem
 * by sheet, row and column, in the page's language; a table's rows are read
 * a page at a time, whichever format it came in.
 */
describe.each(testDatabaseTargets())('freight tables in the console on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });

  it('spec-notes Q8, D62: a seller uploads an .xlsx workbook from the picker and reads its rows; a bad workbook lists its cell by sheet, row and column in pt-BR and changes nothing; axe finds nothing serious', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const page = await signInToConsole(browser, platform.url, seller, 'pt-BR');
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping`);
    await page.getByText('Nenhuma tabela de frete ainda.').waitFor({ timeout: 10_000 });

    const good = await workbook([
      ['01000000', '39999999', 'SP', 0, 1000, 12.5, 0, 0, null, 2, 'BRA', 0],
      ['01000000', '39999999', 'SP', 1001, 30000, '19,90', 0, '1,5', null, 3, 'BRA', 0],
    ]);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'pac.xlsx', mimeType: XLSX_MEDIA_TYPE, buffer: good });
    await page.getByLabel('Id da tabela').fill('PAC');
    await page.getByLabel('Tabela', { exact: true }).fill('PAC Sudeste');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    // A workbook is read on its own thread (D96), which a loaded host may take a while to start.
    await page.getByRole('status').getByText('Tabela de frete PAC salva.').waitFor({ timeout: 90_000 });
    const table = await platform.database.db
      .selectFrom('freight_tables')
      .select(['row_count', 'source_format'])
      .where('owner', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect({ rows: Number(table.row_count), format: table.source_format }).toEqual({ rows: 2, format: 'xlsx' });

    // A workbook with a word where a price goes: the API's problem, by sheet, row and column, in Portuguese.
    const bad = await workbook([['01000000', '39999999', 'SP', 0, 1000, 'doze', 0, 0, null, 2, 'BRA', 0]]);
    await page
      .getByLabel('Planilha (.csv ou .xlsx)')
      .setInputFiles({ name: 'ruim.xlsx', mimeType: XLSX_MEDIA_TYPE, buffer: bad });
    await page.getByLabel('Id da tabela').fill('PAC');
    await page.getByLabel('Tabela', { exact: true }).fill('PAC Sudeste');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.locator('#freight-result [role="alert"]').waitFor({ timeout: 90_000 });
    const said = await page.locator('#freight-result').textContent();
    expect(said).toMatch(/A tabela não foi alterada: A planilha tem 1 problema\./);
    expect(said).toContain('Planilha "Frete", linha 2, AbsoluteMoneyCost: "doze" não é um número');
    expect(said).not.toContain('coluna ausente');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The rows, as uploaded.
    await page.getByRole('link', { name: 'Linhas de PAC' }).click();
    await page.getByRole('heading', { name: 'Tabela de frete PAC', level: 1 }).waitFor({ timeout: 10_000 });
    const rows = page.getByRole('table').getByRole('row');
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.nth(2).textContent()).resolves.toMatch(/01000000.*39999999.*SP.*1\.001.*30\.000.*R\$\s19,90/);
    await expect(page.getByText('PAC Sudeste: 2 linhas, enviada como pasta de trabalho .xlsx.').count()).resolves.toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.context().close();
  }, 300_000);

  it('a table of 60 rows reads 50 a page then the rest, at 375 px in English and dark; an unknown table and another seller’s are 404s', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const lines = Array.from({ length: 60 }, (_, i) => {
      const start = String(1_000_000 + i * 1000).padStart(8, '0');
      const end = String(1_000_000 + i * 1000 + 999).padStart(8, '0');
      return `${start};${end};SP;0;1000;12,50;0;0;;2;BRA;0`;
    });
    const put = await platform.app.inject({
      method: 'PUT',
      url: `/admin/v1/tenants/${tenantId}/shipping/freight-tables/SEDEX?name=Sedex`,
      headers: { ...admin, 'content-type': 'text/csv' },
      payload: vtexCsv(lines),
    });
    expect(put.statusCode).toBe(201);

    const page = await signInToConsole(browser, platform.url, seller, {
      locale: 'en-US',
      viewport: { width: 375, height: 812 },
      colorScheme: 'dark',
    });
    await page.goto(`${platform.url}/console/stores/${tenantId}/shipping/freight-tables/SEDEX`);
    await page.getByRole('heading', { name: 'Freight table SEDEX', level: 1 }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('table').locator('tbody tr').count()).resolves.toBe(50);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'First page' }).waitFor({ timeout: 10_000 });
    await expect(page.getByRole('table').locator('tbody tr').count()).resolves.toBe(10);
    await expect(page.getByRole('link', { name: 'Next page' }).count()).resolves.toBe(0);

    expect((await page.goto(`${platform.url}/console/stores/${tenantId}/shipping/freight-tables/NOPE`))?.status()).toBe(404);
    const other = await platform.createSeller({ tenants: 1 });
    const foreign = await page.goto(`${platform.url}/console/stores/${other.tenantIds[0]}/shipping/freight-tables/SEDEX`);
    expect(foreign?.status()).toBe(404);
    await page.context().close();
  }, 120_000);
});
