// Freight tables uploaded as .xlsx workbooks (D62), on every database: the
// first sheet in the VTEX layout, numbers stored as numbers or as Brazilian
// text (1.234,56), a 100k-row workbook generated here, bad cells named by
// sheet, row and cell, the atomic switch, and downloads in the format uploaded.
import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFreightXlsx, XLSX_MEDIA_TYPE } from '../../src/shipping/freight/freight-xlsx.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../../src/testing.js';
import { putTable, quote, storeWithSettings, tableUrl, vtexCsv } from './freight-kit.js';
import { addProducts, admin } from './shipping-kit.js';

const HEADER = [
  'ZipCodeStart',
  'ZipCodeEnd',
  'PolygonName',
  'WeightStart',
  'WeightEnd',
  'AbsoluteMoneyCost',
  'PricePercent',
  'PriceByExtraWeight',
  'MaxVolume',
  'TimeCost',
  'Country',
  'MinimumValueInsurance',
];

type Cell = string | number | null;

/** A workbook written with exceljs's streaming writer (the platform's library, D96): the sheets in order, each a header and its rows. */
async function workbook(sheets: { name: string; rows: Cell[][] }[]): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => out.on('end', resolve));
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: true });
  for (const { name, rows } of sheets) {
    const sheet = writer.addWorksheet(name);
    for (const row of rows) sheet.addRow(row).commit();
    sheet.commit();
  }
  await writer.commit();
  await done;
  return Buffer.concat(chunks);
}

/** Rows i = 0…n-1: zip ranges of 100 from 01000000 (numbers: their leading zero lost), 0–30 kg, money as Brazilian text. */
function rows(n: number, brazilianText = true): Cell[][] {
  return Array.from({ length: n }, (_, i) => {
    const start = 1_000_000 + i * 100;
    const money = brazilianText ? (i === 0 ? '1.234,50' : '12,90') : 12.9 + i;
    return [start, start + 99, `Faixa ${i}`, 0, 30000, money, 0, brazilianText ? '0,5' : 0.5, null, 3, 'BRA', 0];
  });
}

const putXlsx = (platform: TestPlatform, tenantId: string, tableId: string, body: Buffer, name = tableId) =>
  platform.app.inject({
    method: 'PUT',
    url: tableUrl(tenantId, tableId, { name }),
    headers: { ...admin, 'content-type': XLSX_MEDIA_TYPE },
    payload: body,
  });

describe('the workbook reader', () => {
  it('spec-notes Q8 (D62): a sheet past the row limit is refused without reading on (a small compressed upload can hold millions of rows)', async () => {
    const body = await workbook([{ name: 'Frete', rows: [HEADER, ...rows(5)] }]);
    const written: number[] = [];
    const result = await readFreightXlsx(
      Readable.from([body]),
      async (batch) => {
        written.push(batch.length);
      },
      { maxRows: 3 },
    );
    expect(result.problems).toEqual([
      {
        line: 5,
        column: '(sheet)',
        message: 'the sheet has more than 3 rows; split it into several tables',
        sheet: 'Frete',
      },
    ]);
    expect(written).toEqual([]);
  });
});

describe('the workbook reader and money', () => {
  it('spec-notes R1, Q8: a money cell stored as a number is judged as the spreadsheet shows it (15 significant digits): 16.490000000000002 is 16.49, 12.905 is refused naming its cell', async () => {
    const body = await workbook([
      {
        name: 'Frete',
        rows: [
          HEADER,
          [1_000_000, 1_000_099, 'A', 0, 30000, 0.1 + 16.39, 0, 0, null, 3, 'BRA', 0],
          [1_000_100, 1_000_199, 'B', 0, 30000, 12.905, 0, 0, null, 3, 'BRA', 0],
        ],
      },
    ]);
    const rows: number[] = [];
    const result = await readFreightXlsx(Readable.from([body]), async (batch) => {
      rows.push(...batch.map((row) => row.absoluteMoneyCost));
    });
    expect(0.1 + 16.39).not.toBe(16.49);
    expect(result.problems).toEqual([
      expect.objectContaining({
        line: 3,
        column: 'AbsoluteMoneyCost',
        cell: 'F3',
        message: 'must be an amount with at most 2 decimal places',
      }),
    ]);
    const good = await workbook([
      { name: 'Frete', rows: [HEADER, [1_000_000, 1_000_099, 'A', 0, 30000, 0.1 + 16.39, 0, 0, null, 3, 'BRA', 0]] },
    ]);
    await readFreightXlsx(Readable.from([good]), async (batch) => {
      rows.push(...batch.map((row) => row.absoluteMoneyCost));
    });
    expect(rows).toEqual([16.49]);
  });
});

