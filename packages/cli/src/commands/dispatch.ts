import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { loadStartConfig } from '../config/load-start-config.js';
import { type StartFlags, settingOption, settingsOf } from '../config/start-config.js';
import { outboundTrustOf } from '../sandbox/local-ca.js';
import { stopSignal } from '../stop-signals.js';

type DispatchFlags = StartFlags & { redeliver?: string[] };

/**
 * `feira dispatch`: the webhook dispatcher alone, for scale-out beside
 * `feira start` (spec-notes W6: several processes share the outbox;
 * on PostgreSQL claims use FOR UPDATE SKIP LOCKED). With `--redeliver <id…>`
 * it re-queues dead deliveries (W4) and exits. Its options are the rows of
 * the settings table that name this command.
 */
export function register(program: Command): void {
  const command = program
    .command('dispatch')
    .description('Run only the webhook dispatcher (scale-out), or re-queue deliveries with --redeliver');
  for (const leaf of settingsOf('dispatch')) if (leaf.schema.flag) command.addOption(settingOption(leaf));
  command
    .option('--redeliver <deliveryIds...>', 'send these deliveries again (same X-Webhook-Id, fresh retry schedule), then exit')
    .action(async (flags: DispatchFlags) => {
      let config: ReturnType<typeof loadStartConfig>;
      try {
        config = loadStartConfig(flags);
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
      const redeliver = flags.redeliver;
      // The same trust as `feira start` of this sandbox, so a split deployment delivers where one process would.
      const { outboundCa } = outboundTrustOf({ ...config, mode: config.platform.mode });
      const { createPlatform, redeliverDelivery } = await import('@feira/platform');
      const platform = await createPlatform({
        ...(outboundCa ? { outboundCa } : {}),
        databaseUrl: config.databaseUrl,
        roles: { api: false, dispatcher: redeliver === undefined },
        // The platform's settings go over whole; this process serves nothing, so a public URL is only named.
        config: { ...config.platform, publicUrl: config.platform.publicUrl ?? `http://${config.host}:${config.port}` },
        databaseLog,
        workerLog: {
          error: (obj, message) => process.stderr.write(`${message}: ${String((obj as { err?: unknown }).err)}\n`),
          // The re-seal's progress: counts only (D112).
          info: (obj, message) => process.stderr.write(`${message}: ${JSON.stringify(obj)}\n`),
        },
      });

      if (redeliver) {
        for (const id of redeliver) {
          try {
            await redeliverDelivery(platform.database.db, id, platform.context.clock.now());
            process.stdout.write(`re-queued ${id}\n`);
          } catch {
            process.stderr.write(`feira dispatch: no delivery ${id}\n`);
            process.exitCode = 1;
          }
        }
        await platform.close();
        return;
      }

      // Listened for before the ready line: a SIGTERM sent on reading it must find the handler.
      const stopped = stopSignal('feira dispatch');
      process.stdout.write(
        `Dispatching webhooks from ${platform.database.displayUrl} (${config.platform.mode} mode). Ctrl-C to stop.\n`,
      );
      await stopped;
      process.stdout.write('Stopping: finishing in-flight deliveries…\n');
      await platform.close();
      process.exit(0);
    });
}
