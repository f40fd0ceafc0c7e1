import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { dialectOf } from '@feira/platform/cli';
import { ConfigError } from '../config/config-error.js';
import { loadStartConfig } from '../config/load-start-config.js';
import { type StartFlags, settingText } from '../config/start-config.js';

/** What `feira start --workers` adds to the flags of `feira start`. */
export type ClusterFlags = {
  workers?: string;
  /** commander's `--no-dispatcher`: false when given. */
  dispatcher?: boolean;
};

/** The part a process plays in `feira start --workers <n>`. */
export interface ClusterRole {
  /** Run the webhook dispatcher in this process. */
  dispatcher: boolean;
  /** Print the start banner (one process, not n). */
  banner: boolean;
  /** Plant the demo on an empty database (the first worker only, before the others start). */
  seed: boolean;
}

const INDEX_ENV = 'FEIRA_CLUSTER_WORKER';
/** A worker that dies sooner than this after its start is restarted after a pause, not at once. */
const QUICK_DEATH_MS = 10_000;

/** `--workers <n|auto>`: the number of API processes, or 1 without the flag. */
function workerCount(flags: ClusterFlags, env: NodeJS.ProcessEnv = process.env): number {
  const raw = settingText('workers', flags, env);
  if (raw === undefined) return 1;
  if (raw === 'auto') return availableParallelism();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new ConfigError('--workers must be a whole number from 1 to 256, or auto');
  return n;
}

/**
 * Several processes need PostgreSQL: SQLite has one writer per file, and the
 * quote log, the login throttle and the webhook leases of n processes would
 * queue behind each other's write locks (or, for the quote log's writer
 * thread, write one file from n threads).
 */
function refuseSqlite(databaseUrl: string, workers: number): void {
  if (workers > 1 && dialectOf(databaseUrl) === 'sqlite') {
    throw new ConfigError(
      `--workers ${workers} needs PostgreSQL (--database postgres://…): SQLite allows one writer per file, ` +
        'so several processes would only wait on each other. Use one process on SQLite.',
    );
  }
}

/** This process's role: a lone `feira start` does everything; in a cluster, worker 1 prints, seeds and dispatches. */
export function clusterRole(flags: ClusterFlags): ClusterRole {
  const dispatcherWanted = flags.dispatcher !== false;
  if (!cluster.isWorker) return { dispatcher: dispatcherWanted, banner: true, seed: true };
  const first = process.env[INDEX_ENV] === '1';
  return { dispatcher: dispatcherWanted && first, banner: first, seed: first };
}

export interface ClusterIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * The primary of `feira start --workers <n>` (node:cluster): it forks n
 * workers that share the listening port (the primary hands connections out
 * round-robin), each a whole `feira start` without its own banner. Worker 1
 * starts first, so migrations and the demo seed run once before the others
 * open the database; worker 1 also runs the webhook dispatcher (unless
 * `--no-dispatcher`; more dispatchers: `feira dispatch`). A worker that exits
 * unasked is logged and replaced. SIGINT/SIGTERM go to every worker, each
 * shuts down gracefully, and the primary exits when all have.
 * Resolves once the first worker is ready (or failed to start).
 */
function runClusterPrimary(workers: number, io: ClusterIo): Promise<number> {
  let stopping = false;
  const startedAt = new Map<number, number>();
  const indexOf = new Map<number, number>();

  // Ready is said once, when every worker answers: an early request would meet a 503 "Starting up".
  const readyPids = new Set<number>();
  let listenUrl: string | undefined;
  let allReady = false;
  const fork = (index: number): Worker => {
    const worker = cluster.fork({ [INDEX_ENV]: String(index) });
    startedAt.set(worker.id, Date.now());
    indexOf.set(worker.id, index);
    worker.on('message', (message: unknown) => {
      const ready = message as { feira?: string; listenUrl?: string } | null;
      if (ready?.feira !== 'ready' || allReady) return;
      if (ready.listenUrl) listenUrl = ready.listenUrl;
      if (worker.process.pid !== undefined) readyPids.add(worker.process.pid);
      if (readyPids.size < workers) return;
      allReady = true;
      io.out(`Cluster: ${workers} workers, pids ${[...readyPids].join(', ')}; one port; primary pid ${process.pid}`);
      io.out('');
      io.out(`Listening on ${listenUrl ?? '(see above)'} with ${workers} workers (press Ctrl-C to stop)`);
    });
    return worker;
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      io.err(`feira start: ${signal} again, stopping the workers without waiting`);
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    io.out(`\n${signal}: shutting down ${Object.keys(cluster.workers ?? {}).length} workers (finishing in-flight requests)…`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  return new Promise((resolve) => {
    let firstReady = false;
    cluster.on('exit', (worker, code, signal) => {
      const index = indexOf.get(worker.id) ?? 0;
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          io.out('Stopped.');
          process.exit(0);
        }
        return;
      }
      if (!firstReady) {
        // The first worker could not start (port in use, database unreachable): nothing to restart into.
        io.err(`feira start: worker 1 exited before it was ready (${signal ?? `code ${code}`})`);
        resolve(1);
        return;
      }
      const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
      const pause = lived < QUICK_DEATH_MS ? 1_000 : 0;
      io.err(
        `feira start: worker ${index} (pid ${worker.process.pid}) exited unexpectedly (${signal ?? `code ${code}`}); ` +
          `restarting it${pause ? ' in 1 s' : ''}`,
      );
      setTimeout(() => {
        if (!stopping) fork(index);
      }, pause);
    });
    const first = fork(1);
    first.on('message', (message: unknown) => {
      if (firstReady || (message as { feira?: string } | null)?.feira !== 'ready') return;
      firstReady = true;
      for (let i = 2; i <= workers; i++) fork(i);
      resolve(0);
    });
  });
}

/** A worker tells the primary it is serving (after migrations, the seed and the banner); the first one says where. */
export function clusterReady(listenUrl?: string): void {
  if (cluster.isWorker) process.send?.({ feira: 'ready', ...(listenUrl ? { listenUrl } : {}) });
}

/** Whether this process is a worker of `feira start --workers`: the primary prints the Listening line once all are ready. */
export function inCluster(): boolean {
  return cluster.isWorker;
}

/**
 * The hook of `feira start`: with `--workers n` (n > 1) this process becomes
 * the cluster's primary, runs it until it stops, and returns true; otherwise
 * false (a lone process, or a worker) and the command starts the platform.
 * The config is loaded here first so that the admin token and secret key are
 * in the data folder before any worker reads them (workers must share them).
 */
export async function startClusterIfAsked(flags: StartFlags & ClusterFlags, io: ClusterIo): Promise<boolean> {
  if (!cluster.isPrimary) return false;
  let workers: number;
  try {
    workers = workerCount(flags);
    if (workers <= 1) return false;
    refuseSqlite(loadStartConfig(flags).databaseUrl, workers);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`feira start: ${error.message}`);
      process.exitCode = error.exitCode;
      return true;
    }
    throw error;
  }
  process.exitCode = await runClusterPrimary(workers, io);
  return true;
}
