import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PlatformServerOptions } from '../processes/platform-server.js';
import type { ChildHandle } from './child-process.js';
import { createScratchDatabase, createScratchSchema, postgresUnreachable } from './postgres-schema.js';
import type { ScenarioContext } from './scenario.js';

const SERVER = new URL('../processes/platform-server.ts', import.meta.url);

export type DatabaseKind = 'sqlite' | 'postgres';

/** Where one variant keeps its data: a SQLite file in the scratch directory, or a fresh PostgreSQL schema. */
export interface BenchDatabase {
  kind: DatabaseKind;
  url: string;
  searchPath?: string;
  drop(): Promise<void>;
}

export async function benchDatabase(
  ctx: ScenarioContext,
  kind: DatabaseKind,
  name: string,
  options: { ownDatabase?: boolean } = {},
): Promise<BenchDatabase> {
  if (kind === 'sqlite') return { kind, url: `sqlite:${join(ctx.scratchDir, `${name}.db`)}`, drop: async () => {} };
  if (!ctx.postgresUrl) throw new Error('no PostgreSQL URL');
  if (options.ownDatabase) {
    const scratch = await createScratchDatabase(ctx.postgresUrl);
    return { kind, url: scratch.url, drop: scratch.drop };
  }
  const scratch = await createScratchSchema(ctx.postgresUrl);
  return { kind, url: scratch.url, searchPath: scratch.schema, drop: scratch.drop };
}

/** Why the PostgreSQL variant cannot run, or null. */
export async function postgresMissing(ctx: ScenarioContext): Promise<string | null> {
  if (!ctx.postgresUrl) return 'PostgreSQL variants disabled (--no-postgres)';
  return postgresUnreachable(ctx.postgresUrl);
}

/**
 * The database variants a scenario runs, chosen by an environment variable (`postgres`, `sqlite`, or both
 * comma-separated); unset, SQLite, and PostgreSQL in full mode. `postgres` is null when PostgreSQL runs, else
 * why not (the scenario notes it).
 */
export async function chosenVariants(
  ctx: ScenarioContext,
  variable: string,
): Promise<{ sqlite: boolean; postgres: string | null }> {
  const chosen = (process.env[variable] ?? '').split(',').filter(Boolean);
  const sqlite = chosen.length === 0 || chosen.includes('sqlite');
  const postgres =
    chosen.length > 0 && !chosen.includes('postgres')
      ? `not chosen (${variable})`
      : ctx.mode === 'quick' && chosen.length === 0
        ? 'not in quick mode'
        : await postgresMissing(ctx);
  return { sqlite, postgres };
}

/** FEIRA_BENCH_PLATFORM_FLAGS: extra Node/V8 flags for the platform process only (tuning experiments; see BENCHMARKS.md). */
function platformNodeFlags(): string[] {
  return (process.env.FEIRA_BENCH_PLATFORM_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export type PlatformHandle = ChildHandle<{ port: number; dialect: string }> & { origin: string };

export async function startPlatform(
  ctx: ScenarioContext,
  database: BenchDatabase,
  options: Omit<PlatformServerOptions, 'databaseUrl' | 'searchPath'> = {},
): Promise<PlatformHandle> {
  // FEIRA_BENCH_PLATFORM_MODULE: another build's index.js (a file URL) runs as the platform, for an A/B of a whole scenario.
  const other = process.env.FEIRA_BENCH_PLATFORM_MODULE;
  const handle = await ctx.children.start<{ port: number; dialect: string }>(`platform (${database.kind})`, SERVER, {
    options: {
      ...(other ? { platformModule: other } : {}),
      ...options,
      databaseUrl: database.url,
      ...(database.searchPath ? { searchPath: database.searchPath } : {}),
    },
    // A shared host at a load of 20 and more has taken over a minute to start it (tsx compiles the server first).
    readyTimeoutMs: 180_000,
    execArgv: platformNodeFlags(),
  });
  return Object.assign(handle, { origin: `http://127.0.0.1:${handle.info.port}` });
}

/** Records the platform's peak RSS for the scenario, then stops it. */
export async function stopPlatform(ctx: ScenarioContext, platform: PlatformHandle, label: string): Promise<void> {
  ctx.peakRssBytes[label] = platform.peakRss();
  await platform.stop();
}

/**
 * Runs one measured phase; with FEIRA_BENCH_CPU_PROF=<dir>, the platform
 * process records a V8 CPU profile of exactly that phase into
 * `<dir>/<name>.cpuprofile` (open it in Chrome DevTools or speedscope).
 */
export async function profiled<T>(
  ctx: ScenarioContext,
  platform: PlatformHandle,
  name: string,
  phase: () => Promise<T>,
): Promise<T> {
  const dir = process.env.FEIRA_BENCH_CPU_PROF;
  if (!dir) return phase();
  mkdirSync(resolve(dir), { recursive: true });
  await platform.call('profileStart');
  try {
    return await phase();
  } finally {
    const file = join(resolve(dir), `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.cpuprofile`);
    await platform.call('profileStop', { file });
    ctx.log(`CPU profile of the platform written to ${file}`);
  }
}
