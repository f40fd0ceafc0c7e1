import { basename, dirname, extname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { Kysely, type Migration, Migrator, SqliteDialect } from 'kysely';
import { type Database, openSqliteConnection } from '../../storage/database.js';
import { quoteCallsTable } from '../../storage/migrations/quote-calls-table.js';
import { withStatementCache } from '../../storage/sqlite-statement-cache.js';
import { startSqliteThread } from '../../storage/sqlite-thread.js';
import { insertQuoteCalls, type QuoteCallRecord, type QuoteLogTables } from './quote-call-rows.js';
import type { QuoteLogStore } from './quote-log-store.js';

/** Rows moved per step from the platform database into the log file (one-off, see `moveEarlierRows`). */
const MOVE_CHUNK_ROWS = 1000;

/** `data/feira.db` → `data/feira.quote-log.db`: the quote log's file, beside the platform's. */
export function quoteLogFileOf(databaseFile: string): string {
  const ext = extname(databaseFile);
  return join(dirname(databaseFile), `${basename(databaseFile, ext)}.quote-log${ext}`);
}

/**
 * The log file's own migrations: the `quote_calls` table of the platform's
 * database, step by step, without the store's foreign key (the file holds no
 * stores; storage/migrations/quote-calls-table.ts).
 */
const migrations: Record<string, Migration> = {
  '0001-quote-calls': { up: (db) => quoteCallsTable.create(db, 'plain') },
  '0002-fallback-used': { up: (db) => quoteCallsTable.addFallbackUsed(db) },
  '0003-gateway-kind': { up: (db) => quoteCallsTable.addGatewayKind(db) },
  '0004-created-index': { up: (db) => quoteCallsTable.addCreatedIndex(db) },
};

/** A row with every column, in the order the worker binds them. */
const COLUMNS = [
  'id',
  'tenant_id',
  'session_id',
  'purpose',
  'outcome',
  'latency_ms',
  'http_status',
  'detail',
  'fallback_used',
  'gateway_kind',
  'created_at',
] as const satisfies readonly (keyof QuoteCallRecord)[];

/**
 * The writer thread (storage/sqlite-thread.ts). It gets the INSERT compiled
 * by Kysely on the main thread.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const insert = db.prepare(workerData.insertSql);
const columns = workerData.columns;
const writeBatch = db.transaction((rows) => {
  for (const row of rows) insert.run(columns.map((column) => row[column]));
});
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    writeBatch(message.rows);
    parentPort.postMessage({ id: message.id });
  } catch (error) {
    // The driver's code too (SQLITE_CONSTRAINT_…): the writer tells a refused row from a failed write by it.
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error), code: error && error.code });
  }
});
parentPort.postMessage('ready');
`;

export interface QuoteLogFileOptions {
  /** Given the writer thread once started (tests stop it as a crash would). */
  onWriterThread?: (worker: Worker) => void;
}

type WorkerReply = 'ready' | { id: number; error?: string; code?: string };

interface PendingBatch {
  rows: readonly QuoteCallRecord[];
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The quote log of a SQLite platform, in a file of its own written by a worker
 * thread (docs/decisions.md D21). In the platform's
 * database, the log's INSERTs were the only writes of a storefront quote, and
 * every thousand WAL pages one of them ran SQLite's automatic checkpoint, two
 * fsyncs on the event loop, stalling every request queued behind it. On its own connection on a worker thread, those fsyncs stall nobody; in
 * a file of its own, the worker never waits on the platform's writes nor they
 * on it.
 *
 * The main thread keeps a connection to the file for reading (the admin list)
 * and as the fallback: if the worker stops, the batches it had not confirmed
 * and every later one are written on the main thread, and the trouble is
 * reported once. Rows are written by id with "on conflict do nothing", so a
 * batch the worker committed just before it stopped is not logged twice.
 *
 * The file is opened, migrated, and given the rows an earlier version kept in
 * the platform's database on first use (`reader()` or `write()`).
 */
export function openQuoteLogFile(platformDatabase: Database, file: string, options: QuoteLogFileOptions = {}): QuoteLogStore {
  let troubleHandler: (error: Error, message: string) => void = () => {};
  let opening: Promise<OpenLogFile> | null = null;
  let closed = false;
  const open = () => {
    if (closed) return Promise.reject(new Error('the quote log file is closed'));
    opening ??= OpenLogFile.open(platformDatabase, file, options, (error, message) => troubleHandler(error, message)).catch(
      (error: unknown) => {
        // Not opened (a full disk, say): the next use tries again, and this one's rows are reported by the writer.
        opening = null;
        throw error;
      },
    );
    return opening;
  };
  return {
    async open() {
      await open();
    },
    reader: async () => (await open()).db,
    write: async (rows) => (await open()).write(rows),
    onTrouble(handler) {
      troubleHandler = handler;
    },
    async close() {
      closed = true;
      // A file that never opened has nothing to close.
      const log = await opening?.catch(() => null);
      await log?.close();
    },
  };
}

class OpenLogFile {
  private readonly pending = new Map<number, PendingBatch>();
  private nextId = 1;
  /** False until the worker is ready and once it has stopped: writes happen on the main thread then. */
  private workerWrites = false;
  private stopping = false;
  private troubleReported = false;
  private exited: Promise<void> = Promise.resolve();
  /** Batches the worker took and never confirmed, being written on the main thread. */
  private rescues: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly db: Kysely<QuoteLogTables>,
    private readonly worker: Worker,
    private readonly reportTrouble: (error: Error, message: string) => void,
  ) {}