describe.each(testDatabaseTargets())('freight tables from .xlsx on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, tenantId, [{ sku: 'SKU-A', weight_g: 500 }]);
  });
  afterAll(() => platform.close());

  it('spec-notes Q8, Q9 (D62): a workbook of 100,000 rows imports from its first sheet; numbers stored as text with thousands dots and decimal commas are read, zipcodes stored as numbers get their zeros back', async () => {
    const body = await workbook([
      { name: 'Tabela', rows: [HEADER, ...rows(100_000)] },
      { name: 'Notas', rows: [['not', 'a', 'table']] },
    ]);
    const res = await putXlsx(platform, tenantId, 'planilha', body, 'Planilha');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().row_count).toBe(100_000);
    // 01000050 falls in row 0: 1.234,50 reais + 0,5 per kg × 0.5 kg (Q9); 01000150 in row 1: 12,90 + 0,25.
    const first = await quote(platform, tenantId, '01000050', [{ sku: 'SKU-A', quantity: 1 }]);
    expect(first.packages[0]?.options[0]).toEqual(expect.objectContaining({ id: 'planilha', price: 1234.75, delivery_days: 3 }));
    const second = await quote(platform, tenantId, '01000150', [{ sku: 'SKU-A', quantity: 1 }]);
    expect(second.packages[0]?.options[0]?.price).toBe(13.15);
  }, 120_000);

  it.each([
    ['exceljs-shared-strings.xlsx', 'exceljs: shared strings, styles, a formula, a second sheet'],
    ['excelts-inline-strings.xlsx', 'excelts: inline strings, styles, a formula, a second sheet, parts in another order'],
  ])('spec-notes Q8, Q9 (D62, D96): a workbook written by another program (%s, %s) imports the same', async (fixture) => {
    const body = readFileSync(new URL(`./fixtures/${fixture}`, import.meta.url));
    const tableId = fixture.slice(0, 20);
    const res = await putXlsx(platform, tenantId, tableId, body);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().row_count).toBe(2);
    // Row 0: 1.234,50 as text, zipcodes stored as numbers (00500000 lost its zeros); row 1: a formula whose cached result is 12.9.
    const option = async (zipcode: string) =>
      (await quote(platform, tenantId, zipcode, [{ sku: 'SKU-A', quantity: 1 }])).packages[0]?.options.find(
        (o: { id: string }) => o.id === tableId,
      );
    expect(await option('00500050')).toEqual(expect.objectContaining({ price: 1234.75, delivery_days: 3 }));
    expect(await option('00500150')).toEqual(expect.objectContaining({ price: 13.15, delivery_days: 4 }));
    // Both fixtures cover the same zipcodes at the same prices; the next one is quoted alone.
    await platform.app.inject({ method: 'DELETE', url: tableUrl(tenantId, tableId), headers: admin });
  });

  it('spec-notes Q8 (D62): a bad cell is reported with its sheet, row, column and cell reference, and the table stays as it was (atomic switch)', async () => {
    const good = await workbook([{ name: 'Frete', rows: [HEADER, ...rows(3)] }]);
    expect((await putXlsx(platform, tenantId, 'atomica', good)).statusCode).toBe(201);
    const badRows = rows(4);
    (badRows[3] as Cell[])[5] = 'doze reais';
    const bad = await workbook([{ name: 'Frete', rows: [HEADER, ...badRows] }]);
    const res = await putXlsx(platform, tenantId, 'atomica', bad);
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      {
        field: 'sheets.Frete.rows.5.AbsoluteMoneyCost',
        location: 'body',
        message: 'sheet "Frete", row 5, column AbsoluteMoneyCost (cell F5): "doze reais" is not a number',
        slug: 'INVALID_PARAMETER_VALUE',
      },
    ]);
    const summary = await platform.app.inject({ method: 'GET', url: tableUrl(tenantId, 'atomica'), headers: admin });
    expect(summary.json().row_count).toBe(3);
    const notAWorkbook = await putXlsx(platform, tenantId, 'atomica', Buffer.from('ZipCodeStart;ZipCodeEnd'));
    expect(notAWorkbook.statusCode).toBe(422);
    expect(notAWorkbook.json().details[0].message).toMatch(/not readable as an \.xlsx workbook/);
  });

  it('spec-notes Q8 (D62): a table downloads in the format it was uploaded in; the workbook uploaded again gives the same rows', async () => {
    const body = await workbook([{ name: 'Frete', rows: [HEADER, ...rows(50, false)] }]);
    expect((await putXlsx(platform, tenantId, 'ida', body)).statusCode).toBe(201);
    const download = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenantId, 'ida', { format: 'original' }),
      headers: admin,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(download.headers['content-disposition']).toBe('attachment; filename="ida.xlsx"');
    const again = await putXlsx(platform, tenantId, 'volta', download.rawPayload);
    expect(again.statusCode, again.body).toBe(201);
    const csvOf = async (tableId: string) =>
      (await platform.app.inject({ method: 'GET', url: tableUrl(tenantId, tableId, { format: 'csv' }), headers: admin })).body;
    expect(await csvOf('volta')).toBe(await csvOf('ida'));
  });

  it('spec-notes Q8 (D62): a CSV written with decimal commas downloads with them (12,90 stays 12,90); one with points keeps points', async () => {
    const comma = vtexCsv(['01000000;01999999;Capital;0;30000;12,90;0;0,5;;3;BRA;0']);
    expect((await putTable(platform, tenantId, 'virgula', comma)).statusCode).toBe(201);
    const download = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenantId, 'virgula', { format: 'original' }),
      headers: admin,
    });
    expect(download.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(download.body.split('\r\n')[1]).toBe('01000000;01999999;Capital;0;30000;12,90;0;0,50;;3;BRA;0,00');
    const point = vtexCsv(['01000000;01999999;Capital;0;30000;12.90;0;0.5;;3;BRA;0']);
    expect((await putTable(platform, tenantId, 'ponto', point)).statusCode).toBe(201);
    const pointDownload = await platform.app.inject({
      method: 'GET',
      url: tableUrl(tenantId, 'ponto', { format: 'csv' }),
      headers: admin,
    });
    expect(pointDownload.body.split('\r\n')[1]).toBe('01000000;01999999;Capital;0;30000;12.9;0;0.5;;3;BRA;0');
  });
});
