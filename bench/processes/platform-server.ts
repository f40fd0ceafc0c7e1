// The platform as a separate process: opens and migrates its database, builds
// the real app (createPlatform, as `feira start` builds it), listens on 127.0.0.1:0 and
// reports the port. Scenarios prepare their data through fixture operations
// loaded from modules named in the options.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { type IntervalHistogram, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { PlatformConfig, PlatformConfigInput, RetentionPolicy, UploadLimits } from '@feira/platform';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { childOptions, type Operation, serveChild } from '../lib/child-protocol.js';
import { BENCH_ADMIN_TOKEN } from './bench-credentials.js';

export interface PlatformServerOptions {
  databaseUrl: string;
  /** PostgreSQL schema (a scratch schema of the run). */
  searchPath?: string;
  /** Run the background workers (the webhook dispatcher) in this process, as `feira start` does. */
  workers?: boolean;
  /** Modules exporting `fixtureOperations(app)`: the data-preparation operations a scenario needs. */
  fixtures?: string[];
  outboundCa?: string;
  /** A file URL of another build's `index.js` to run instead of `@feira/platform` (A/B comparisons). */
  platformModule?: string;
  /** Retention settings other than the defaults (the year-soak scenario sweeps every second). */
  retention?: Partial<RetentionPolicy>;
  /** Upload limits other than the defaults (the freight scenario imports one store's table flat out). */
  uploads?: Partial<UploadLimits>;
}

export type FixtureModule = {
  fixtureOperations(app: FastifyInstance): Record<string, Operation>;
  /** Stops what the fixture started (e.g. the dispatcher), before the app closes. */
  stopFixture?(): Promise<void>;
};

const options = childOptions<PlatformServerOptions>();
// bench/tools/ab.ts runs two builds side by side: `platformModule` is the index.js of a snapshot of
// packages/platform/dist (whose node_modules resolve to the repository's).
// Said on stderr (the bench's log) so an A/B's log shows which build each run measured.
if (options.platformModule) process.stderr.write(`platform process: running ${options.platformModule}\n`);
const platformModule: typeof import('@feira/platform') = options.platformModule
  ? await import(options.platformModule)
  : await import('@feira/platform');
const {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
  migrateToLatest,
  openDatabase,
} = platformModule;
const database = await openDatabase(options.databaseUrl, options.searchPath ? { searchPath: options.searchPath } : {});
await migrateToLatest(database);
const given: PlatformConfigInput = {
  mode: 'sandbox',
  publicUrl: 'http://127.0.0.1',
  authUrl: 'http://127.0.0.1',
  adminToken: BENCH_ADMIN_TOKEN,
  secretKey: 'bench-secret-key-not-for-production',
  accessTokenTtlSeconds: DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  refreshTokenTtlSeconds: DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  // spec-notes I20: every request still takes from its app's bucket (the figures include that statement),
  // under a limit the load never reaches, since the scenarios measure one app flat out.
  apiRateLimit: { requestsPerSecond: 100_000, burst: 1_000_000 },
  ...(options.retention ? { retention: options.retention } : {}),
  ...(options.uploads ? { uploads: options.uploads } : {}),
};
// A build that fills the defaults from the settings schema is given what it must be given; an older one took the literal.
const config: PlatformConfig =
  'platformConfig' in platformModule ? platformModule.platformConfig(given) : (given as unknown as PlatformConfig);
const outbound = options.outboundCa ? { outboundCa: options.outboundCa } : {};

/** The app as `feira start` builds it: the composition root, with the dispatcher role when asked. */
async function start(): Promise<{ app: FastifyInstance; port: number; stop(): Promise<void> }> {
  if ('createPlatform' in platformModule) {
    const platform = await platformModule.createPlatform({
      config,
      database,
      logger: false,
      roles: { api: true, dispatcher: options.workers === true },
      listen: { host: '127.0.0.1', port: 0 },
      ...outbound,
    });
    return { app: platform.app as FastifyInstance, port: platform.port as number, stop: () => platform.close() };
  }
  // A build older than the composition root (A/B against an earlier commit): the app and the workers by hand.
  const older = platformModule as unknown as Pick<typeof import('@feira/platform'), 'buildApp' | 'startBackgroundWorkers'>;
  const app = await older.buildApp({ config, database, logger: false, ...outbound });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const workers = options.workers ? await older.startBackgroundWorkers(app.platform, { dispatcher: true }) : null;
  return {
    app,
    port: typeof address === 'object' && address ? address.port : 0,
    stop: async () => {
      await workers?.stop();
      await app.close();
    },
  };
}
const { app, port, stop } = await start();

const operations: Record<string, Operation> = {};
const fixtures: FixtureModule[] = [];
for (const module of options.fixtures ?? []) {
  const fixture = (await import(module)) as FixtureModule;
  fixtures.push(fixture);
  Object.assign(operations, fixture.fixtureOperations(app));
}

/** The process's CPU time so far (µs, user + system): a phase's cost per unit of work, steadier than a rate on a shared host. */
operations.cpuMicros = async () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** SQLite on a file: the WAL checkpointer's quiet windows so far (storage/wal-checkpointer.ts); else null. */
operations.walQuietWindows = async () => database.walCheckpointer?.quietWindows() ?? null;

