import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `source`, plain CommonJS evaluated from a string, so
 * it runs the same from TypeScript sources (tests) and from dist/. The thread
 * gets `workerData.driver`, better-sqlite3's resolved path (an evaluated worker
 * cannot resolve packages), beside the caller's own data. The quote log's
 * writer and the WAL checkpointer are such threads.
 */
export function startSqliteThread(source: string, workerData: Record<string, unknown>): Worker {
  return new Worker(source, {
    eval: true,
    // Not the parent's flags: a loader (tsx) or --input-type=module would change how this CommonJS source runs.
    execArgv: [],
    workerData: { ...workerData, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
}
