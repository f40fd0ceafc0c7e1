import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_MONEY_AMOUNT } from '@feira/contract';
import Papa from 'papaparse';
import type { UploadLimits } from '../../core/config.js';
import { CsvBounds } from './csv-bounds.js';
import { DEFAULT_UPLOAD_LIMITS } from './upload-limits.js';

/**
 * The freight spreadsheet in the VTEX column layout (spec-notes Q8): header
 * names case-insensitive, `;` or `,` between cells, decimal comma or point,
 * UTF-8 with or without a BOM. Weights in grams, money in reais, MaxVolume in
 * cm³, TimeCost as `d.hh:mm:ss`, `hh:mm:ss` or whole days.
 */
export const FREIGHT_COLUMNS = [
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
] as const;
export type FreightColumn = (typeof FREIGHT_COLUMNS)[number];

/** Columns the header must name; the others may be left out (empty cells: 0, no limit, or empty text). */
const REQUIRED_FREIGHT_COLUMNS: readonly FreightColumn[] = [
  'ZipCodeStart',
  'ZipCodeEnd',
  'WeightStart',
  'WeightEnd',
  'AbsoluteMoneyCost',
  'TimeCost',
];

/**
 * The largest value of each numeric cell. Money cells are bounded by the
 * largest amount an order can hold (the contract's MAX_MONEY_AMOUNT, 10^11
 * reais = 10^13 cents, far below Number.MAX_SAFE_INTEGER cents), so a cell can
 * never be stored as Infinity or quoted as 1e20; the others by what a package
 * can be: 10^9 g (1,000 t) covers the "999999999" last band sellers use for
 * "anything heavier", 10^12 cm³ (10^6 m³) the same for MaxVolume, and a
 * percentage of the items' value is at most 100. TimeCost is at most 365 days.
 * Larger cells are refused with the line and column, like any other bad cell.
 */
export const FREIGHT_CELL_MAXIMUMS = {
  money: MAX_MONEY_AMOUNT,
  weightGrams: 1e9,
  volumeCm3: 1e12,
  percent: 100,
  deliveryDays: 365,
} as const;

const MAXIMUM_OF: Partial<Record<FreightColumn, { max: number; unit: string }>> = {
  WeightStart: { max: FREIGHT_CELL_MAXIMUMS.weightGrams, unit: 'g' },
  WeightEnd: { max: FREIGHT_CELL_MAXIMUMS.weightGrams, unit: 'g' },
  AbsoluteMoneyCost: { max: FREIGHT_CELL_MAXIMUMS.money, unit: 'reais' },
  MinimumValueInsurance: { max: FREIGHT_CELL_MAXIMUMS.money, unit: 'reais' },
  PriceByExtraWeight: { max: FREIGHT_CELL_MAXIMUMS.money, unit: 'reais per kg' },
  PricePercent: { max: FREIGHT_CELL_MAXIMUMS.percent, unit: '%' },
  MaxVolume: { max: FREIGHT_CELL_MAXIMUMS.volumeCm3, unit: 'cm³' },
};

/**
 * Columns in reais: like every amount of the records (spec-notes R1,
 * records/money.ts), at most 2 decimal places, refused rather than rounded,
 * so a quote never charges a price the seller did not write.
 */
const MONEY_COLUMNS: ReadonlySet<FreightColumn> = new Set(['AbsoluteMoneyCost', 'PriceByExtraWeight', 'MinimumValueInsurance']);

/** At most this many problems are listed in a 422 (the count of all of them is given too). */
export const MAX_LISTED_PROBLEMS = 100;

/** One parsed, valid row. */
export interface FreightRow {
  line: number;
  zipStart: number;
  zipEnd: number;
  weightStart: number;
  weightEnd: number;
  absoluteMoneyCost: number;
  pricePercent: number;
  priceByExtraWeight: number;
  maxVolume: number | null;
  timeCost: string;
  deliveryDays: number;
  minimumValueInsurance: number;
  polygonName: string;
  country: string;
}