/** What the platform's own thread went through in one measured phase: loop delay, GC pauses, pool waits. */
export interface PhaseWatch {
  /** The event loop's delay (ms): how late a timer of 10 ms resolution ran, the time a ready callback waited for the thread. */
  loopDelay: { p50Ms: number; p99Ms: number; maxMs: number; meanMs: number };
  /** Garbage collections (every kind, from the 'gc' performance entries): count, pause time in all, longest pause. */
  gc: { count: number; totalMs: number; maxMs: number };
  /**
   * PostgreSQL: the pool sampled every 5 ms. `waitingShare` is the fraction of samples with a
   * request waiting for a connection; `maxWaiting` the most waiting at once; `maxCheckedOut` the
   * most connections in use at once. Null on SQLite (one connection, no pool).
   */
  pool: { samples: number; waitingShare: number; maxWaiting: number; maxCheckedOut: number; size: number } | null;
  /**
   * PostgreSQL: the statements the pool's connections ran in the phase, by what each begins with
   * (its first words), most time first: how many, and how long they took in all (ms, sent to answered).
   * Says which work holds the pool when requests wait for it. Null on SQLite.
   */
  statements: { text: string; count: number; totalMs: number }[] | null;
}

/**
 * Every statement a PostgreSQL connection runs while a phase is watched, by its first words: pg's
 * client class (the one the platform's pool uses: one copy of pg in the workspace) wrapped once,
 * at load, and counting only while `on`.
 */
const statementTally: { on: boolean; byText: Map<string, { count: number; totalMs: number }> } = { on: false, byText: new Map() };
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  if (!statementTally.on) return clientQuery.apply(this, args);
  const first = args[0] as string | { text?: string; name?: string };
  const text = (typeof first === 'string' ? first : (first?.name ?? first?.text ?? '?')).replace(/\s+/g, ' ').trim().slice(0, 70);
  const started = performance.now();
  const done = () => {
    const entry = statementTally.byText.get(text) ?? { count: 0, totalMs: 0 };
    entry.count += 1;
    entry.totalMs += performance.now() - started;
    statementTally.byText.set(text, entry);
  };
  // The pool's own query() passes a callback; Kysely awaits the promise.
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    args[last] = (...answer: unknown[]) => {
      done();
      return callback(...answer);
    };
    return clientQuery.apply(this, args);
  }
  const result = clientQuery.apply(this, args);
  if (result instanceof Promise) result.then(done, done);
  return result;
};

let watching: { stop(): PhaseWatch } | null = null;
operations.watchStart = async () => {
  watching?.stop();
  const loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const pgPool = database.pgPool;
  statementTally.byText.clear();
  statementTally.on = true;
  const pool = { samples: 0, waiting: 0, maxWaiting: 0, maxCheckedOut: 0 };
  const sampler = pgPool
    ? setInterval(() => {
        pool.samples += 1;
        if (pgPool.waitingCount > 0) pool.waiting += 1;
        pool.maxWaiting = Math.max(pool.maxWaiting, pgPool.waitingCount);
        pool.maxCheckedOut = Math.max(pool.maxCheckedOut, pgPool.totalCount - pgPool.idleCount);
      }, 5)
    : null;
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  watching = {
    stop() {
      loop.disable();
      observer.disconnect();
      if (sampler) clearInterval(sampler);
      statementTally.on = false;
      watching = null;
      const statements = [...statementTally.byText]
        .map(([text, { count, totalMs }]) => ({ text, count, totalMs: Math.round(totalMs) }))
        .sort((a, b) => b.totalMs - a.totalMs)
        .slice(0, 10);
      return {
        loopDelay: { p50Ms: ms(loop.percentile(50)), p99Ms: ms(loop.percentile(99)), maxMs: ms(loop.max), meanMs: ms(loop.mean) },
        gc: { count: gc.count, totalMs: Math.round(gc.totalMs * 100) / 100, maxMs: Math.round(gc.maxMs * 100) / 100 },
        pool: pgPool
          ? {
              samples: pool.samples,
              waitingShare: pool.samples ? Math.round((pool.waiting / pool.samples) * 1000) / 1000 : 0,
              maxWaiting: pool.maxWaiting,
              maxCheckedOut: pool.maxCheckedOut,
              size: pgPool.options.max ?? 0,
            }
          : null,
        statements: pgPool ? statements : null,
      };
    },
  };
};
operations.watchStop = async () => watching?.stop() ?? null;

// CPU profiles of a measured phase only (not of start-up or data preparation): see BENCHMARKS.md, Profiling.
let profiler: Session | null = null;
operations.profileStart = async () => {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
};
operations.profileStop = async (args) => {
  if (!profiler) return null;
  const { profile } = await profiler.post('Profiler.stop');
  const file = (args as { file: string }).file;
  writeFileSync(file, JSON.stringify(profile));
  profiler.disconnect();
  profiler = null;
  return file;
};

serveChild({ port, dialect: database.dialect }, operations, async () => {
  for (const fixture of fixtures) await fixture.stopFixture?.();
  await stop();
  await database.close();
});
