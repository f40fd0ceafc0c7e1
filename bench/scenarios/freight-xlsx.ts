import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { benchDatabase } from '../lib/platform-process.js';
import { figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import type { FreightLoadResult } from '../processes/freight-loader.js';

const LOADER = new URL('../processes/freight-loader.ts', import.meta.url);
/** The goal for a workbook import (a CSV's is the freight scenario's). */
const XLSX_TARGET = 50_000;
/** Rows of the workbook and of the CSV beside it (quick mode: a CI smoke). */
const ROWS = { full: 300_000, quick: 20_000 } as const;
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
const WEIGHT_BANDS = 10;

/** Row `i` of both files: zip ranges spanning every zipcode, WEIGHT_BANDS bands of 1 kg each, money with a decimal comma. */
function row(i: number, ranges: number): string[] {
  const step = Math.floor(100_000_000 / ranges);
  const r = Math.floor(i / WEIGHT_BANDS);
  const w = i % WEIGHT_BANDS;
  return [
    String(r * step).padStart(8, '0'),
    String(r * step + step - 1).padStart(8, '0'),
    `Faixa ${r}`,
    String(w * 1000),
    String(w * 1000 + 999),
    `${10 + (r % 7)},${w}0`,
    '1,5',
    '2',
    '1000000',
    `${1 + (r % 5)}.00:00:00`,
    'BRA',
    '5,00',
  ];
}

/** The same rows as a CSV and as a workbook whose cells hold them as sellers' text (numbers stored as text). */
async function writeFiles(csvFile: string, xlsxFile: string, rows: number): Promise<void> {
  const ranges = Math.ceil(rows / WEIGHT_BANDS);
  const csv = createWriteStream(csvFile);
  csv.write(`${HEADER.join(';')}\n`);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: xlsxFile, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet('Frete');
  sheet.addRow(HEADER).commit();
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const cells = row(i, ranges);
    chunk += `${cells.join(';')}\n`;
    sheet.addRow(cells).commit();
    if (chunk.length > 1 << 16) {
      if (!csv.write(chunk)) await once(csv, 'drain');
      chunk = '';
    }
  }
  csv.end(chunk);
  await once(csv, 'finish');
  sheet.commit();
  await workbook.commit();
}

async function importIn(ctx: ScenarioContext, label: string, file: string, format: 'csv' | 'xlsx'): Promise<FreightLoadResult> {
  const database = await benchDatabase(ctx, 'sqlite', `freight-${format}`);
  const child = await ctx.children.start(label, LOADER, { options: { databaseUrl: database.url }, readyTimeoutMs: 120_000 });
  try {
    return await child.call<FreightLoadResult>('import', { file, tableId: 'bench', format }, 3_600_000);
  } finally {
    ctx.peakRssBytes[label] = child.peakRss();
    await child.stop();
    await database.drop();
  }
}

const rate = (r: FreightLoadResult) => round(r.rows / (r.elapsedMs / 1000), 0);

/**
 * BENCHMARKS.md, "Freight": the import rate of an .xlsx workbook (D62, D96: exceljs's
 * streaming reader on the workbook's own thread after the bounds' scan, the first sheet, the CSV's validation and insert) against
 * the same rows as a CSV in the same run, on SQLite.
 */
export const freightXlsx: Scenario = {
  id: 'freight-import-xlsx',
  title: 'Freight table import from an .xlsx workbook, against the same CSV',
  async unavailable() {
    const platform = (await import('@feira/platform')) as Record<string, unknown>;
    if (typeof platform.importFreightTable !== 'function') return 'freight tables have not landed';
    return null;
  },
  async run(ctx) {
    const rows = ROWS[ctx.mode];
    const csvFile = join(ctx.scratchDir, 'freight.csv');
    const xlsxFile = join(ctx.scratchDir, 'freight.xlsx');
    ctx.log(`writing ${rows.toLocaleString('en-US')} rows as a CSV and as a workbook`);
    await writeFiles(csvFile, xlsxFile, rows);
    if (ctx.mode === 'quick')
      ctx.notes.push(`quick mode: ${rows.toLocaleString('en-US')} rows instead of ${ROWS.full.toLocaleString('en-US')}`);
    ctx.notes.push(
      'the workbook holds every cell as text (numbers stored as text, decimal commas): the slowest form sellers send',
    );
    const csv = await importIn(ctx, 'import CSV (SQLite)', csvFile, 'csv');
    const xlsx = await importIn(ctx, 'import XLSX (SQLite)', xlsxFile, 'xlsx');
    const ratio = rate(csv) ? round(rate(xlsx) / rate(csv), 2) : null;
    ctx.notes.push(`XLSX / CSV import rate: ${ratio ?? 'n/a'}`);
    return [
      figure(`SQLite: import of ${rows.toLocaleString('en-US')} rows from an .xlsx workbook`, rate(xlsx), 'rows/s', {
        baseline: { name: 'the same rows as a CSV, same run', value: rate(csv), unit: 'rows/s' },
        target: { text: `≥ ${XLSX_TARGET.toLocaleString('en-US')} rows/s`, met: rate(xlsx) >= XLSX_TARGET },
      }),
    ];
  },
};
