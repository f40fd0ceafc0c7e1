// The bounds of a freight upload, each alone (docs/security.md, "Tenant
// isolation"): the CSV's raw-text scanner, the workbook's zip and XML scan,
// and the workbook's thread (memory and time). Each refusal names its limit
// and where it was hit. The route-level attacks are in upload-isolation.test.ts.
import { describe, expect, it } from 'vitest';
import type { UploadLimits } from '../../src/core/config.js';
import { type FreightRow, readFreightCsv } from '../../src/shipping/freight/freight-csv.js';
import { readFreightXlsxIsolated } from '../../src/shipping/freight/freight-xlsx-isolated.js';
import {
  DEFAULT_UPLOAD_LIMITS,
  UploadLimitExceeded,
  type UploadLimitHit,
  uploadLimitError,
} from '../../src/shipping/freight/upload-limits.js';
import { checkWorkbookBounds } from '../../src/shipping/freight/xlsx-bounds.js';
import { VTEX_HEADER } from './freight-kit.js';
import {
  hugeInlineCell,
  inlineRow,
  repeatedPart,
  sharedStringsBomb,
  VALID_ROWS,
  validSheet,
  workbookOf,
  xmlPart,
} from './xlsx-bombs.js';

const limits = (overrides: Partial<UploadLimits>): UploadLimits => ({ ...DEFAULT_UPLOAD_LIMITS, ...overrides });

/** The hit a read refused with, or undefined when it was not refused by a bound. */
async function hitOf(read: Promise<unknown>): Promise<UploadLimitHit | undefined> {
  try {
    await read;
    return undefined;
  } catch (error) {
    if (error instanceof UploadLimitExceeded) return error.hit;
    throw error;
  }
}

/** Reads CSV text in chunks of `chunkChars` as a socket would hand it over; the rows that reached the writer. */
function csv(text: string, bounds: Partial<UploadLimits>, written: FreightRow[] = [], chunkChars = 1000) {
  async function* source() {
    for (let at = 0; at < text.length; at += chunkChars) yield Buffer.from(text.slice(at, at + chunkChars));
  }
  return readFreightCsv(
    source(),
    async (rows) => {
      written.push(...rows);
    },
    { batchRows: 1, limits: limits(bounds) },
  );
}

const ROW = '01000000;01999999;Capital;0;30000;12,90;0;0;;3;BRA;0';

describe('the CSV bounds, on the raw text before the parser', () => {
  it('tenant isolation (upload limit cell_chars): a cell longer than the bound is refused at its line and column, quoted or not, and nothing after it is read', async () => {
    const long = 'x'.repeat(101);
    expect(await hitOf(csv(`${VTEX_HEADER}\r\n${ROW}\r\n01000000;01999999;${long};0\r\n`, { cellChars: 100 }))).toEqual({
      limit: 'cellChars',
      value: 100,
      line: 3,
      column: 'PolygonName',
    });
    // In quotes, with the delimiter and line breaks inside: still one cell, counted whole.
    const quoted = `"${'a;\r\n'.repeat(30)}"`;
    expect(await hitOf(csv(`${VTEX_HEADER}\r\n01000000;01999999;${quoted};0\r\n`, { cellChars: 100 }))).toEqual({
      limit: 'cellChars',
      value: 100,
      line: 2,
      column: 'PolygonName',
    });
    // A cell of exactly the bound passes the scanner (the reader keeps 200 characters of it).
    const written: FreightRow[] = [];
    const fits = await csv(`${VTEX_HEADER}\r\n${ROW.replace('Capital', 'y'.repeat(100))}\r\n`, { cellChars: 100 }, written);
    expect(fits.problemCount).toBe(0);
    expect(written).toHaveLength(1);
  });

  it('tenant isolation (upload limit cell_chars): a header line with no line break is refused by its cell, not gathered whole', async () => {
    expect(await hitOf(csv('x'.repeat(5000), { cellChars: 1000 }))).toEqual(
      expect.objectContaining({ limit: 'cellChars', value: 1000, line: 1 }),
    );
  });

  it('tenant isolation (upload limit columns): a row of more cells than the bound is refused at its line', async () => {
    expect(await hitOf(csv(`${VTEX_HEADER}\r\n${ROW}${';'.repeat(20)}\r\n`, { columns: 20 }))).toEqual({
      limit: 'columns',
      value: 20,
      line: 2,
      column: 'column 21',
    });
  });

  it('tenant isolation (upload limit rows): the first row past the bound is refused (the header counts), without reading on', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => ROW.replace('01000000;01999999', `0${i + 1}000000;0${i + 1}999999`));
    const written: FreightRow[] = [];
    expect(await hitOf(csv(`${VTEX_HEADER}\r\n${rows.join('\r\n')}\r\n`, { rows: 5 }, written))).toEqual({
      limit: 'rows',
      value: 5,
      line: 6,
      column: '(line)',
    });
    // Exactly the bound, with a trailing line break, passes.
    const fits = await csv(`${VTEX_HEADER}\r\n${rows.slice(0, 4).join('\r\n')}\r\n`, { rows: 5 });
    expect(fits.problemCount).toBe(0);
    expect(fits.rowCount).toBe(4);
  });
});

