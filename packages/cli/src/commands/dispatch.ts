import {
  createPlatformContext,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_PER_ENDPOINT_IN_FLIGHT,
  migrateToLatest,
  openDatabase,
  platformConfig,
  redeliverDelivery,
  startBackgroundWorkers,
} from '@feira/platform';
import { type Command, Option } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { loadStartConfig } from '../config/load-start-config.js';
import { START_SETTINGS, type StartFlags } from '../config/start-config.js';
import { stopSignal } from '../stop-signals.js';

interface DispatchFlags extends StartFlags {
  redeliver?: string[];
  concurrency?: string;
  perEndpoint?: string;
}

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer`);
  return n;
}

/**
 * `feira dispatch`: the webhook dispatcher alone, for scale-out beside
 * `feira start` (spec-notes W6: several processes share the outbox;
 * on PostgreSQL claims use FOR UPDATE SKIP LOCKED). With `--redeliver <id…>`
 * it re-queues dead deliveries (W4) and exits.
 */
export function register(program: Command): void {
  const command = program
    .command('dispatch')
    .description('Run only the webhook dispatcher (scale-out), or re-queue deliveries with --redeliver');
  for (const key of ['database', 'dataDir', 'mode'] as const) {
    const setting = START_SETTINGS[key];
    command.addOption(new Option(setting.flag, `${setting.help} (env ${setting.env}; default ${setting.default})`));
  }
  command
    .option('--redeliver <deliveryIds...>', 'send these deliveries again (same X-Webhook-Id, fresh retry schedule), then exit')
    .option('--concurrency <n>', `requests in flight in this process (default ${DEFAULT_MAX_IN_FLIGHT})`)
    .option('--per-endpoint <n>', `requests in flight per receiver origin (default ${DEFAULT_PER_ENDPOINT_IN_FLIGHT})`)
    .action(async (flags: DispatchFlags) => {
      let config: ReturnType<typeof loadStartConfig>;
      let maxInFlight: number;
      let perEndpointInFlight: number;
      try {
        config = loadStartConfig(flags);
        maxInFlight = positiveInteger(flags.concurrency, '--concurrency', DEFAULT_MAX_IN_FLIGHT);
        perEndpointInFlight = positiveInteger(flags.perEndpoint, '--per-endpoint', DEFAULT_PER_ENDPOINT_IN_FLIGHT);
      } catch (error) {
        if (error instanceof ConfigError) {
          process.stderr.write(`feira dispatch: ${error.message}\n`);
          process.exitCode = error.exitCode;
          return;
        }
        throw error;
      }
      // A lost PostgreSQL connection is said on stderr (pool, server process, host, port, database; never the URL).
      const databaseLog = {
        warn: (fields: object, message: string) => void process.stderr.write(`${message}: ${JSON.stringify(fields)}\n`),
      };
      const database = await openDatabase(config.databaseUrl, { log: databaseLog });
      await migrateToLatest(database);
      const platformSettings = platformConfig({
        mode: config.mode,
        publicUrl: config.publicUrl ?? `http://${config.host}:${config.port}`,
        adminToken: config.adminToken,
        secretKey: config.secretKey,
      });
      const platform = await createPlatformContext({ config: platformSettings, database });

      if (flags.redeliver) {
        for (const id of flags.redeliver) {
          try {
            await redeliverDelivery(database.db, id, platform.clock.now());
            process.stdout.write(`re-queued ${id}\n`);
          } catch {
            process.stderr.write(`feira dispatch: no delivery ${id}\n`);
            process.exitCode = 1;
          }
        }
        await database.close();
        return;
      }

      const workers = await startBackgroundWorkers(platform, {
        dispatcher: true,
        dispatcherOptions: { maxInFlight, perEndpointInFlight },
        log: { error: (obj, message) => process.stderr.write(`${message}: ${String((obj as { err?: unknown }).err)}\n`) },
        databaseLog,
      });
      // Listened for before the ready line: a SIGTERM sent on reading it must find the handler.
      const stopped = stopSignal('feira dispatch');
      process.stdout.write(`Dispatching webhooks from ${database.displayUrl} (${config.mode} mode). Ctrl-C to stop.\n`);
      await stopped;
      process.stdout.write('Stopping: finishing in-flight deliveries…\n');
      await workers.stop();
      await database.close();
      process.exit(0);
    });
}
