import type { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import { startSqliteThread } from './sqlite-thread.js';

/** SQLite's own default: the writer checkpoints once the WAL holds this many pages. */
const WRITER_AUTOCHECKPOINT_PAGES = 1000;
/**
 * While the thread runs, the writer still checkpoints past this many pages
 * (~32 MB): a safety net if the thread ever falls behind, never reached in the
 * benchmarks, where the thread keeps the WAL under a few MB.
 */
const FALLBACK_AUTOCHECKPOINT_PAGES = 8000;

/**
 * The checkpointer thread (sqlite-thread.ts). A PASSIVE checkpoint copies what it can without
 * waiting on readers or the writer; with nothing new in the WAL it returns at
 * once, without a sync.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
let frames = 0;
const timer = setInterval(() => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    if (row && row.checkpointed > 0) {
      frames += row.checkpointed;
      parentPort.postMessage({ checkpointedFrames: frames });
    }
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

export interface WalCheckpointer {
  /** WAL frames the thread has copied into the database file so far (for tests and diagnostics). */
  checkpointedFrames(): number;
  /** Whether checkpoints run on the thread (false once it stopped: the writer runs them again). */
  running(): boolean;
  /** Stops the thread; call before closing the connection. */
  stop(): Promise<void>;
  /** The thread, for tests that stop it as a crash would. */
  readonly thread: Worker;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the writing
 * connection checkpoints inside a COMMIT once the WAL passes 1,000 pages: it
 * copies them into the database file and fsyncs twice, on the thread serving
 * requests. Measured on a webhook backlog drain (BENCHMARKS.md), one commit in
 * seven took 5 to 28 ms for that, a quarter of the drain's time. Here a
 * second connection on a worker thread checkpoints every `intervalMs` instead,
 * which SQLite allows beside a writer (WAL mode: the writer keeps appending
 * while a checkpoint copies). If the thread stops, the writing connection goes
 * back to checkpointing by itself.
 */
export function startWalCheckpointer(
  writer: SqliteDatabase.Database,
  file: string,
  options: { intervalMs?: number } = {},
): WalCheckpointer {
  writer.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const thread = startSqliteThread(WORKER_SOURCE, { file, intervalMs: options.intervalMs ?? 100 });
  let frames = 0;
  let running = true;
  thread.on('message', (message: { checkpointedFrames?: number }) => {
    if (message.checkpointedFrames !== undefined) frames = message.checkpointedFrames;
  });
  // A thread that failed to open or crashed must not take the process with it, nor leave the WAL unbounded.
  thread.on('error', () => {});
  const exited = new Promise<void>((resolve) =>
    thread.once('exit', () => {
      running = false;
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
    async stop() {
      if (running) {
        // Referenced again while it is awaited: an unreferenced thread lets a process whose only work
        // left is this wait (a shutdown) exit under it.
        thread.ref();
        thread.postMessage('stop');
      }
      await exited;
    },
  };
}