describe('the workbook bounds, checked as the zip inflates', () => {
  it('tenant isolation (upload limit compression_ratio): the shared-strings bomb (~5 MB inflating to ~2.5 GB, its declared size a lie) is stopped in its first MiB', async () => {
    const bomb = sharedStringsBomb();
    expect(bomb.zip.length).toBeLessThan(6 * 1024 * 1024);
    expect(bomb.inflatedSize).toBeGreaterThan(2.5e9);
    expect(await hitOf(checkWorkbookBounds(bomb.zip, DEFAULT_UPLOAD_LIMITS))).toEqual({
      limit: 'compressionRatio',
      value: 100,
      part: 'xl/sharedStrings.xml',
    });
  });

  it('tenant isolation (upload limit part_inflated_bytes): a part declaring more than the bound is refused before inflating; one declaring less is stopped at the bound as it inflates', async () => {
    const small = limits({ partInflatedBytes: 1024 * 1024, compressionRatio: 1e9 });
    const honest = sharedStringsBomb(5000, 1000, 5_100_000);
    expect(await hitOf(checkWorkbookBounds(honest.zip, small))).toEqual({
      limit: 'partInflatedBytes',
      value: 1024 * 1024,
      part: 'xl/sharedStrings.xml',
    });
    const lying = sharedStringsBomb(5000, 1000, 1024);
    expect(await hitOf(checkWorkbookBounds(lying.zip, small))).toEqual({
      limit: 'partInflatedBytes',
      value: 1024 * 1024,
      part: 'xl/sharedStrings.xml',
    });
  });

  it('tenant isolation (upload limit shared_strings, shared_strings_bytes): the count and the total text of the shared strings are bounded, naming the string', async () => {
    const bomb = sharedStringsBomb(5000, 100);
    expect(await hitOf(checkWorkbookBounds(bomb.zip, limits({ sharedStrings: 1000, compressionRatio: 1e9 })))).toEqual({
      limit: 'sharedStrings',
      value: 1000,
      part: 'xl/sharedStrings.xml',
      sharedString: 1000,
    });
    expect(await hitOf(checkWorkbookBounds(bomb.zip, limits({ sharedStringsBytes: 50_000, compressionRatio: 1e9 })))).toEqual({
      limit: 'sharedStringsBytes',
      value: 50_000,
      part: 'xl/sharedStrings.xml',
      sharedString: 500,
    });
  });

  it('tenant isolation (upload limit cell_chars): the 700 MB inline cell (~700 KB upload) is refused at sheet, row and cell; a long shared string at its index', async () => {
    const cell = hugeInlineCell();
    expect(cell.zip.length).toBeLessThan(1024 * 1024);
    expect(cell.inflatedSize).toBeGreaterThan(700e6);
    expect(await hitOf(checkWorkbookBounds(cell.zip, DEFAULT_UPLOAD_LIMITS))).toEqual({
      limit: 'cellChars',
      value: 32_767,
      part: 'xl/worksheets/sheet1.xml',
      sheet: 'Frete',
      line: 2,
      cell: 'C2',
    });
    const strings = sharedStringsBomb(3, 40_000);
    expect(await hitOf(checkWorkbookBounds(strings.zip, DEFAULT_UPLOAD_LIMITS))).toEqual({
      limit: 'cellChars',
      value: 32_767,
      part: 'xl/sharedStrings.xml',
      sharedString: 0,
    });
  });

  it('tenant isolation (upload limit cell_chars): a cell is its own text, however it is split (rich text runs); text outside cells is bounded per run, not summed', async () => {
    const runs = Array.from({ length: 40 }, () => `<r><t>${'y'.repeat(1000)}</t></r>`).join('');
    const rich = workbookOf(validSheet(`${VALID_ROWS}<row r="3"><c r="C3" t="inlineStr"><is>${runs}</is></c></row>`));
    expect(await hitOf(checkWorkbookBounds(rich, DEFAULT_UPLOAD_LIMITS))).toEqual(
      expect.objectContaining({ limit: 'cellChars', line: 3, cell: 'C3' }),
    );
    // After the last cell: many short texts (a sheet's data validations) add up past the bound and pass.
    const validations = Array.from(
      { length: 40 },
      () => `<dataValidation><formula1>"${'z'.repeat(1000)}"</formula1></dataValidation>`,
    ).join('');
    const after = xmlPart(
      'xl/worksheets/sheet1.xml',
      `<worksheet><sheetData>${VALID_ROWS}</sheetData><dataValidations>${validations}</dataValidations></worksheet>`,
    );
    await expect(checkWorkbookBounds(workbookOf(after), DEFAULT_UPLOAD_LIMITS)).resolves.toBeUndefined();
  });

  it('tenant isolation (upload limit columns, rows): a row of too many cells and a sheet of too many rows are refused at the row', async () => {
    const wide = workbookOf(
      validSheet(
        `${VALID_ROWS}${inlineRow(
          3,
          Array.from({ length: 30 }, () => '1'),
        )}`,
      ),
    );
    expect(await hitOf(checkWorkbookBounds(wide, limits({ columns: 20 })))).toEqual({
      limit: 'columns',
      value: 20,
      part: 'xl/worksheets/sheet1.xml',
      sheet: 'Frete',
      line: 3,
      cell: 'U3',
    });
    const rows = repeatedPart(
      'xl/worksheets/sheet1.xml',
      '<worksheet><sheetData>',
      '<row><c t="n"><v>1</v></c></row>'.repeat(1000),
      100,
      '</sheetData></worksheet>',
    );
    expect(await hitOf(checkWorkbookBounds(workbookOf(rows), limits({ rows: 50_000, compressionRatio: 1e9 })))).toEqual({
      limit: 'rows',
      value: 50_000,
      part: 'xl/worksheets/sheet1.xml',
      sheet: 'Frete',
      line: 50_001,
    });
  });

  it('tenant isolation: a zip whose local headers hide a part the central directory does not list is not read (a streaming reader would see it)', async () => {
    const good = workbookOf(validSheet());
    const hidden = xmlPart('xl/worksheets/sheet1.xml', '<worksheet/>');
    // A part's local header and data slipped in after the last part, the end record moved to still find the directory.
    const name = Buffer.from(hidden.name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(hidden.data.length, 18);
    header.writeUInt16LE(name.length, 26);
    const extra = Buffer.concat([header, name, hidden.data]);
    const end = good.length - 22;
    const directoryStart = good.readUInt32LE(end + 16);
    const record = Buffer.from(good.subarray(end));
    record.writeUInt32LE(directoryStart + extra.length, 16);
    const smuggled = Buffer.concat([good.subarray(0, directoryStart), extra, good.subarray(directoryStart, end), record]);
    await expect(checkWorkbookBounds(smuggled, DEFAULT_UPLOAD_LIMITS)).rejects.toThrow('data before the central directory');
    await expect(checkWorkbookBounds(good, DEFAULT_UPLOAD_LIMITS)).resolves.toBeUndefined();
  });
});

describe("the workbook's thread", () => {
  const noRows = async () => {};

  it('tenant isolation (upload limit workbook_bytes): a body past the bound is refused as it arrives, before a thread starts', async () => {
    async function* body() {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(1000);
    }
    expect(
      await hitOf(readFreightXlsxIsolated(body(), noRows, { batchRows: 10, limits: limits({ workbookBytes: 5000 }) })),
    ).toEqual({
      limit: 'workbookBytes',
      value: 5000,
    });
  });

  it('tenant isolation (upload limit workbook_heap_mb): a thread that runs out of its heap is ended and the upload refused; the process goes on', async () => {
    const zip = workbookOf(validSheet());
    expect(await hitOf(readFreightXlsxIsolated([zip], noRows, { batchRows: 10, limits: limits({ workbookHeapMb: 2 }) }))).toEqual(
      {
        limit: 'workbookHeapMb',
        value: 2,
      },
    );
    // The same workbook with the default heap imports its row.
    const rows: FreightRow[] = [];
    const result = await readFreightXlsxIsolated(
      [workbookOf(validSheet())],
      async (batch) => {
        rows.push(...batch);
      },
      { batchRows: 10, limits: DEFAULT_UPLOAD_LIMITS },
    );
    expect(result.problemCount).toBe(0);
    expect(rows.map((row) => [row.zipStart, row.absoluteMoneyCost])).toEqual([[1_000_000, 12.9]]);
  });

  it('tenant isolation (upload limit workbook_seconds): a thread still reading at its deadline is ended and the upload refused', async () => {
    const zip = workbookOf(validSheet());
    expect(
      await hitOf(readFreightXlsxIsolated([zip], noRows, { batchRows: 10, limits: limits({ workbookSeconds: 0.001 }) })),
    ).toEqual({ limit: 'workbookSeconds', value: 0.001 });
  });
});

describe('the refusal', () => {
  it('tenant isolation: a bound of the whole answers 413, a cell or row 422, in the platform error shape naming the limit and where', () => {
    const cell = uploadLimitError({
      limit: 'cellChars',
      value: 32_767,
      part: 'xl/worksheets/sheet1.xml',
      sheet: 'Frete',
      line: 2,
      cell: 'C2',
    });
    expect(cell.statusCode).toBe(422);
    expect(cell.details).toEqual([
      {
        field: 'sheets.Frete.rows.2',
        location: 'body',
        message: 'sheet "Frete", row 2, cell C2: a cell is longer than 32,767 characters',
        slug: 'UPLOAD_LIMIT_CELL_CHARS',
      },
    ]);
    const ratio = uploadLimitError({ limit: 'compressionRatio', value: 100, part: 'xl/sharedStrings.xml' });
    expect(ratio.statusCode).toBe(413);
    expect(ratio.message).toContain('upload limit compression_ratio');
    expect(ratio.details[0]).toEqual(
      expect.objectContaining({ field: 'parts.xl/sharedStrings.xml', slug: 'UPLOAD_LIMIT_COMPRESSION_RATIO' }),
    );
    const line = uploadLimitError({ limit: 'cellChars', value: 32_767, line: 2, column: 'PolygonName' });
    expect(line.details[0]).toEqual(
      expect.objectContaining({
        field: 'lines.2.PolygonName',
        message: 'line 2, PolygonName: a cell is longer than 32,767 characters',
      }),
    );
  });
});
