import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { CurrentSchemaPostgresDialect } from './current-schema-dialect.js';
import { isSqliteBusy } from './database-errors.js';
import { type DialectName, dialectOf, redactUrl } from './database-url.js';
import { type DatabaseLog, lostConnectionFields } from './lost-connection.js';
import { localOutboxSignal, type OutboxSignal, postgresOutboxSignal } from './outbox-signal.js';
import type { Schema } from './schema.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

export { type DialectName, dialectOf, redactUrl } from './database-url.js';

/** The storage handle every repository takes first. One code path, two dialects. */
export interface Database {
  readonly db: Kysely<Schema>;
  readonly dialect: DialectName;
  /** The URL with any password removed, safe to print and log. */
  readonly displayUrl: string;
  /** SQLite on a file: its path (side files, such as the quote log's, sit beside it). */
  readonly sqliteFile?: string;
  /** PostgreSQL: the pool under Kysely, for what Kysely cannot say (COPY of a freight import). */
  readonly pgPool?: pg.Pool;
  /** SQLite on a file: the thread that checkpoints its WAL off the event loop (wal-checkpointer.ts). */
  readonly walCheckpointer?: WalCheckpointer;
  /** "New outbox events": how the webhook dispatcher hears of a commit before its next poll (outbox-signal.ts). */
  readonly outboxSignal: OutboxSignal;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL schema to use as search_path (tests isolate themselves this way). */
  searchPath?: string;
  /** SQLite on a file: how often the checkpointer thread runs, and the WAL size that asks for a quiet window (tests). */
  walCheckpoint?: { intervalMs?: number; quietAtPages?: number };
  /** PostgreSQL: where a lost connection is reported (a pino logger fits); nothing is reported without one. */
  log?: DatabaseLog;
}

/**
 * One better-sqlite3 connection as every Feira SQLite file is used: WAL (readers
 * never wait for the writer), `synchronous = NORMAL` (commits do not fsync; the
 * WAL checkpoints do), foreign keys on, and a 5 s wait on a locked database.
 */
export function openSqliteConnection(file: string): SqliteDatabase.Database {
  if (file !== ':memory:') {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    // The file holds password hashes and sealed keys: readable by its owner only. Created here
    // with 0600 before SQLite opens it; SQLite gives the -wal and -shm files the same mode as the database.
    closeSync(openSync(file, 'a', 0o600));
  }
  const sqlite = new SqliteDatabase(file, { timeout: SQLITE_BUSY_WAIT_MS });
  switchToWal(sqlite, Date.now() + SQLITE_BUSY_WAIT_MS);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** How long a connection waits for a lock another connection holds on the same file. */
const SQLITE_BUSY_WAIT_MS = 5_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * `journal_mode = WAL`, again after a short pause while another connection holds the lock it needs, until
 * `deadline`. When two processes open a new file at once (two `feira start` on an empty data folder), each
 * reads the file and then asks for the exclusive lock the switch takes; SQLite sees the deadlock and answers
 * one of them SQLITE_BUSY at once, without waiting out the busy timeout. Once the other's switch is done,
 * the file is in WAL and the pragma has nothing left to change.
 */
function switchToWal(sqlite: SqliteDatabase.Database, deadline: number): void {
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() >= deadline) throw error;
      // A synchronous pause (opening is synchronous), a few milliseconds at random so two openers drift apart.
      Atomics.wait(pause, 0, 0, 1 + Math.random() * 4);
    }
  }
}

/**
 * Opens `sqlite:<path>` (better-sqlite3, WAL) or `postgres://…` (pg pool).
 * Migrations are not run here: see `migrateToLatest`.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    const sqlite = openSqliteConnection(file);
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
    // A quiet window holds Kysely's one connection: queries wait their turn as they do behind a transaction.
    const checkpointer =
      file === ':memory:'
        ? null
        : startWalCheckpointer(sqlite, file, {
            ...options.walCheckpoint,
            holdWrites: (during) => db.connection().execute(() => during()),
          });
    return {
      db,
      dialect,
      displayUrl: url,
      ...(file === ':memory:' ? {} : { sqliteFile: file }),
      ...(checkpointer ? { walCheckpointer: checkpointer } : {}),
      outboxSignal: localOutboxSignal(),
      close: async () => {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const pool = newPgPool(
    {
      connectionString: url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      application_name: 'feira',
      connectionTimeoutMillis: connectTimeoutMsOf(url),
      ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
    },
    options.log,
  );
  const db = new Kysely<Schema>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  const outboxSignal = postgresOutboxSignal(
    { ...pool.options, application_name: 'feira-listen' },
    (text, values) => pool.query(text, values),
    options.log,
  );
  return {
    db,
    dialect,
    displayUrl: redactUrl(url),
    pgPool: pool,
    outboxSignal,
    close: async () => {
      await outboxSignal.close();
      await db.destroy();
    },
  };
}

/** Connections of a process's main PostgreSQL pool (API requests). */
const DEFAULT_POOL_SIZE = 10;