/** What is wrong with one cell (or the header, line 1). */
export interface FreightRowProblem {
  /** The CSV line, or the workbook row (as the spreadsheet program numbers it). */
  line: number;
  column: string;
  message: string;
  /** A workbook's sheet name and the cell's reference (`F12`); absent for a CSV (D62). */
  sheet?: string;
  cell?: string;
}

export interface FreightCsvResult {
  rowCount: number;
  /** The first MAX_LISTED_PROBLEMS problems, in line order of discovery. */
  problems: FreightRowProblem[];
  problemCount: number;
  /** The distinct [WeightStart, WeightEnd] ranges of the valid rows. */
  weightBands: [number, number][];
  /** `comma` when a numeric cell was written with a decimal comma (`12,90`): the CSV download writes them so again (D62). */
  decimalMark: 'comma' | 'point';
}

const DECIMAL = /^-?\d+(?:[.,]\d+)?$/;
/** Brazilian thousands dots: `1.234,56`, or `1.234.567` (two groups at least, so `1.234` stays a decimal point). */
const THOUSANDS = /^-?\d{1,3}(?:(?:\.\d{3})+,\d+|(?:\.\d{3}){2,})$/;
/** A single quote before what a spreadsheet would take for a formula (OWASP CSV injection: = + - @ tab CR). */
const FORMULA_MARK = /^'[=+\-@\t\r]/;
const ZIPCODE = /^\d{8}$/;
const TIME_COST = /^(?:(\d+)\.)?(\d{1,2}):([0-5]\d):([0-5]\d(?:\.\d+)?)$/;
const WHOLE_DAYS = /^\d+$/;
const SECONDS_PER_DAY = 86_400;
/** OverlapCheck.run packs a row index below this with its zip start (< 10^8) in one double: 10^8 × 2^26 < 2^53. */
const ROW_INDEX_RANGE = 2 ** 26;
/** Rows the overlap sweep checks between two turns of the event loop. */
const SWEEP_ROWS_PER_TURN = 50_000;

/** spec-notes Q9: TimeCost in whole days, rounded up, at least 1; undefined when it is not one of the three forms. */
function timeCostDays(text: string): number | undefined {
  if (WHOLE_DAYS.test(text)) return Math.max(1, Number(text));
  const parts = TIME_COST.exec(text);
  if (!parts) return undefined;
  const [, days = '0', hours = '0', minutes = '0', seconds = '0'] = parts;
  const total = Number(days) * SECONDS_PER_DAY + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
  return Math.max(1, Math.ceil(total / SECONDS_PER_DAY));
}

/** The delimiter of a spreadsheet, from its header line: `;` when the header has one, else `,`. */
function delimiterOf(headerLine: string): ';' | ',' {
  return headerLine.includes(';') ? ';' : ',';
}

/**
 * Rows with overlapping zipcode × weight ranges (spec-notes Q8: a zipcode and
 * a weight must find at most one row of a table). A sweep over the rows in
 * zipcode order keeps the rows whose zip range covers the current start;
 * these are weight-disjoint when the table is valid, so the set stays as
 * small as the number of weight bands of a zip range.
 */
export class OverlapCheck {
  private zipStart = new Int32Array(1024);
  private zipEnd = new Int32Array(1024);
  private weightStart = new Float64Array(1024);
  private weightEnd = new Float64Array(1024);
  private lines = new Int32Array(1024);
  private size = 0;

  add(row: Pick<FreightRow, 'line' | 'zipStart' | 'zipEnd' | 'weightStart' | 'weightEnd'>): void {
    if (this.size === this.zipStart.length) this.grow();
    const i = this.size++;
    this.zipStart[i] = row.zipStart;
    this.zipEnd[i] = row.zipEnd;
    this.weightStart[i] = row.weightStart;
    this.weightEnd[i] = row.weightEnd;
    this.lines[i] = row.line;
  }

