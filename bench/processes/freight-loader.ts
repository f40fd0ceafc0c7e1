// The freight scenarios' worker (spec-notes Q8): `import` streams a VTEX
// spreadsheet (CSV, or an .xlsx workbook with `format: 'xlsx'`) through the platform's importFreightTable (parse, validate,
// insert, switch); `raw` inserts the same rows, already parsed, with nothing
// but the driver (the baseline: what writing them costs with no parsing and
// no validation), into the same table with the same indexes: 2,000-row
// statements in one transaction on SQLite, one COPY on PostgreSQL.
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import * as platform from '@feira/platform';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { childOptions, serveChild } from '../lib/child-protocol.js';

interface Options {
  databaseUrl: string;
  searchPath?: string;
}

export interface FreightLoadResult {
  rows: number;
  elapsedMs: number;
  cpuMs: number;
}

const options = childOptions<Options>();

async function measured(work: () => Promise<number>): Promise<FreightLoadResult> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const rows = await work();
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { rows, elapsedMs, cpuMs: (used.user + used.system) / 1000 };
}

const COLUMNS =
  'version_key, line_no, zip_start, zip_end, weight_start, weight_end, absolute_money_cost, price_percent, price_by_extra_weight, max_volume, time_cost, delivery_days, minimum_value_insurance, polygon_name, country';

function values(row: platform.FreightRow): unknown[] {
  return [
    999_999,
    row.line,
    row.zipStart,
    row.zipEnd,
    row.weightStart,
    row.weightEnd,
    row.absoluteMoneyCost,
    row.pricePercent,
    row.priceByExtraWeight,
    row.maxVolume,
    row.timeCost,
    row.deliveryDays,
    row.minimumValueInsurance,
    row.polygonName,
    row.country,
  ];
}

/** The file's rows, parsed (outside the measured part of the baseline). */
async function parsedRows(file: string): Promise<platform.FreightRow[]> {
  const rows: platform.FreightRow[] = [];
  await platform.readFreightCsv(createReadStream(file), async (batch) => {
    rows.push(...batch);
  });
  return rows;
}

export interface LookupResult {
  /** Per table: microseconds per lookup, p50 and p99, over `rounds` alternating rounds. */
  one: { p50Us: number; p99Us: number };
  many: { p50Us: number; p99Us: number };
  lookups: number;
}

function percentiles(samples: number[]): { p50Us: number; p99Us: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { p50Us: Math.round(at(0.5) * 10) / 10, p99Us: Math.round(at(0.99) * 10) / 10 };
}

