import type { Readiness } from './http/health-routes.js';
import type { PlatformContext } from './http/platform-context.js';
import { withOwnPool } from './storage/database.js';
import type { DatabaseLog } from './storage/lost-connection.js';
import { dispatcherWorkerName, WebhookDispatcher, type WebhookDispatcherOptions } from './webhooks/index.js';

export interface BackgroundWorkers {
  /** The webhook dispatcher running in this process, if any. */
  dispatcher: WebhookDispatcher | null;
  stop(): Promise<void>;
}

export interface BackgroundWorkerOptions {
  /** Run the webhook dispatcher in this process (default for `feira start`; `feira dispatch` runs only this). */
  dispatcher: boolean;
  /** Overrides of the dispatcher's tuning, over `config.dispatcher` (tests); defaults follow spec-notes W4. */
  dispatcherOptions?: WebhookDispatcherOptions;
  log?: { error(obj: object, message: string): void };
  /** Where the dispatcher's own pool reports a lost PostgreSQL connection. */
  databaseLog?: DatabaseLog;
  /** Where the loops report their heartbeat for `/health/ready` (the app's `readiness`). */
  readiness?: Readiness;
}

/** PostgreSQL connections of a dispatcher's own pool (besides its LISTEN connection; docs/deploy.md). */
export const DISPATCHER_POOL_SIZE = 4;

/**
 * Starts the long-running loops that live beside the HTTP server (the webhook
 * dispatcher), tuned by `config.dispatcher`. The composition root
 * (platform.ts) calls this for the dispatcher role; tests may drive the loops
 * directly instead.
 */
export async function startBackgroundWorkers(
  platform: PlatformContext,
  options: BackgroundWorkerOptions,
): Promise<BackgroundWorkers> {
  if (!options.dispatcher) return { dispatcher: null, stop: async () => {} };
  // PostgreSQL: the dispatcher has connections of its own, so that its fan-outs and claims do not wait in
  // the pool's queue behind the API's requests (docs/decisions.md D15).
  const worker = options.dispatcherOptions?.worker ?? dispatcherWorkerName(platform.random);
  // Named in pg_stat_activity as `feira-dispatcher <worker>` (PostgreSQL keeps 63 bytes of it).
  const database = withOwnPool(platform.database, {
    poolSize: DISPATCHER_POOL_SIZE,
    applicationName: `feira-dispatcher ${worker}`.slice(0, 63),
    ...(options.databaseLog ? { log: options.databaseLog } : {}),
  });
  const dispatcher = new WebhookDispatcher(
    { ...platform, database, ...(options.log ? { log: options.log } : {}) },
    { ...platform.config.dispatcher, ...options.dispatcherOptions, worker },
  );
  dispatcher.start();
  options.readiness?.add('dispatcher', () => dispatcher.readiness());
  return {
    dispatcher,
    stop: async () => {
      await dispatcher.stop();
      await database.close();
    },
  };
}
