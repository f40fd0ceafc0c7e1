import { describe, expect, it } from 'vitest';
import { FREIGHT_CELL_MAXIMUMS, type FreightRow, readFreightCsv } from './freight-csv.js';

const HEADER =
  'ZipCodeStart;ZipCodeEnd;PolygonName;WeightStart;WeightEnd;AbsoluteMoneyCost;PricePercent;PriceByExtraWeight;MaxVolume;TimeCost;Country;MinimumValueInsurance';

/** Reads `chunks` as a byte stream would arrive (each chunk a separate read), collecting every batch. */
async function read(chunks: (string | Buffer)[], batchRows = 2) {
  const batches: FreightRow[][] = [];
  async function* source() {
    for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  }
  const result = await readFreightCsv(
    source(),
    async (rows) => {
      batches.push(rows);
    },
    { batchRows },
  );
  return { result, rows: batches.flat(), batches };
}

describe('spec-notes Q8: the freight spreadsheet reader', () => {
  it('spec-notes Q8: `;` with decimal commas and `,` with decimal points read to the same rows', async () => {
    const semicolon = await read([`${HEADER}\n01000000;01999999;Centro;0;1000;10,50;1,5;2;;2;BRA;5,00\n`]);
    const comma = await read([`${HEADER.replaceAll(';', ',')}\n01000000,01999999,Centro,0,1000,10.50,1.5,2,,2,BRA,5.00\n`]);
    expect(semicolon.result.problemCount).toBe(0);
    expect(comma.rows).toEqual(semicolon.rows);
    expect(semicolon.rows[0]).toEqual(
      expect.objectContaining({ line: 2, zipStart: 1_000_000, absoluteMoneyCost: 10.5, pricePercent: 1.5, maxVolume: null }),
    );
  });

  it('spec-notes Q8: a BOM, CRLF line ends, blank lines and spaces around cells change nothing', async () => {
    const { result, rows } = await read([`\uFEFF${HEADER}\r\n\r\n 01000000 ; 01999999 ;;0;1000; 10 ;0;0;;2;BRA;0\r\n`]);
    expect(result.problemCount).toBe(0);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(expect.objectContaining({ line: 3, zipStart: 1_000_000, zipEnd: 1_999_999, absoluteMoneyCost: 10 }));
  });

  it('spec-notes Q8: a quoted cell may hold the delimiter and a line break; later lines keep their numbers', async () => {
    const quoted = await read([`${HEADER}\n01000000;01999999;"Zona; ""norte""\ne centro";0;1000;10;0;0;;2;BRA;0\n`]);
    expect(quoted.rows[0]?.polygonName).toBe('Zona; "norte"\ne centro');
    const { result, rows } = await read([
      `${HEADER}\n01000000;01999999;"Zona; ""norte""\ne centro";0;1000;10;0;0;;2;BRA;0\n02000000;02999999;;0;1000;x;0;0;;2;BRA;0\n`,
    ]);
    expect(rows).toEqual([]); // a spreadsheet with a problem hands nothing over
    expect(result.problems).toEqual([expect.objectContaining({ line: 4, column: 'AbsoluteMoneyCost' })]);
    expect(result.rowCount).toBe(1);
  });

  it('spec-notes Q8: a character split between two reads arrives whole', async () => {
    const text = Buffer.from(`${HEADER}\n01000000;01999999;São Paulo;0;1000;10;0;0;;2;BRA;0\n`);
    const at = text.indexOf(Buffer.from('ã')) + 1; // inside the two bytes of "ã"
    const { rows } = await read([text.subarray(0, at), text.subarray(at)]);
    expect(rows[0]?.polygonName).toBe('São Paulo');
  });

  it('spec-notes Q8: rows are handed over in batches of the given size, in line order', async () => {
    const lines = Array.from(
      { length: 5 },
      (_, i) => `${String(i * 100).padStart(8, '0')};${String(i * 100 + 99).padStart(8, '0')};;0;1000;10;0;0;;2;BRA;0`,
    );
    const { batches, result } = await read([`${HEADER}\n${lines.join('\n')}\n`], 2);
    expect(result.rowCount).toBe(5);
    expect(batches.map((b) => b.map((r) => r.line))).toEqual([[2, 3], [4, 5], [6]]);
  });

  it('spec-notes Q8: an unterminated quote is a problem naming its line, and no row is handed over', async () => {
    const { result, rows } = await read([`${HEADER}\n01000000;01999999;"Centro;0;1000;10;0;0;;2;BRA;0\n`]);
    expect(rows).toEqual([]);
    expect(result.problemCount).toBeGreaterThan(0);
    expect(result.problems[0]).toEqual(expect.objectContaining({ line: 2, column: '(line)' }));
  });

  it('spec-notes Q8: a header without a required column stops the read at line 1', async () => {
    const { result, rows } = await read(['ZipCodeStart;ZipCodeEnd\n01000000;01999999\n']);
    expect(rows).toEqual([]);
    expect(result.problems.map((p) => `${p.line}.${p.column}`)).toEqual([
      '1.WeightStart',
      '1.WeightEnd',
      '1.AbsoluteMoneyCost',
      '1.TimeCost',
    ]);
  });

  it('spec-notes Q8: an empty body is a problem', async () => {
    const { result } = await read([]);
    expect(result.problems).toEqual([expect.objectContaining({ line: 1, message: 'the spreadsheet is empty' })]);
  });
});

