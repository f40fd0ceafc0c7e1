import type { Database, SeedCounts } from '@feira/platform';
import { RECORD_KINDS, type RecordTable } from '@feira/platform/cli';
import { Presets, SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { resolveStartSettings, settingAt } from '../config/start-config.js';

// `feira seed`: fills one tenant with records fast, for demos and
// benchmarks, through the platform's own seedRecords (multi-row INSERTs, many
// per transaction). Seeded rows are fixtures: no webhook events are written.

/** One `--<table> <n>` option per record kind (records/record-kinds.ts), in seeding order. */
type SeedOptions = { tenant: string; database?: string; dataDir?: string; progress: boolean } & Record<RecordTable, number>;

/** A row count: digits, `_` allowed as a separator (`1_000_000`). */
function count(value: string): number {
  if (!/^\d[\d_]*$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  const n = Number(value.replaceAll('_', ''));
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('is too large');
  return n;
}

function failed(error: unknown): void {
  console.error(`feira seed: ${(error as { message?: string }).message ?? String(error)}`);
  process.exitCode = 1;
}

export function register(program: Command): void {
  const tables = RECORD_KINDS.map((kind) => kind.table);
  const command = program
    .command('seed')
    .description(`Fill a tenant with generated ${tables.join(', ')} (fast bulk insert, no webhook events)`)
    .requiredOption('--tenant <id>', 'tenant (store) id to fill');
  for (const table of tables) command.option(`--${table} <n>`, `${table} to create`, count, 0);
  command
    .option(
      settingAt('database').schema.flag as string,
      `database URL (env ${settingAt('database').schema.env}; default: the data folder's SQLite file)`,
    )
    .option(
      settingAt('dataDir').schema.flag as string,
      `data folder (env ${settingAt('dataDir').schema.env}; default ${settingAt('dataDir').schema.default})`,
    )
    .option('--no-progress', 'no progress bar')
    .action(async (options: SeedOptions) => {
      let databaseUrl: string;
      try {
        ({ databaseUrl } = resolveStartSettings(
          { ...(options.database && { database: options.database }), ...(options.dataDir && { dataDir: options.dataDir }) },
          process.env,
        ));
      } catch (error) {
        if (error instanceof ConfigError) {
          console.error(`feira seed: ${error.message}`);
          process.exitCode = error.exitCode;
          return;
        }
        throw error;
      }
      const counts: SeedCounts = Object.fromEntries(tables.map((table) => [table, options[table]]));
      const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
      const { cryptoRandom, prepareDatabase, seedRecords, systemClock } = await import('@feira/platform');
      let database: Database;
      try {
        database = await prepareDatabase(databaseUrl);
      } catch (error) {
        failed(error);
        return;
      }
      const bar = new SingleBar(
        { format: 'seeding [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta}s', stream: process.stderr },
        Presets.shades_classic,
      );
      const barStarted = performance.now();
      try {
        if (options.progress) bar.start(total, 0, { rate: 0 });
        const result = await seedRecords(database, options.tenant, counts, {
          clock: systemClock,
          random: cryptoRandom,
          onProgress: (written) => {
            if (options.progress) {
              bar.update(written, { rate: Math.round(written / Math.max((performance.now() - barStarted) / 1000, 0.001)) });
            }
          },
        });
        if (options.progress) bar.stop();
        const seconds = result.elapsedMs / 1000;
        const rate = seconds > 0 ? Math.round(result.rows / seconds) : result.rows;
        console.log(
          `seeded ${result.rows} rows into tenant ${options.tenant} on ${database.displayUrl} ` +
            `(${tables.map((table) => `${table} ${result.counts[table]}`).join(', ')}) in ${seconds.toFixed(2)} s: ${rate} rows/s`,
        );
      } catch (error) {
        if (options.progress) bar.stop();
        failed(error);
      } finally {
        await database.close();
      }
    });
}