  private grow(): void {
    const next = this.zipStart.length * 2;
    const copy = <T extends Int32Array | Float64Array>(from: T, make: (n: number) => T) => {
      const to = make(next);
      to.set(from);
      return to;
    };
    this.zipStart = copy(this.zipStart, (n) => new Int32Array(n));
    this.zipEnd = copy(this.zipEnd, (n) => new Int32Array(n));
    this.weightStart = copy(this.weightStart, (n) => new Float64Array(n));
    this.weightEnd = copy(this.weightEnd, (n) => new Float64Array(n));
    this.lines = copy(this.lines, (n) => new Int32Array(n));
  }

  /**
   * Calls `report` for each row that overlaps an earlier one (in zip order),
   * naming both lines. A table of millions of rows takes a while, so the
   * event loop gets a turn every SWEEP_ROWS_PER_TURN rows, and the rows are
   * put in zip order by a native sort of packed numbers (zip start × 2^26 +
   * row index, exact in a double) instead of a comparator called per pair.
   */
  async run(report: (problem: FreightRowProblem) => boolean): Promise<void> {
    const n = this.size;
    let order: Float64Array | undefined;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = (this.zipStart[i - 1] as number) <= (this.zipStart[i] as number);
    if (!sorted) {
      order = new Float64Array(n);
      for (let i = 0; i < n; i++) order[i] = (this.zipStart[i] as number) * ROW_INDEX_RANGE + i;
      await nextTurn();
      order.sort();
    }
    let active: number[] = [];
    for (let k = 0; k < n; k++) {
      if (k > 0 && k % SWEEP_ROWS_PER_TURN === 0) await nextTurn();
      const i = order ? (order[k] as number) % ROW_INDEX_RANGE : k;
      const start = this.zipStart[i] as number;
      if (active.length > 0) active = active.filter((j) => (this.zipEnd[j] as number) >= start);
      const ws = this.weightStart[i] as number;
      const we = this.weightEnd[i] as number;
      const clash = active.find((j) => ws <= (this.weightEnd[j] as number) && (this.weightStart[j] as number) <= we);
      if (clash !== undefined) {
        const keepGoing = report({
          line: this.lines[i] as number,
          column: 'ZipCodeStart',
          message: `zipcode and weight ranges overlap those of line ${this.lines[clash]}`,
        });
        if (!keepGoing) return;
        continue;
      }
      active.push(i);
    }
  }
}

/** The digits after the decimal mark of a text `decimal` read: `12,905` → 3, `1.234,5` → 1, `1.234.567` → 0. */
function fractionDigits(text: string): number {
  if (DECIMAL.test(text)) {
    const mark = text.search(/[.,]/);
    return mark < 0 ? 0 : text.length - mark - 1;
  }
  const comma = text.indexOf(',');
  return comma < 0 ? 0 : text.length - comma - 1;
}

/** A decimal with a comma or a point, or with Brazilian thousands dots (D62); undefined when the text is not one. */
function decimal(text: string): number | undefined {
  if (DECIMAL.test(text)) return Number(text.replace(',', '.'));
  if (THOUSANDS.test(text)) return Number(text.replaceAll('.', '').replace(',', '.'));
  return undefined;
}

/** The source as text: UTF-8 decoded across chunk boundaries, the BOM dropped. */
async function* utf8Text(source: Readable | AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  for await (const chunk of source as AsyncIterable<Buffer | string>) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.length > 0) yield text;
  }
  const rest = decoder.end();
  if (rest.length > 0) yield rest;
}

/**
 * Reads a freight spreadsheet from a byte stream, a chunk of records at a time
 * (Papa Parse: five times csv-parse's rate on this layout, see
 * docs/dependencies.md), handing valid rows to `onRows` in batches of
 * `batchRows`, at most `writesInFlight` of them at once (1 by default); the
 * parser pauses at that limit, so a slow database holds the upload back
 * instead of filling memory. Nothing is kept
 * per row but the five numbers the overlap check needs. Problems do not stop
 * the read (the 422 lists them all, up to 100), but once there is one, no
 * further batch is handed over.
 */
