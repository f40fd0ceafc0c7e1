import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import {
  type FreightColumn,
  type FreightCsvResult,
  type FreightRow,
  type FreightRowProblem,
  headerColumns,
  MAX_LISTED_PROBLEMS,
  OverlapCheck,
  RowReader,
} from './freight-csv.js';

/** The media type of an `.xlsx` workbook (Office Open XML spreadsheet). */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** `0` → `A`, `25` → `Z`, `26` → `AA`: the spreadsheet's column letters. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let letters = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

const ZIP_COLUMNS: readonly FreightColumn[] = ['ZipCodeStart', 'ZipCodeEnd'];

/**
 * The most rows a workbook may hold: about what the CSV's byte limit allows.
 * A workbook's XML is compressed, so its byte limit alone would let a small
 * upload expand into an import of hundreds of millions of rows.
 */
const FREIGHT_XLSX_MAX_ROWS = 4_000_000;

/**
 * A cell's value as the CSV reader would have read its text: a number in
 * JavaScript's form (decimal point), a text as typed (`12,90`, `1.234,56`:
 * numbers stored as text), a formula's cached result, rich text joined. A
 * zipcode the program stored as a number lost its leading zero (`1310100`):
 * it gets it back.
 */
type CellValue = ExcelJS.CellValue;
type Row = ExcelJS.Row;

function cellText(value: CellValue, zipcode: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (zipcode && Number.isInteger(value) && value >= 0 && value < 1e8) return String(value).padStart(8, '0');
    // A spreadsheet program keeps and shows 15 significant digits; a formula's 0.1 + 0.2 is stored as
    // 0.30000000000000004 but is 0.3 to the seller, so money's 2 places (spec-notes R1) are judged on that.
    return String(Number(value.toPrecision(15)));
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    if ('richText' in value && Array.isArray(value.richText)) return value.richText.map((part) => part.text).join('');
    if ('result' in value) return cellText((value as { result?: CellValue }).result ?? null, zipcode);
    if ('text' in value && typeof value.text === 'string') return value.text;
    if ('error' in value) return String((value as { error: unknown }).error);
  }
  return '';
}

/**
 * Reads a freight workbook (D62, D96): the first sheet, streamed with exceljs's
 * WorkbookReader (shared strings cached, styles and hyperlinks skipped), the
 * same columns, validation, overlap check and batches as the CSV
 * (freight-csv.ts `readFreightCsv`), each problem naming the sheet, the row
 * and the cell. Valid rows go to `onRows` in batches of `batchRows`, one write
 * at a time; once a problem is found no further batch is handed over.
 * It runs on the workbook's own thread, after the bounds are checked
 * (freight-xlsx-isolated.ts); nothing but tests calls it on the main thread.
 */
export async function readFreightXlsx(
  source: Readable | AsyncIterable<Buffer>,
  onRows: (rows: FreightRow[]) => Promise<void>,
  options: { batchRows?: number; maxRows?: number } = {},
): Promise<FreightCsvResult> {
  const batchRows = options.batchRows ?? 2000;
  const maxRows = options.maxRows ?? FREIGHT_XLSX_MAX_ROWS;
  const problems: FreightRowProblem[] = [];
  let problemCount = 0;
  let sheet = '';
  let columns: Map<FreightColumn, number> | undefined;
  let letters: string[] = [];
  const report = (problem: FreightRowProblem) => {
    problemCount += 1;
    if (problems.length < MAX_LISTED_PROBLEMS) {
      const index = columns?.get(problem.column as FreightColumn);
      const cell = index === undefined ? undefined : `${letters[index] ?? columnLetter(index)}${problem.line}`;
      problems.push({ ...problem, sheet, ...(cell ? { cell } : {}) });
    }
    return true;
  };

  let reader: RowReader | undefined;
  let zipIndexes = new Set<number>();
  let rowCount = 0;
  let batch: FreightRow[] = [];
  const overlaps = new OverlapCheck();
  const bands = new Map<string, [number, number]>();
  const stream = source instanceof Readable ? source : Readable.from(source);
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(stream, {
    entries: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
  });
  try {
    for await (const worksheet of workbook) {
      sheet = (worksheet as unknown as { name: string }).name;
      for await (const row of worksheet as AsyncIterable<Row>) {
        const values = row.values as CellValue[];
        const line = row.number;
        if (line > maxRows + 1) {
          report({
            line,
            column: '(sheet)',
            message: `the sheet has more than ${maxRows.toLocaleString('en')} rows; split it into several tables`,
          });
          break;
        }
        if (!columns) {
          const header = values.slice(1).map((value) => cellText(value, false));
          columns = headerColumns(header, line, report);
          if (!columns) break;
          letters = header.map((_, i) => columnLetter(i));
          zipIndexes = new Set(ZIP_COLUMNS.map((name) => columns?.get(name) as number));
          reader = new RowReader(columns, report);
          continue;
        }
        // row.values is 1-based and sparse (an empty cell is a hole).
        const record: string[] = [];
        let empty = true;
        for (let i = 1; i < values.length; i++) {
          const text = cellText(values[i] ?? null, zipIndexes.has(i - 1));
          if (text !== '') empty = false;
          record.push(text);
        }
        if (empty) continue;
        const parsed = (reader as RowReader).read(record, line);
        if (!parsed) continue;
        rowCount += 1;
        overlaps.add(parsed);
        const bandKey = `${parsed.weightStart}/${parsed.weightEnd}`;
        if (!bands.has(bandKey)) bands.set(bandKey, [parsed.weightStart, parsed.weightEnd]);
        if (problemCount > 0) {
          batch = [];
          continue;
        }
        batch.push(parsed);
        if (batch.length >= batchRows) {
          const rows = batch;
          batch = [];
          await onRows(rows);
        }
      }
      // The first sheet only: the others (notes, a price list) are not read.
      break;
    }
  } catch (error) {
    if (problemCount === 0 && !columns) {
      report({
        line: 1,
        column: '(workbook)',
        message: `not readable as an .xlsx workbook: ${String((error as Error).message ?? error).slice(0, 200)}`,
      });
    } else throw error;
  } finally {
    stream.destroy();
  }
  if (!columns && problemCount === 0) report({ line: 1, column: '(header)', message: 'the first sheet is empty' });
  if (problemCount === 0) await overlaps.run(report);
  if (problemCount === 0 && batch.length > 0) await onRows(batch);
  return {
    rowCount,
    problems,
    problemCount,
    weightBands: [...bands.values()],
    decimalMark: reader?.sawDecimalComma ? 'comma' : 'point',
  };
}