  static async open(
    platformDatabase: Database,
    file: string,
    options: QuoteLogFileOptions,
    reportTrouble: (error: Error, message: string) => void,
  ): Promise<OpenLogFile> {
    const sqlite = openSqliteConnection(file);
    const db = new Kysely<QuoteLogTables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    let worker: Worker;
    try {
      const { error } = await new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
      }).migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      await moveEarlierRows(platformDatabase, db);
      const placeholder = Object.fromEntries(COLUMNS.map((column) => [column, null])) as unknown as QuoteCallRecord;
      const insertSql = insertQuoteCalls(db, [placeholder]).compile().sql;
      worker = startSqliteThread(WORKER_SOURCE, { file, insertSql, columns: COLUMNS });
    } catch (error) {
      await db.destroy();
      throw error;
    }
    options.onWriterThread?.(worker);
    const log = new OpenLogFile(db, worker, reportTrouble);
    await log.attach();
    return log;
  }

  /** Waits for the worker's connection; until then, and if it never comes, writes stay on the main thread. */
  private async attach(): Promise<void> {
    const ready = new Promise<boolean>((resolve) => {
      this.worker.on('message', (reply: WorkerReply) => {
        if (reply === 'ready') resolve(true);
        else this.settle(reply);
      });
      this.worker.on('error', (error) => this.workerStopped(error));
      this.exited = new Promise<void>((exit) =>
        this.worker.once('exit', (code) => {
          this.workerStopped(new Error(`the quote log's writer thread exited (code ${code})`));
          resolve(false);
          exit();
        }),
      );
    });
    this.workerWrites = await ready;
    // Idle, the thread must not keep a finished process alive (close() stops it). Not while
    // something waits on it (its start, a batch): an unreferenced worker lets a process whose
    // only work is that wait exit under it.
    this.worker.unref();
  }

  write(rows: readonly QuoteCallRecord[]): Promise<void> {
    if (!this.workerWrites) return this.writeHere(rows);
    const id = this.nextId++;
    // While a batch is unconfirmed the process must not exit: its caller is waiting for it.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { rows, resolve, reject });
      this.worker.postMessage({ id, rows });
    });
  }

  private settle(reply: Exclude<WorkerReply, 'ready'>): void {
    const batch = this.pending.get(reply.id);
    if (!batch) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0 && !this.stopping) this.worker.unref();
    if (reply.error === undefined) batch.resolve();
    else batch.reject(Object.assign(new Error(reply.error), reply.code === undefined ? {} : { code: reply.code }));
  }

  /**
   * The worker is gone (an uncaught error comes as 'error' and then 'exit'):
   * every batch it had not confirmed, and every later one, is written here.
   */
  private workerStopped(error: Error): void {
    this.workerWrites = false;
    if (!this.stopping && !this.troubleReported) {
      this.troubleReported = true;
      this.reportTrouble(error, "the quote log's writer thread stopped: the log is written on the main thread");
    }
    const unconfirmed = [...this.pending.values()];
    this.pending.clear();
    this.rescues = Promise.all([
      this.rescues,
      ...unconfirmed.map((batch) => this.writeHere(batch.rows).then(batch.resolve, batch.reject)),
    ]);
  }

  private async writeHere(rows: readonly QuoteCallRecord[]): Promise<void> {
    await insertQuoteCalls(this.db, rows).execute();
  }

  async close(): Promise<void> {
    this.stopping = true;
    if (this.workerWrites) {
      // The worker reads its messages in order: every batch posted before 'stop' is written first.
      // Referenced again while it winds down, or a process whose last work is this wait exits under it.
      this.worker.ref();
      this.worker.postMessage('stop');
      await this.exited;
    }
    await this.rescues;
    await this.db.destroy();
  }
}

/**
 * Before the log had a file of its own, its rows were in the platform's
 * database (the `quote_calls` table of 0005-shipping, which stays, empty, on
 * SQLite). They are moved once, a chunk at a time: each chunk is written here
 * before it is deleted there, and a chunk written twice (a stop between the
 * two) is not logged twice, so no row is lost or doubled.
 */
async function moveEarlierRows(platformDatabase: Database, logDb: Kysely<QuoteLogTables>): Promise<void> {
  for (;;) {
    const rows = await platformDatabase.db.selectFrom('quote_calls').selectAll().limit(MOVE_CHUNK_ROWS).execute();
    if (rows.length === 0) return;
    await insertQuoteCalls(logDb, rows).execute();
    await platformDatabase.db
      .deleteFrom('quote_calls')
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
  }
}
