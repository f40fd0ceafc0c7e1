import type { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import { startSqliteThread } from './sqlite-thread.js';

/** SQLite's own default: the writer checkpoints once the WAL holds this many pages. */
const WRITER_AUTOCHECKPOINT_PAGES = 1000;
/**
 * While the thread runs, the writer still checkpoints past this many pages
 * (~64 MB): a safety net if the thread ever falls behind or stops answering.
 */
const FALLBACK_AUTOCHECKPOINT_PAGES = 16_000;

/**
 * Past this many pages in the WAL (~32 MB), the thread asks for a quiet window
 * (see `startWalCheckpointer`), so that the WAL is reused from its start long
 * before the writer's fallback. At 500 orders/s (about 10,000 pages/s) that is
 * a window a second; a lower threshold made many more windows, each as short
 * (docs/decisions.md D19).
 */
const DEFAULT_QUIET_AT_PAGES = 8_000;

/** A quiet window the thread did not close within this long is closed anyway: writes never wait longer. */
const QUIET_TIMEOUT_MS = 500;

/**
 * The checkpointer thread (sqlite-thread.ts). A PASSIVE checkpoint copies what it can without
 * waiting on readers or the writer; with nothing new in the WAL it returns at
 * once, without a sync. It reports every frame it was given as copied, but
 * the writer appends while it runs, so the WAL is not all copied when the
 * next write begins, and is not reused: once it holds `quietAtPages`, the
 * thread asks for a quiet window and checkpoints again inside it.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// Only to fsync the database file; closed when the thread stops, while the writer is held (see stop()).
const dbFd = fs.openSync(workerData.file, 'r');
// The WAL's header names its generation: SQLite adds one to its checkpoint sequence number (bytes 12-15)
// each time it starts the WAL over. A checkpoint reports how many frames of this generation are copied
// in all, so what it copied itself is the growth of that number within one generation.
let walFd = null;
const header = Buffer.alloc(16);
function walGeneration() {
  try {
    if (walFd === null) walFd = fs.openSync(workerData.file + '-wal', 'r');
    return fs.readSync(walFd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : -1;
  } catch {
    return -1;
  }
}
let frames = 0;
let generation = -1;
let copiedInGeneration = 0;
let quietAsked = false;
function checkpoint() {
  const before = walGeneration();
  const [row] = db.pragma('wal_checkpoint(PASSIVE)');
  const after = walGeneration();
  if (after !== generation) {
    generation = after;
    copiedInGeneration = 0;
  }
  // A WAL started over between the two reads: what was copied of which generation is unknown, so not counted.
  if (row && before === after && row.checkpointed > copiedInGeneration) {
    frames += row.checkpointed - copiedInGeneration;
    copiedInGeneration = row.checkpointed;
    parentPort.postMessage({ checkpointedFrames: frames });
  }
  return row;
}
const timer = setInterval(() => {
  if (quietAsked) return;
  try {
    const row = checkpoint();
    if (row && row.log >= workerData.quietAtPages) {
      // SQLite syncs the database file only in a checkpoint that reaches the end of the WAL, which none
      // did while the writer appended: every page copied since is still unsynced. Sync them here, off
      // the window, then copy what came meanwhile: the window is left one short checkpoint.
      fs.fsyncSync(dbFd);
      checkpoint();
      quietAsked = true;
      parentPort.postMessage({ quietWanted: row.log });
    }
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'quiet') {
    const started = performance.now();
    let complete = false;
    try {
      const row = checkpoint();
      complete = !!row && row.checkpointed === row.log;
    } catch (error) {
      parentPort.postMessage({ error: String((error && error.message) || error) });
    }
    quietAsked = false;
    parentPort.postMessage({ quietDone: { complete, ms: performance.now() - started } });
  } else if (message === 'stop') {
    clearInterval(timer);
    db.close();
    fs.closeSync(dbFd);
    if (walFd !== null) fs.closeSync(walFd);
    parentPort.close();
  }
});
`;

/** What the quiet windows did so far (diagnostics, tests and the benchmark). */
export interface QuietWindowStats {
  /** Windows held: each kept the writer's database work waiting while the thread checkpointed. */
  windows: number;
  /** …of which the checkpoint copied every frame, so the writer's next transaction reused the WAL from its start. */
  complete: number;
  /** Time spent checkpointing inside windows, in all (ms)… */
  totalMs: number;
  /** …and the longest of them. */
  longestMs: number;
}

export interface WalCheckpointer {
  /** WAL frames the thread has copied into the database file so far, each counted once (for tests and diagnostics). */
  checkpointedFrames(): number;
  /** Whether checkpoints run on the thread (false once it stopped: the writer runs them again). */
  running(): boolean;
  quietWindows(): QuietWindowStats;
  /** Stops the thread; call before closing the connection. */
  stop(): Promise<void>;
  /** The thread, for tests that stop it as a crash would. */
  readonly thread: Worker;
}

export interface WalCheckpointerOptions {
  intervalMs?: number;
  quietAtPages?: number;
  /** Runs `during` while no other database work of the writing connection runs (Kysely's connection, held). */
  holdWrites?: (during: () => Promise<void>) => Promise<void>;
  /** Starts a window's timeout: calls `close` after `ms`, unless the returned function cancels it first (tests fire it by hand). */
  quietTimer?: (close: () => void, ms: number) => () => void;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the writing
 * connection checkpoints inside a COMMIT once the WAL passes 1,000 pages: it
 * copies them into the database file and fsyncs twice, on the thread serving
 * requests: on a webhook backlog drain those commits took a large share of the
 * drain's time (docs/decisions.md D19). Here a
 * second connection on a worker thread checkpoints every `intervalMs` instead,
 * which SQLite allows beside a writer (WAL mode: the writer keeps appending
 * while a checkpoint copies). If the thread stops, the writing connection goes
 * back to checkpointing by itself.
 *
 * SQLite reuses the WAL from its start only when a write transaction begins
 * with every frame already copied. Under steady writes (about 1,000 commits/s
 * at 500 orders/s) a new commit lands while every checkpoint runs, so the WAL
 * grew to the writer's 8,000-page fallback, and the writer checkpointed on
 * the event loop after all (docs/decisions.md D19). So past `quietAtPages` the thread asks for a quiet window:
 * `holdWrites` keeps the writer's database work waiting (the event loop stays
 * free: requests are parsed, webhooks sent) while the thread checkpoints the
 * rest, then the next write starts the WAL over. Before asking, the thread
 * syncs the database file: SQLite syncs it only in a checkpoint that reaches
 * the end of the WAL, so the window's checkpoint would otherwise sync every
 * page copied since the last restart, and windows would last several times
 * longer. A window lasts at most `QUIET_TIMEOUT_MS`.
 */
export function startWalCheckpointer(
  writer: SqliteDatabase.Database,
  file: string,
  options: WalCheckpointerOptions = {},
): WalCheckpointer {
  writer.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const thread = startSqliteThread(WORKER_SOURCE, {
    file,
    intervalMs: options.intervalMs ?? 100,
    quietAtPages: options.quietAtPages ?? DEFAULT_QUIET_AT_PAGES,
  });
  let frames = 0;
  let running = true;
  const quiet: QuietWindowStats = { windows: 0, complete: 0, totalMs: 0, longestMs: 0 };
  /** Ends the quiet window being held, if any. */
  let endQuiet: (() => void) | null = null;
  const holdWrites = options.holdWrites ?? ((during: () => Promise<void>) => during());
  const quietTimer = options.quietTimer ?? systemTimer;
  const window = () =>
    new Promise<void>((resolve) => {
      if (!running) return resolve(); // the thread stopped while this window waited its turn
      const cancelTimeout = quietTimer(done, QUIET_TIMEOUT_MS);
      function done() {
        cancelTimeout();
        endQuiet = null;
        resolve();
      }
      endQuiet = done;
      thread.postMessage('quiet');
    });
  thread.on(
    'message',
    (message: { checkpointedFrames?: number; quietWanted?: number; quietDone?: { complete: boolean; ms: number } }) => {
      if (message.checkpointedFrames !== undefined) frames = message.checkpointedFrames;
      if (message.quietWanted !== undefined && running) {
        // A hold that failed (the database closing) still lets the thread checkpoint and go back to its turns.
        holdWrites(window).catch(() => thread.postMessage('quiet'));
      }
      if (message.quietDone) {
        quiet.windows += 1;
        if (message.quietDone.complete) quiet.complete += 1;
        quiet.totalMs += message.quietDone.ms;
        quiet.longestMs = Math.max(quiet.longestMs, message.quietDone.ms);
        endQuiet?.();
      }
    },
  );
  // A thread that failed to open or crashed must not take the process with it, nor leave the WAL unbounded.
  thread.on('error', () => {});
  const exited = new Promise<void>((resolve) =>
    thread.once('exit', () => {
      running = false;
      endQuiet?.();
      if (writer.open) writer.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
      resolve();
    }),
  );
  // The thread must not keep a finished process alive.
  thread.unref();
  return {
    thread,
    checkpointedFrames: () => frames,
    running: () => running,
    quietWindows: () => ({ ...quiet }),
    async stop() {
      if (running) {
        // Referenced again while it is awaited: an unreferenced thread lets a process whose only work
        // left is this wait (a shutdown) exit under it.
        thread.ref();
        // The thread closes its descriptor of the database file, and closing any descriptor of a file
        // drops every POSIX lock the process holds on it (fcntl locks are per process): the writer is
        // held meanwhile, so that it is between transactions and holds none. (A thread that crashed
        // leaves its descriptor open until the process exits.)
        const stopThread = async () => {
          thread.postMessage('stop');
          await exited;
        };
        await holdWrites(stopThread).catch(stopThread);
      }
      await exited;
    },
  };
}

function systemTimer(close: () => void, ms: number): () => void {
  const timeout = setTimeout(close, ms);
  return () => clearTimeout(timeout);
}
