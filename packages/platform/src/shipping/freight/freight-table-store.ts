import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Clock } from '../../core/clock.js';
import type { UploadLimits } from '../../core/config.js';
import { refuse } from '../../core/refusals.js';
import type { Database } from '../../storage/database.js';
import type { Schema } from '../../storage/schema.js';
import { multiRowInsert } from '../../storage/statement-shapes.js';
import { type FreightCsvResult, type FreightRow, readFreightCsv } from './freight-csv.js';
import { readFreightXlsxIsolated } from './freight-xlsx-isolated.js';
import { DEFAULT_UPLOAD_LIMITS, UploadLimitExceeded, uploadLimitError } from './upload-limits.js';

/** Owner of the marketplace delivery service's tables (spec-notes Q8); stores own theirs by tenant id. */
export const MARKETPLACE_OWNER = 'marketplace';

/** A table's settings as given with an import (query `name`, `distribution_center_id`, `cubic_weight_factor`). */
export interface FreightTableSettings {
  owner: string;
  tableId: string;
  name: string;
  distributionCenterId: string | null;
  cubicWeightFactor: number | null;
  /** The spreadsheet's format (D62): a workbook is read by freight-xlsx.ts; default csv. */
  format?: 'csv' | 'xlsx';
}

export type FreightTableRow = Schema['freight_tables'];

export type FreightImportResult = { ok: true; table: FreightTableRow; created: boolean } | { ok: false; csv: FreightCsvResult };

/** Rows per batch: an SQLite INSERT of 15 parameters a row stays far below its 32,766-parameter cap. */
const INSERT_BATCH_ROWS = 2000;
/**
 * Rows deleted per statement when an old version goes, so no single statement
 * holds SQLite's one connection long; the event loop gets a turn between two
 * (dropVersion), so other stores' quotes run in between.
 */
const DELETE_CHUNK_ROWS = 5000;

const ROW_COLUMNS = [
  'version_key',
  'line_no',
  'zip_start',
  'zip_end',
  'weight_start',
  'weight_end',
  'absolute_money_cost',
  'price_percent',
  'price_by_extra_weight',
  'max_volume',
  'time_cost',
  'delivery_days',
  'minimum_value_insurance',
  'polygon_name',
  'country',
] as const;