describe('spec-notes Q8: every numeric cell is bounded by what an order can hold', () => {
  // One row with `column` set to `cell`, every other cell valid.
  const withCell = (column: string, cell: string) => {
    const names = HEADER.split(';');
    const cells = '01000000;01999999;Centro;0;1000;10;0;0;;2;BRA;0'.split(';');
    cells[names.indexOf(column)] = cell;
    return read([`${HEADER}\n${cells.join(';')}\n`]);
  };

  it.each([
    ['AbsoluteMoneyCost', '9'.repeat(401), 'must be at most 100,000,000,000 reais'],
    ['AbsoluteMoneyCost', '99999999999999999999', 'must be at most 100,000,000,000 reais'],
    ['AbsoluteMoneyCost', '100000000000,01', 'must be at most 100,000,000,000 reais'],
    ['MinimumValueInsurance', '1'.padEnd(400, '0'), 'must be at most 100,000,000,000 reais'],
    ['PriceByExtraWeight', '100000000001', 'must be at most 100,000,000,000 reais per kg'],
    ['PricePercent', '100,5', 'must be at most 100 %'],
    ['WeightStart', '1000000001', 'must be at most 1,000,000,000 g'],
    ['WeightEnd', '1'.padEnd(401, '0'), 'must be at most 1,000,000,000 g'],
    ['MaxVolume', '1000000000001', 'must be at most 1,000,000,000,000 cm³'],
    ['TimeCost', '366', 'must be at most 365 days'],
    ['TimeCost', '365.00:00:01', 'must be at most 365 days'],
    ['TimeCost', '9'.repeat(401), 'must be at most 365 days'],
  ])('spec-notes Q8: %s of %s is refused naming its line and column', async (column, cell, message) => {
    const { result, rows } = await withCell(column, cell);
    expect(rows).toEqual([]);
    expect(result.problems).toEqual([{ line: 2, column, message }]);
  });

  it('spec-notes Q8: every cell at its maximum is read as written', async () => {
    const max = FREIGHT_CELL_MAXIMUMS;
    const { result, rows } = await read([
      `${HEADER}\n01000000;01999999;;${max.weightGrams};${max.weightGrams};${max.money};${max.percent};${max.money};${max.volumeCm3};${max.deliveryDays};BRA;${max.money}\n`,
    ]);
    expect(result.problemCount).toBe(0);
    expect(rows[0]).toEqual(
      expect.objectContaining({
        weightStart: 1e9,
        weightEnd: 1e9,
        absoluteMoneyCost: 1e11,
        pricePercent: 100,
        priceByExtraWeight: 1e11,
        maxVolume: 1e12,
        deliveryDays: 365,
        minimumValueInsurance: 1e11,
      }),
    );
  });
});

describe('spec-notes Q8: a text cell marked against formulas', () => {
  it("spec-notes Q8: a leading quote before = + - @ or a tab is taken off (a download's mark); any other stays", async () => {
    const { rows } = await read([
      `${HEADER}\n01000000;01999999;'=SUM(A1);0;1000;10;0;0;;2;'@BRA;0\n02000000;02999999;'Sul;0;1000;10;0;0;;2;'+1;0\n`,
    ]);
    expect(rows.map((r) => [r.polygonName, r.country])).toEqual([
      ['=SUM(A1)', '@BRA'],
      ["'Sul", '+1'],
    ]);
  });
});

describe('spec-notes Q8: writes while parsing', () => {
  const lines = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => `${String(i * 100).padStart(8, '0')};${String(i * 100 + 99).padStart(8, '0')};;0;1000;10;0;0;;2;BRA;0`,
    );
  async function* once(text: string) {
    yield Buffer.from(text);
  }

  it('spec-notes Q8: with several writes in flight every row is handed over once, and never more at once than allowed', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    const releases: (() => void)[] = [];
    const result = await readFreightCsv(
      once(`${HEADER}\n${lines(50).join('\n')}\n`),
      async (rows) => {
        running += 1;
        most = Math.max(most, running);
        // Each write finishes only once a later write (or the end) lets it: writes really overlap.
        await new Promise<void>((resolve) => {
          releases.push(resolve);
          if (releases.length >= 2) releases.shift()?.();
          queueMicrotask(() => setImmediate(() => releases.shift()?.()));
        });
        seen.push(...rows.map((r) => r.line));
        running -= 1;
      },
      { batchRows: 4, writesInFlight: 3 },
    );
    expect(result.rowCount).toBe(50);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('spec-notes Q8: a failed write ends the read with its error, and only after every other write settled', async () => {
    let settled = 0;
    let calls = 0;
    const reading = readFreightCsv(
      once(`${HEADER}\n${lines(40).join('\n')}\n`),
      async () => {
        calls += 1;
        const call = calls;
        await new Promise((resolve) => setImmediate(resolve));
        settled += 1;
        if (call === 2) throw new Error('disk full');
      },
      { batchRows: 4, writesInFlight: 3 },
    );
    await expect(reading).rejects.toThrow('disk full');
    expect(settled).toBe(calls);
    expect(calls).toBeLessThan(10);
  });
});
