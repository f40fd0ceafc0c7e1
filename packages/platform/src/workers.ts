import { operatorSessionRetention } from './accounts/index.js';
import { DEFAULT_RETENTION } from './core/config.js';
import type { Readiness } from './http/health-routes.js';
import type { PlatformContext } from './http/platform-context.js';
import { identityRetentionRules, identitySealedColumns } from './identity/index.js';
import { type QuoteLogStore, quoteCallRetention, quoteLogStoreFor, shippingSealedColumns } from './shipping/index.js';
import { withOwnPool } from './storage/database.js';
import type { DatabaseLog } from './storage/lost-connection.js';
import { type RetentionRule, RetentionSweeper } from './storage/retention-sweeper.js';
import { type SealedColumn, SecretResealer } from './storage/secret-reseal.js';
import {
  DEFAULT_LEASE_MS,
  deliveryRetentionRules,
  dispatcherWorkerName,
  WebhookDispatcher,
  type WebhookDispatcherOptions,
  webhookSealedColumns,
} from './webhooks/index.js';

export interface BackgroundWorkers {
  /** The webhook dispatcher running in this process, if any. */
  dispatcher: WebhookDispatcher | null;
  /** The retention sweep of this process (it sweeps while it holds the lease), beside the dispatcher. */
  retention: RetentionSweeper | null;
  /** The re-seal under the current server secret, in a process given previous secrets (D112). */
  reseal: SecretResealer | null;
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
  /** The quote log the retention sweep keeps short (the app's); absent, the sweep opens the database's own. */
  quoteLog?: QuoteLogStore;
  /** Where the re-seal reports its progress (a line per pass that did something). */
  progressLog?: { info(obj: object, message: string): void; error(obj: object, message: string): void };
}

/** Every column of sealed values, each from the capability that owns its table: what a server-secret change re-seals. */
export function sealedColumns(): SealedColumn[] {
  return [...identitySealedColumns, ...webhookSealedColumns, ...shippingSealedColumns];
}

/**
 * Every table that grows with use and the rule that keeps it bounded, each
 * from the capability that owns the table, with the operator's periods
 * (`config.retention`, docs/deploy.md "Retention").
 */
export function retentionRules(platform: PlatformContext, quoteLog: QuoteLogStore): RetentionRule[] {
  const policy = { ...DEFAULT_RETENTION, ...platform.config.retention };
  const { db } = platform.database;
  return [
    ...deliveryRetentionRules(db, policy),
    ...quoteCallRetention(quoteLog, policy),
    ...identityRetentionRules(db, { ...policy, accessTokenTtlSeconds: platform.config.accessTokenTtlSeconds }),
    ...operatorSessionRetention(db, policy),
  ];
}

/** PostgreSQL connections of a dispatcher's own pool (besides its LISTEN connection; docs/deploy.md). */
const DISPATCHER_POOL_SIZE = 4;

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
  if (!options.dispatcher) return { dispatcher: null, retention: null, reseal: null, stop: async () => {} };
  // PostgreSQL: the dispatcher has connections of its own, so that its fan-outs and claims do not wait in
  // the pool's queue behind the API's requests (docs/decisions.md D15).
  const worker = options.dispatcherOptions?.worker ?? dispatcherWorkerName(platform.random);
  // Named in pg_stat_activity as `feira-dispatcher <worker>` (PostgreSQL keeps 63 bytes of it).
  const database = withOwnPool(platform.database, {
    poolSize: DISPATCHER_POOL_SIZE,
    applicationName: `feira-dispatcher ${worker}`.slice(0, 63),
    // A dispatcher cut off from the database mid-transaction (a result batch, a fan-out) would hold those
    // deliveries' rows locked, and claims skip locked rows: the server ends such a session once it has
    // waited half a lease, so the others take the deliveries over when the leases expire (D117).
    idleInTransactionTimeoutMs: Math.max(
      500,
      Math.floor((options.dispatcherOptions?.leaseMs ?? platform.config.dispatcher?.leaseMs ?? DEFAULT_LEASE_MS) / 2),
    ),
    ...(options.databaseLog ? { log: options.databaseLog } : {}),
  });
  const dispatcher = new WebhookDispatcher(
    { ...platform, database, ...(options.log ? { log: options.log } : {}) },
    { ...platform.config.dispatcher, ...options.dispatcherOptions, worker },
  );
  dispatcher.start();
  options.readiness?.add('dispatcher', () => dispatcher.readiness());
  const retention = startRetentionSweep(platform, worker, options);
  const reseal = platform.box.previousKids.length > 0 ? startReseal(platform, worker, options) : null;
  return {
    dispatcher,
    retention: retention.sweeper,
    reseal: reseal?.resealer ?? null,
    stop: async () => {
      await reseal?.stop();
      await retention.stop();
      await dispatcher.stop();
      await database.close();
    },
  };
}

/**
 * The retention sweep beside the dispatcher, on a connection of its own
 * (PostgreSQL), so its batches never wait in the queue of the API's or the
 * dispatcher's pool, nor they in its.
 */
function startRetentionSweep(
  platform: PlatformContext,
  worker: string,
  options: BackgroundWorkerOptions,
): { sweeper: RetentionSweeper; stop(): Promise<void> } {
  const policy = { ...DEFAULT_RETENTION, ...platform.config.retention };
  const database = withOwnPool(platform.database, {
    poolSize: 1,
    applicationName: `feira-retention ${worker}`.slice(0, 63),
    ...(options.databaseLog ? { log: options.databaseLog } : {}),
  });
  const ownQuoteLog = options.quoteLog ? undefined : quoteLogStoreFor(platform.database);
  const quoteLog = options.quoteLog ?? (ownQuoteLog as QuoteLogStore);
  const sweeper = new RetentionSweeper(
    { database, clock: platform.clock, metrics: platform.metrics },
    {
      rules: retentionRules({ ...platform, database }, quoteLog),
      holder: worker,
      batchRows: policy.batchRows,
      intervalMs: policy.intervalSeconds * 1000,
      ...(options.log ? { log: options.log } : {}),
    },
  );
  sweeper.start();
  return {
    sweeper,
    stop: async () => {
      await sweeper.stop();
      await ownQuoteLog?.close();
      await database.close();
    },
  };
}

/** How long a finished re-seal waits before it looks again (a process still on the old secret may seal meanwhile). */
const RESEAL_INTERVAL_MS = 60_000;

/**
 * The re-seal under the current server secret (storage/secret-reseal.ts), on a connection of its own
 * (PostgreSQL) like the retention sweep, with the same batch size.
 */
function startReseal(
  platform: PlatformContext,
  worker: string,
  options: BackgroundWorkerOptions,
): { resealer: SecretResealer; stop(): Promise<void> } {
  const policy = { ...DEFAULT_RETENTION, ...platform.config.retention };
  const database = withOwnPool(platform.database, {
    poolSize: 1,
    applicationName: `feira-reseal ${worker}`.slice(0, 63),
    ...(options.databaseLog ? { log: options.databaseLog } : {}),
  });
  const log = options.progressLog ?? (options.log ? { info: () => {}, error: options.log.error.bind(options.log) } : undefined);
  const resealer = new SecretResealer(
    { database, clock: platform.clock, box: platform.box },
    {
      columns: sealedColumns(),
      holder: worker,
      batchRows: policy.batchRows,
      intervalMs: RESEAL_INTERVAL_MS,
      ...(log ? { log } : {}),
    },
  );
  resealer.start();
  return {
    resealer,
    stop: async () => {
      await resealer.stop();
      await database.close();
    },
  };
}