function rowValues(versionKey: number, row: FreightRow): unknown[] {
  return [
    versionKey,
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

/**
 * Where an import's rows go: `write` a batch at a time, then `finish` (keep
 * them) or `abort` (none lands, where it can); `close` gives up the import's
 * claim on the table once the import has switched or failed.
 */
interface FreightRowWriter {
  write(rows: FreightRow[]): Promise<void>;
  finish(): Promise<void>;
  abort(error: Error): Promise<void>;
  close(): Promise<void>;
}

/** A text cell of COPY's text format: backslash, tab and line breaks escaped. */
function copyText(value: string): string {
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : value;
}

/** One row as a line of COPY's text format, in ROW_COLUMNS order. */
function copyLine(versionKey: number, row: FreightRow): string {
  return `${versionKey}\t${row.line}\t${row.zipStart}\t${row.zipEnd}\t${row.weightStart}\t${row.weightEnd}\t${row.absoluteMoneyCost}\t${row.pricePercent}\t${row.priceByExtraWeight}\t${row.maxVolume === null ? '\\N' : row.maxVolume}\t${copyText(row.timeCost)}\t${row.deliveryDays}\t${row.minimumValueInsurance}\t${copyText(row.polygonName)}\t${copyText(row.country)}\n`;
}

/**
 * PostgreSQL: one COPY … FROM STDIN for the whole import, on a connection of
 * its own (faster than batched INSERT … unnest on the same server:
 * docs/decisions.md D27). The server inserts while the next rows
 * are parsed; an aborted import sends CopyFail, so none of its rows land.
 *
 * The import's claim on its table is a session advisory lock taken on that
 * same connection (spec-notes Q8: one import of a table at a time, across
 * processes): PostgreSQL releases it when the session ends, so a connection
 * lost mid-COPY (a restarted proxy, a terminated backend) frees the table at
 * once, where a claim kept in a row would wait for a timeout. Undefined when
 * another session holds it.
 */
async function copyWriter(
  pool: pg.Pool,
  versionKey: number,
  settings: FreightTableSettings,
): Promise<FreightRowWriter | undefined> {
  const lockKey = JSON.stringify(['freight-import', settings.owner, settings.tableId]);
  const client = await pool.connect();
  // A checked-out client whose backend goes away emits 'error'; it is answered through the COPY stream or the unlock.
  client.on('error', () => {});
  let claimed = false;
  try {
    const lock = await client.query<{ claimed: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as claimed', [
      lockKey,
    ]);
    claimed = lock.rows[0]?.claimed === true;
  } finally {
    if (!claimed) client.release();
  }
  if (!claimed) return undefined;
  const stream = client.query(copyFrom(`copy freight_rows (${ROW_COLUMNS.join(', ')}) from stdin`));
  let failure: Error | undefined;
  stream.on('error', (error: Error) => {
    failure ??= error;
  });
  const done = new Promise<void>((resolve) => {
    stream.on('finish', () => resolve());
    stream.on('error', () => resolve());
    stream.on('close', () => resolve());
  });
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    // A connection whose COPY broke is not given back to the pool for reuse (and its lock ends with it).
    client.release(error);
  };
  return {
    async write(rows) {
      if (failure) throw failure;
      let text = '';
      for (const row of rows) text += copyLine(versionKey, row);
      // Up to COPY_BUFFER_BYTES wait in the socket's queue, so parsing runs ahead while the server inserts.
      if (!stream.write(text) && stream.writableLength > COPY_BUFFER_BYTES) await Promise.race([once(stream, 'drain'), done]);
      if (failure) throw failure;
    },
    async finish() {
      if (!failure) stream.end();
      await done;
      if (failure) {
        release(failure);
        throw failure;
      }
    },
    async abort(error) {
      if (!released) {
        stream.destroy(error);
        await done;
        release(error);
      }
    },
    async close() {
      if (released) return;
      try {
        await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]);
        release();
      } catch (error) {
        release(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
}

/**
 * The writer of an import's rows. PostgreSQL: COPY (copyWriter). SQLite: a
 * multi-row VALUES statement per batch, compiled once per batch
 * length (storage/statement-shapes.ts) and prepared once, each
 * batch its own short transaction so quotes are not held up by the import.
 */
async function freightRowWriter(
  deps: { database: Database; clock: Clock },
  settings: FreightTableSettings,
  versionKey: number,
): Promise<FreightRowWriter | undefined> {
  const { database } = deps;
  if (database.pgPool) return copyWriter(database.pgPool, versionKey, settings);
  if (await anotherImportRunning(database.db, settings, versionKey, deps.clock)) return undefined;
  const shapes = multiRowInsert<Schema>('freight rows insert', 'freight_rows', ROW_COLUMNS);
  const width = ROW_COLUMNS.length;
  return {
    async write(rows) {
      const values: unknown[] = new Array(rows.length * width);
      rows.forEach((row, r) => {
        const one = rowValues(versionKey, row);
        for (let c = 0; c < width; c++) values[r * width + c] = one[c];
      });
      await database.db.executeQuery(shapes.query(database.db, database.dialect, rows.length, values));
      // better-sqlite3 runs each statement synchronously and its promise
      // settles as a microtask, so without this turn a spreadsheet read ahead
      // in memory would be written with no request served in between.
      await nextTurn();
    },
    async finish() {},
    async abort() {},
    async close() {},
  };
}

/** Bytes of COPY text an import may have queued for the server before parsing waits. */
const COPY_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Deletes a version's rows a chunk at a time, then the version itself. Each
 * chunk is its own short statement and the event loop gets a turn after it:
 * on SQLite the statements run synchronously and settle as microtasks, so a
 * loop of them would otherwise hold the process for the whole version (a
 * large table replaced or refused stalled every other store's quotes).
 */
async function dropVersion(db: Kysely<Schema>, versionKey: number): Promise<void> {
  for (;;) {
    await nextTurn();
    const result = await db
      .deleteFrom('freight_rows')
      .where('version_key', '=', versionKey)
      .where(
        'line_no',
        'in',
        db.selectFrom('freight_rows').select('line_no').where('version_key', '=', versionKey).limit(DELETE_CHUNK_ROWS),
      )
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) break;
  }
  await db.deleteFrom('freight_table_versions').where('key', '=', versionKey).execute();
}

/** SQLite: an import that has not ended within this long is taken for one a crash interrupted. */
export const FREIGHT_IMPORT_STALE_MS = 10 * 60_000;

/**
 * SQLite's claim on a table for one import, across processes (spec-notes Q8; PostgreSQL's is
 * the COPY session's advisory lock, copyWriter): each
 * import first inserts its version row; a version of the same table that is
 * newer than the current one, not the previous one, younger than
 * FREIGHT_IMPORT_STALE_MS and has a smaller key is an import still running, and
 * the later one gives way. Two imports that start together both see each other
 * and exactly one (the smaller key) goes on.
 */
async function anotherImportRunning(
  db: Kysely<Schema>,
  settings: FreightTableSettings,
  versionKey: number,
  clock: Clock,
): Promise<boolean> {
  const current = await db
    .selectFrom('freight_tables')
    .select(['version_key', 'previous_version_key'])
    .where('owner', '=', settings.owner)
    .where('table_id', '=', settings.tableId)
    .executeTakeFirst();
  const since = new Date(clock.now().getTime() - FREIGHT_IMPORT_STALE_MS).toISOString();
  const running = await db
    .selectFrom('freight_table_versions')
    .select('key')
    .where('owner', '=', settings.owner)
    .where('table_id', '=', settings.tableId)
    .where('key', '<', versionKey)
    .where('key', '>', current?.version_key ?? 0)
    .where('created_at', '>', since)
    .execute();
  return running.some(({ key }) => Number(key) !== current?.previous_version_key);
}

/**
 * Drops the versions of a table other than the current and the previous one
 * (read afresh, so a concurrent switch is never undone) that are older than
 * `versionKey`: the one replaced before last, and any an interrupted import left.
 */
async function dropStaleVersions(db: Kysely<Schema>, settings: FreightTableSettings, versionKey: number): Promise<void> {
  const current = await db
    .selectFrom('freight_tables')
    .select(['version_key', 'previous_version_key'])
    .where('owner', '=', settings.owner)
    .where('table_id', '=', settings.tableId)
    .executeTakeFirst();
  const keep = [current?.version_key, current?.previous_version_key].filter((key): key is number => typeof key === 'number');
  let stale = db
    .selectFrom('freight_table_versions')
    .select('key')
    .where('owner', '=', settings.owner)
    .where('table_id', '=', settings.tableId)
    .where('key', '<', versionKey);
  if (keep.length > 0) stale = stale.where('key', 'not in', keep);
  for (const { key } of await stale.execute()) await dropVersion(db, Number(key));
}

/** An import's claim on its table: its version (where its rows go) and the writer holding the claim. */
interface ImportClaim {
  versionKey: number;
  writer: FreightRowWriter;
}

/**
 * Imports a spreadsheet as the new content of a table (spec-notes Q8). The
 * rows go into a version of their own while quotes keep reading the current
 * one; only a spreadsheet without a single problem is switched to, by one
 * UPDATE (or the INSERT of a new table). A refused one leaves the table as it
 * was and its rows are deleted. The version replaced stays until the next
 * replace, so a quote that read its key a moment before the switch still
 * finds its rows; older ones (and versions an interrupted import left) go.
 * A second import of a table while one runs, in any process, is refused
 * with CONFLICT (anotherImportRunning).
 *
 * The claim (the version row, and on PostgreSQL a pooled connection with its
 * advisory lock and COPY) is taken only when the reader hands over its first
 * batch of rows, or at the end of a smaller table (D124): a spreadsheet refused
 * before its first batch (a bound passed, a bad cell) costs no statement and
 * holds no connection, however long its body takes to arrive and be read.
 */
export async function importFreightTable(
  deps: { database: Database; clock: Clock },
  settings: FreightTableSettings,
  source: Readable | AsyncIterable<Buffer | string>,
  limits: UploadLimits = DEFAULT_UPLOAD_LIMITS,
): Promise<FreightImportResult> {
  const now = deps.clock.now().toISOString();
  let claim: ImportClaim | undefined;
  const claimed = async (): Promise<ImportClaim> => {
    claim ??= await claimTable(deps, settings, now);
    return claim;
  };
  try {
    return await importRows(deps, settings, source, limits, claimed, () => claim, now);
  } finally {
    await claim?.writer.close();
  }
}

/** Inserts the import's version and takes the table's claim; CONFLICT when another import holds it. */
async function claimTable(
  deps: { database: Database; clock: Clock },
  settings: FreightTableSettings,
  now: string,
): Promise<ImportClaim> {
  const { db } = deps.database;
  const version = await db
    .insertInto('freight_table_versions')
    .values({ owner: settings.owner, table_id: settings.tableId, created_at: now })
    .returning('key')
    .executeTakeFirstOrThrow();
  const versionKey = Number(version.key);
  const writer = await freightRowWriter(deps, settings, versionKey);
  if (!writer) {
    await dropVersion(db, versionKey);
    throw refuse('SHIPPING_TABLE_IMPORT_BUSY');
  }
  return { versionKey, writer };
}

async function importRows(
  deps: { database: Database; clock: Clock },
  settings: FreightTableSettings,
  source: Readable | AsyncIterable<Buffer | string>,
  limits: UploadLimits,
  claimed: () => Promise<ImportClaim>,
  claimSoFar: () => ImportClaim | undefined,
  now: string,
): Promise<FreightImportResult> {
  const { db } = deps.database;
  const write = async (rows: FreightRow[]) => (await claimed()).writer.write(rows);
  let csv: FreightCsvResult;
  try {
    csv =
      settings.format === 'xlsx'
        ? await readFreightXlsxIsolated(source as AsyncIterable<Buffer>, write, { batchRows: INSERT_BATCH_ROWS, limits })
        : await readFreightCsv(source, write, { batchRows: INSERT_BATCH_ROWS, limits });
    // A refused spreadsheet whose rows never reached a batch has nothing to undo.
    if (csv.problemCount > 0) await claimSoFar()?.writer.abort(new Error('the spreadsheet was refused'));
    else await (await claimed()).writer.finish();
  } catch (error) {
    const claim = claimSoFar();
    if (claim) {
      await claim.writer.abort(error instanceof Error ? error : new Error(String(error)));
      await dropVersion(db, claim.versionKey);
    }
    throw error instanceof UploadLimitExceeded ? uploadLimitError(error.hit) : error;
  }
  if (csv.problemCount > 0) {
    const claim = claimSoFar();
    if (claim) await dropVersion(db, claim.versionKey);
    return { ok: false, csv };
  }
  const { versionKey } = await claimed();

  const values = {
    name: settings.name,
    distribution_center_id: settings.distributionCenterId,
    cubic_weight_factor: settings.cubicWeightFactor,
    version_key: versionKey,
    row_count: csv.rowCount,
    weight_bands: JSON.stringify(csv.weightBands),
    source_format: settings.format ?? 'csv',
    decimal_mark: csv.decimalMark,
    updated_at: now,
  };
  const switched = await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('freight_tables')
      .select(['version_key', 'previous_version_key'])
      .where('owner', '=', settings.owner)
      .where('table_id', '=', settings.tableId)
      .executeTakeFirst();
    if (current) {
      await trx
        .updateTable('freight_tables')
        .set({ ...values, previous_version_key: current.version_key })
        .where('owner', '=', settings.owner)
        .where('table_id', '=', settings.tableId)
        .execute();
    } else {
      await trx
        .insertInto('freight_tables')
        .values({ ...values, owner: settings.owner, table_id: settings.tableId, previous_version_key: null, created_at: now })
        .execute();
    }
    return current;
  });
  await dropStaleVersions(db, settings, versionKey);
  const table = await findFreightTable(deps.database, settings.owner, settings.tableId);
  return { ok: true, table: table as FreightTableRow, created: !switched };
}