export async function readFreightCsv(
  source: Readable | AsyncIterable<Buffer | string>,
  onRows: (rows: FreightRow[]) => Promise<void>,
  options: { batchRows?: number; writesInFlight?: number; limits?: Pick<UploadLimits, 'cellChars' | 'columns' | 'rows'> } = {},
): Promise<FreightCsvResult> {
  const limits = options.limits ?? DEFAULT_UPLOAD_LIMITS;
  const batchRows = options.batchRows ?? 2000;
  const writesInFlight = Math.max(1, options.writesInFlight ?? 1);
  const problems: FreightRowProblem[] = [];
  let problemCount = 0;
  const report = (problem: FreightRowProblem) => {
    problemCount += 1;
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push(problem);
    return true;
  };

  // The delimiter comes from the header line, so the text up to the first line break is read first.
  const texts = utf8Text(source);
  const head: string[] = [];
  let headText = '';
  for (;;) {
    const next = await texts.next();
    if (next.done) break;
    head.push(next.value);
    headText += next.value;
    // A header with no line break in sight is not read on: the bounds below refuse it by its cell.
    if (/[\r\n]/.test(headText) || headText.length > limits.cellChars * 2) break;
  }
  const delimiter = delimiterOf(headText.split(/[\r\n]/)[0] ?? '');
  const bounds = new CsvBounds(limits, delimiter);
  const input = Readable.from(
    (async function* () {
      for (const text of head) {
        bounds.scan(text);
        yield text;
      }
      for await (const text of texts) {
        bounds.scan(text);
        yield text;
      }
    })(),
    { objectMode: false, encoding: 'utf8' },
  );

  let columns: Map<FreightColumn, number> | undefined;
  let reader: RowReader | undefined;
  let rowCount = 0;
  let batch: FreightRow[] = [];
  const overlaps = new OverlapCheck();
  const bands = new Map<string, [number, number]>();
  let lastBand: [number, number] = [Number.NaN, Number.NaN];
  // Line numbers are counted here: a record spans one line plus the line
  // breaks inside its quoted cells; an empty line comes as [''].
  let nextLine = 1;

  /** Reads one chunk's records; false once the header was refused (nothing after it is read). */
  const readRecords = (records: string[][], errors: Papa.ParseError[]): boolean => {
    const errorAt = new Map<number, Papa.ParseError>();
    for (const error of errors) if (error.row !== undefined && !errorAt.has(error.row)) errorAt.set(error.row, error);
    for (let r = 0; r < records.length; r++) {
      const record = records[r] as string[];
      const line = nextLine;
      nextLine += 1;
      for (const cell of record) {
        if (cell.includes('\n')) nextLine += cell.split('\n').length - 1;
      }
      const error = errorAt.get(r);
      if (error) {
        report({ line, column: '(line)', message: `not readable as CSV: ${error.message}` });
        continue;
      }
      if (record.length === 1 && record[0] === '') continue;
      if (!columns) {
        columns = headerColumns(record, line, report);
        if (!columns) return false;
        reader = new RowReader(columns, report);
        continue;
      }
      const row = (reader as RowReader).read(record, line);
      if (!row) continue;
      rowCount += 1;
      overlaps.add(row);
      if (row.weightStart !== lastBand[0] || row.weightEnd !== lastBand[1]) {
        const bandKey = `${row.weightStart}/${row.weightEnd}`;
        if (!bands.has(bandKey)) bands.set(bandKey, [row.weightStart, row.weightEnd]);
        lastBand = [row.weightStart, row.weightEnd];
      }
      if (problemCount === 0) batch.push(row);
    }
    return true;
  };

  // Up to `writesInFlight` batches are written while parsing goes on (a
  // PostgreSQL pool inserts them side by side); at the limit the parser waits.
  const inFlight = new Set<Promise<void>>();
  let writeError: { error: unknown } | undefined;
  const startWrite = (rows: FreightRow[]) => {
    const write: Promise<void> = onRows(rows).then(
      () => {
        inFlight.delete(write);
      },
      (error: unknown) => {
        inFlight.delete(write);
        writeError ??= { error };
      },
    );
    inFlight.add(write);
  };

  const parsed = await new Promise<{ error: unknown } | undefined>((resolve) => {
    let ended = false;
    const end = (outcome: { error: unknown } | undefined) => {
      if (ended) return;
      ended = true;
      input.destroy();
      resolve(outcome);
    };
    Papa.parse<string[]>(input, {
      delimiter,
      chunk(results, parser) {
        if (ended) return;
        let goOn: boolean;
        try {
          goOn = readRecords(results.data, results.errors);
        } catch (error) {
          end({ error });
          parser.abort();
          return;
        }
        if (!goOn) {
          // A refused header: stop reading the body.
          parser.abort();
          return;
        }
        if (problemCount > 0) batch = [];
        const takeBatch = () => {
          const rows = batch.slice(0, batchRows);
          batch = batch.slice(batchRows);
          return rows;
        };
        while (batch.length >= batchRows && inFlight.size < writesInFlight) startWrite(takeBatch());
        if (writeError) {
          end(writeError);
          parser.abort();
          return;
        }
        if (batch.length < batchRows && inFlight.size < writesInFlight) return;
        parser.pause();
        (async () => {
          for (;;) {
            while (inFlight.size >= writesInFlight) await Promise.race(inFlight);
            if (writeError || batch.length < batchRows) return;
            startWrite(takeBatch());
          }
        })().then(() => {
          if (!writeError) return parser.resume();
          end(writeError);
          parser.abort();
        });
      },
      complete() {
        end(undefined);
      },
      error(error: Error) {
        end({ error });
      },
    });
  });
  // Every write has settled before the caller may drop the version (no row lands after that).
  await Promise.all(inFlight);
  const failure = parsed ?? writeError;
  if (failure) throw failure.error;

  if (!columns && problemCount === 0) report({ line: 1, column: '(header)', message: 'the spreadsheet is empty' });
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

/** The header's columns by name, or undefined (each missing required column reported). */
export function headerColumns(
  record: string[],
  line: number,
  report: (problem: FreightRowProblem) => boolean,
): Map<FreightColumn, number> | undefined {
  const byLowerName = new Map(FREIGHT_COLUMNS.map((name) => [name.toLowerCase(), name]));
  const columns = new Map<FreightColumn, number>();
  record.forEach((cell, index) => {
    const name = byLowerName.get(
      cell
        .replace(/^\uFEFF/, '')
        .trim()
        .toLowerCase(),
    );
    if (name && !columns.has(name)) columns.set(name, index);
  });
  const missing = REQUIRED_FREIGHT_COLUMNS.filter((name) => !columns.has(name));
  for (const name of missing) report({ line, column: name, message: 'column missing from the header' });
  return missing.length === 0 ? columns : undefined;
}

/**
 * The row being read: one object for the whole spreadsheet, refilled per
 * record, so reading a row allocates nothing but the row itself (the parse
 * profile showed the per-row closures and garbage collection).
 */
export class RowReader {
  record: string[] = [];
  line = 0;
  ok = true;
  /** Whether a numeric cell was written with a decimal comma. */
  sawDecimalComma = false;
  private readonly index: Partial<Record<FreightColumn, number>>;

  constructor(
    columns: Map<FreightColumn, number>,
    private readonly report: (problem: FreightRowProblem) => boolean,
  ) {
    this.index = Object.fromEntries(columns);
  }

  problem(column: FreightColumn, message: string): void {
    this.ok = false;
    this.report({ line: this.line, column, message });
  }

  text(column: FreightColumn): string {
    const at = this.index[column];
    return at === undefined ? '' : (this.record[at] ?? '').trim();
  }

  zip(column: FreightColumn): number {
    const value = this.text(column);
    if (!ZIPCODE.test(value)) {
      this.problem(column, value === '' ? 'missing value' : 'must be a zipcode of exactly 8 digits');
      return 0;
    }
    return Number(value);
  }

  /** A required number, or `whenEmpty` for an empty optional cell. */
  number(column: FreightColumn, whenEmpty?: number | null): number | null {
    const value = this.text(column);
    if (value === '') {
      if (whenEmpty !== undefined) return whenEmpty;
      this.problem(column, 'missing value');
      return 0;
    }
    const parsed = decimal(value);
    if (parsed !== undefined && !this.sawDecimalComma && value.includes(',')) this.sawDecimalComma = true;
    if (parsed === undefined) {
      this.problem(column, `"${value.slice(0, 40)}" is not a number`);
      return 0;
    }
    if (parsed < 0) {
      this.problem(column, 'must not be negative');
      return 0;
    }
    if (MONEY_COLUMNS.has(column) && fractionDigits(value) > 2) {
      this.problem(column, 'must be an amount with at most 2 decimal places');
      return 0;
    }
    const bound = MAXIMUM_OF[column];
    // `!(≤)` also catches Infinity, what a cell of hundreds of digits parses to.
    if (bound && !(parsed <= bound.max)) {
      this.problem(column, `must be at most ${bound.max.toLocaleString('en')} ${bound.unit}`);
      return 0;
    }
    return parsed;
  }

  plain(column: FreightColumn): string {
    let value = this.text(column);
    // A download marks text that a spreadsheet would run as a formula with a leading quote (freight-routes.ts); it is not part of the text.
    if (FORMULA_MARK.test(value)) value = value.slice(1);
    if (value.includes('\u0000')) this.problem(column, 'must not contain U+0000');
    return value.slice(0, 200);
  }

  read(record: string[], line: number): FreightRow | undefined {
    this.record = record;
    this.line = line;
    this.ok = true;
    const zipStart = this.zip('ZipCodeStart');
    const zipEnd = this.zip('ZipCodeEnd');
    const weightStart = this.number('WeightStart') as number;
    const weightEnd = this.number('WeightEnd') as number;
    const absoluteMoneyCost = this.number('AbsoluteMoneyCost') as number;
    const pricePercent = this.number('PricePercent', 0) as number;
    const priceByExtraWeight = this.number('PriceByExtraWeight', 0) as number;
    const maxVolume = this.number('MaxVolume', null);
    const minimumValueInsurance = this.number('MinimumValueInsurance', 0) as number;
    const timeCost = this.text('TimeCost');
    const deliveryDays = timeCost === '' ? undefined : timeCostDays(timeCost);
    if (timeCost === '') this.problem('TimeCost', 'missing value');
    else if (deliveryDays === undefined) this.problem('TimeCost', 'must be d.hh:mm:ss, hh:mm:ss or whole days');
    else if (!(deliveryDays <= FREIGHT_CELL_MAXIMUMS.deliveryDays)) {
      this.problem('TimeCost', `must be at most ${FREIGHT_CELL_MAXIMUMS.deliveryDays} days`);
    }
    const polygonName = this.plain('PolygonName');
    const country = this.plain('Country');
    if (this.ok && zipStart > zipEnd) this.problem('ZipCodeStart', 'ZipCodeStart is greater than ZipCodeEnd');
    if (this.ok && weightStart > weightEnd) this.problem('WeightStart', 'WeightStart is greater than WeightEnd');
    if (!this.ok) return undefined;
    return {
      line,
      zipStart,
      zipEnd,
      weightStart,
      weightEnd,
      absoluteMoneyCost,
      pricePercent,
      priceByExtraWeight,
      maxVolume,
      timeCost,
      deliveryDays: deliveryDays as number,
      minimumValueInsurance,
      polygonName,
      country,
    };
  }
}
