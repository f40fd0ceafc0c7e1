import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** SQLite's own default: a checkpoint once the WAL holds this many pages. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 250 ms). */
  intervalMs?: number;
  /** Told when the worker stops on its own; checkpoints are back on the main connection by then. */
  onFailure?: (error: Error) => void;
}

export interface CheckpointStats {
  /** Checkpoints the worker has run. */
  runs: number;
  /** WAL frames copied into the database file, over all runs. */
  framesCheckpointed: number;
}

export interface SqliteCheckpointer {
  /** What the worker has done so far (it reports after every checkpoint that copied frames). */
  stats(): CheckpointStats;
  /** True while the worker runs and the main connection leaves checkpoints to it. */
  readonly running: boolean;
  /** Stops the worker and gives checkpoints back to the main connection. */
  stop(): Promise<void>;
}

// The worker is plain JavaScript evaluated from this string, so it runs the
// same from TypeScript sources (tests) and from dist/; it gets better-sqlite3's
// resolved path because an evaluated worker cannot resolve packages itself.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
parentPort.postMessage('ready');
let runs = 0;
let frames = 0;
const tick = () => {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)');
  runs += 1;
  if (row && row.checkpointed > 0) {
    frames += row.checkpointed;
    parentPort.postMessage({ runs, frames });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Runs SQLite's WAL checkpoints on a worker thread with its own connection,
 * instead of inside whichever commit of the main connection crosses the
 * 1000-page mark. A checkpoint copies the WAL into the database file and
 * fsyncs both; on the main thread that stalled every request behind it (up to
 * 174 ms seen in the `quote` benchmark's CPU profile, in `run` of the quote-log
 * INSERT). PASSIVE checkpoints take no writer lock, so the main connection
 * keeps committing while the worker syncs.
 *
 * If the worker fails, the main connection's auto-checkpoint is switched back
 * on, so the WAL never grows without bound.
 */
export async function startBackgroundCheckpoints(
  sqlite: SqliteDatabase.Database,
  file: string,
  options: CheckpointerOptions = {},
): Promise<SqliteCheckpointer> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Not the parent's flags: a loader (tsx) or --input-type=module would change how this CommonJS source runs.
    execArgv: [],
    workerData: { file, driver, intervalMs: options.intervalMs ?? 250 },
  });
  let stats: CheckpointStats = { runs: 0, framesCheckpointed: 0 };
  let running = true;
  let stopping = false;
  const handBack = () => {
    if (!running) return;
    running = false;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  let failed = false;
  const fail = (error: Error) => {
    handBack();
    if (stopping || failed) return;
    failed = true;
    options.onFailure?.(error);
  };
  // An uncaught error in the worker comes as 'error' and then 'exit': reported once.
  worker.on('error', fail);
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      fail(new Error(`the SQLite checkpoint worker exited (code ${code})`));
      resolve();
    });
  });
  const ready = new Promise<boolean>((resolve) => {
    worker.on('message', (message: 'ready' | { runs: number; frames: number }) => {
      if (message === 'ready') resolve(true);
      else stats = { runs: message.runs, framesCheckpointed: message.frames };
    });
    void exited.then(() => resolve(false));
  });
  // Until the worker has its connection, the main connection keeps checkpointing.
  if (await ready) sqlite.pragma('wal_autocheckpoint = 0');
  // Once started, the thread must not keep a finished process alive (the database's close() stops it).
  // Not before: an unreferenced worker lets a process whose only work is this wait exit under it.
  worker.unref();
  return {
    stats: () => stats,
    get running() {
      return running;
    },
    async stop() {
      stopping = true;
      handBack();
      // Referenced again while it winds down, or a process whose last work is this wait exits under it.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