export function findFreightTable(database: Database, owner: string, tableId: string): Promise<FreightTableRow | undefined> {
  return database.db
    .selectFrom('freight_tables')
    .selectAll()
    .where('owner', '=', owner)
    .where('table_id', '=', tableId)
    .executeTakeFirst();
}

/** Removes a table: quotes stop using it at once, then its rows are deleted. False when there was none. */
export async function deleteFreightTable(database: Database, owner: string, tableId: string): Promise<boolean> {
  const { db } = database;
  const deleted = await db
    .deleteFrom('freight_tables')
    .where('owner', '=', owner)
    .where('table_id', '=', tableId)
    .executeTakeFirst();
  const versions = await db
    .selectFrom('freight_table_versions')
    .select('key')
    .where('owner', '=', owner)
    .where('table_id', '=', tableId)
    .execute();
  for (const { key } of versions) await dropVersion(db, Number(key));
  return Number(deleted.numDeletedRows) > 0;
}

/** Removes every freight table of the given owners (a deleted seller's stores), as {@link deleteFreightTable} does. */
export async function deleteFreightTablesOf(database: Database, owners: readonly string[]): Promise<void> {
  if (owners.length === 0) return;
  const tables = await database.db
    .selectFrom('freight_tables')
    .select(['owner', 'table_id'])
    .where('owner', 'in', [...owners])
    .execute();
  for (const table of tables) await deleteFreightTable(database, table.owner, table.table_id);
}