serveChild(
  {},
  {
    /**
     * The lookup alone (freightOptions, what a quote runs after loading the
     * cart): a table of one row against the imported one, zipcodes spread over
     * the whole range, alternating rounds so a noisy moment hits both.
     */
    async lookup(args) {
      const { oneRowFile, bigTableId, lookups } = args as { oneRowFile: string; bigTableId: string; lookups: number };
      const database = await platform.openDatabase(
        options.databaseUrl,
        options.searchPath ? { searchPath: options.searchPath } : {},
      );
      try {
        const one = await platform.importFreightTable(
          { database, clock: platform.systemClock },
          { owner: 'bench-one', tableId: 'one', name: 'one', distributionCenterId: null, cubicWeightFactor: null },
          createReadStream(oneRowFile),
        );
        if (!one.ok) throw new Error('the 1-row table was refused');
        const tables = {
          one: await platform.freightTablesOf(database, ['bench-one']),
          many: await platform.freightTablesOf(database, ['bench']),
        };
        if (!tables.many.some((t) => t.table_id === bigTableId)) throw new Error('the big table is missing');
        const lines = [
          { product: { price_cents: 4990, depth_cm: 20, height_cm: 10, width_cm: 15, weight_g: 3500 }, quantity: 1 },
        ];
        const samples = { one: [] as number[], many: [] as number[] };
        const round = 500;
        for (let done = 0; done < lookups; done += round) {
          for (const which of ['one', 'many'] as const) {
            for (let i = 0; i < round; i++) {
              const zipcode = String(Math.floor(((done + i) * 7919) % 100_000_000)).padStart(8, '0');
              const started = performance.now();
              const found = await platform.freightOptions(database, tables[which], {
                zipcode,
                lines,
                source: () => 'freight_table',
              });
              samples[which].push((performance.now() - started) * 1000);
              if (found.length !== 1) throw new Error(`no option for ${zipcode} on the ${which} table`);
            }
          }
        }
        return { one: percentiles(samples.one), many: percentiles(samples.many), lookups } satisfies LookupResult;
      } finally {
        await database.close();
      }
    },

    async import(args) {
      const { file, tableId, format } = args as { file: string; tableId: string; format?: 'csv' | 'xlsx' };
      const database = await platform.openDatabase(
        options.databaseUrl,
        options.searchPath ? { searchPath: options.searchPath } : {},
      );
      try {
        await platform.migrateToLatest(database);
        return await measured(async () => {
          const result = await platform.importFreightTable(
            { database, clock: platform.systemClock },
            { owner: 'bench', tableId, name: tableId, distributionCenterId: null, cubicWeightFactor: null, format },
            createReadStream(file),
          );
          if (!result.ok) throw new Error(`import refused: ${JSON.stringify(result.csv.problems.slice(0, 3))}`);
          return result.table.row_count;
        });
      } finally {
        await database.close();
      }
    },

    /** The same rows, parsed beforehand: SQLite 2,000-row statements in one transaction; PostgreSQL one COPY. */
    async raw(args) {
      const { file } = args as { file: string };
      const rows = await parsedRows(file);
      const database = await platform.openDatabase(
        options.databaseUrl,
        options.searchPath ? { searchPath: options.searchPath } : {},
      );
      await platform.migrateToLatest(database);
      await database.close();
      const batch = 2000;
      if (options.databaseUrl.startsWith('sqlite:')) {
        const sqlite = new SqliteDatabase(options.databaseUrl.slice('sqlite:'.length));
        sqlite.pragma('journal_mode = WAL');
        sqlite.pragma('synchronous = NORMAL');
        const statements = new Map<number, SqliteDatabase.Statement>();
        const statement = (n: number) => {
          let s = statements.get(n);
          if (!s) {
            const one = `(${Array.from({ length: 15 }, () => '?').join(', ')})`;
            s = sqlite.prepare(`insert into freight_rows (${COLUMNS}) values ${Array.from({ length: n }, () => one).join(', ')}`);
            statements.set(n, s);
          }
          return s;
        };
        try {
          return await measured(async () => {
            sqlite.transaction(() => {
              for (let at = 0; at < rows.length; at += batch) {
                const slice = rows.slice(at, at + batch);
                statement(slice.length).run(slice.flatMap(values));
              }
            })();
            return rows.length;
          });
        } finally {
          sqlite.close();
        }
      }
      const client = new pg.Client({
        connectionString: options.databaseUrl,
        ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
      });
      await client.connect();
      try {
        // COPY FROM STDIN, the fastest way in: what the platform's import uses too.
        const line = (row: platform.FreightRow) =>
          `${values(row)
            .map((v) =>
              v === null
                ? '\\N'
                : String(v).replace(/[\\\t\n\r]/g, (c) => `\\${c === '\t' ? 't' : c === '\n' ? 'n' : c === '\r' ? 'r' : '\\'}`),
            )
            .join('\t')}\n`;
        return await measured(async () => {
          const stream = client.query(copyFrom(`copy freight_rows (${COLUMNS}) from stdin`));
          for (let at = 0; at < rows.length; at += batch) {
            let text = '';
            for (const row of rows.slice(at, at + batch)) text += line(row);
            if (!stream.write(text)) await once(stream, 'drain');
          }
          stream.end();
          await finished(stream);
          return rows.length;
        });
      } finally {
        await client.end();
      }
    },
  },
);