/**
 * How long a request waits for a connection (pg-pool's queue, then the connect
 * itself) before it fails, and the API answers 503: a healthy server connects
 * in milliseconds and the queue of a busy pool moves in well under a second,
 * while during an outage a connect to a host that does not answer (no refusal,
 * no reset) would otherwise wait for the kernel's TCP timeout, minutes, and
 * every request with it. Five seconds sits below the usual 10–30 s timeouts of
 * clients and load balancers, so they see our 503 rather than their own
 * timeout. libpq's `connect_timeout` (seconds) in the URL overrides it.
 */
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** `?connect_timeout=<seconds>` of the URL (libpq's parameter), in ms, else the default. */
function connectTimeoutMsOf(url: string): number {
  const seconds = Number(new URL(url).searchParams.get('connect_timeout') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_CONNECT_TIMEOUT_MS;
}

function newPgPool(config: pg.PoolConfig, log: DatabaseLog | undefined): pg.Pool {
  const pool = new pg.Pool({
    // A connection whose peer vanished without a reset (host down, network cut) is found dead by TCP
    // keepalive instead of never. No client-side query_timeout: pg would leave the statement running on a
    // connection Kysely then hands back to the pool; nor a statement_timeout, as a freight COPY import or
    // `feira seed` legitimately runs for minutes (an operator can set one per role: docs/deploy.md).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...config,
    types: {
      // int8 (counts, cents, sequence numbers) as JS numbers: every value we store fits in 2^53.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A connection whose socket dies emits 'error'; pg-pool listens only while the connection is idle, so
  // one checked out (a request's query, a transaction, the freight COPY) would crash the process with an
  // unhandled 'error' event. Every connection gets a listener of its own for its whole life: the query
  // running on it fails on its own (and the API answers 503), the pool drops the connection when it comes
  // back, and the next query connects anew.
  const name = config.application_name ?? 'feira';
  pool.on('connect', (client) => {
    client.on('error', (error) => log?.warn(lostConnectionFields(client, name, error), 'PostgreSQL connection lost'));
  });
  // pg-pool's own report of the same loss on an idle connection: logged above already.
  pool.on('error', () => {});
  return pool;
}

/**
 * PostgreSQL: the same database through a pool of its own (same server,
 * schema and outbox signal), for a loop that must not queue behind the API's
 * requests for a connection. Its `close()` closes only that pool. SQLite has
 * one connection: the same database, whose `close()` here does nothing.
 */
export function withOwnPool(
  database: Database,
  options: {
    poolSize: number;
    applicationName: string;
    log?: DatabaseLog;
    /**
     * The server ends a session of this pool that sits inside a transaction, waiting for its client, this
     * long (`idle_in_transaction_session_timeout`): a client cut off by the network mid-transaction
     * otherwise keeps its row locks until the server's TCP keepalive notices, hours by default.
     */
    idleInTransactionTimeoutMs?: number;
  },
): Database {
  if (database.dialect !== 'postgres' || !database.pgPool) return { ...database, close: async () => {} };
  const { connectionString, options: serverOptions } = database.pgPool.options;
  const { connectionTimeoutMillis } = database.pgPool.options;
  const pool = newPgPool(
    {
      connectionString,
      max: options.poolSize,
      application_name: options.applicationName,
      ...(options.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs } : {}),
      ...(connectionTimeoutMillis ? { connectionTimeoutMillis } : {}),
      ...(serverOptions ? { options: serverOptions } : {}),
    },
    options.log,
  );
  const db = new Kysely<Schema>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
  return { ...database, db, pgPool: pool, close: () => db.destroy() };
}