/** The rows of a version in upload order, a page at a time (the CSV download streams them). */
export async function* freightRowsOf(
  database: Database,
  versionKey: number,
  pageRows = 5000,
): AsyncGenerator<Schema['freight_rows'][]> {
  let after = -1;
  for (;;) {
    const page = await database.db
      .selectFrom('freight_rows')
      .selectAll()
      .where('version_key', '=', versionKey)
      .where('line_no', '>', after)
      .orderBy('line_no')
      .limit(pageRows)
      .execute();
    if (page.length === 0) return;
    yield page;
    after = (page[page.length - 1] as Schema['freight_rows']).line_no;
    if (page.length < pageRows) return;
  }
}

/** One page of a version's rows in upload order, after line `afterLine` (keyset paging on the line index). */
export function freightRowsPage(
  database: Database,
  versionKey: number,
  afterLine: number,
  limit: number,
): Promise<Schema['freight_rows'][]> {
  return database.db
    .selectFrom('freight_rows')
    .selectAll()
    .where('version_key', '=', versionKey)
    .where('line_no', '>', afterLine)
    .orderBy('line_no')
    .limit(limit)
    .execute();
}

/** Total rows of the current versions (the benchmark's sanity check). */
export async function countFreightRows(database: Database): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from freight_rows`.execute(database.db);
  return Number(result.rows[0]?.n ?? 0);
}
