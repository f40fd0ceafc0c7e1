import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type DestinationStream, destination, pino } from 'pino';
import { collectDefaultMetrics, Gauge } from 'prom-client';
import { buildApp } from './app.js';
import type { Clock } from './core/clock.js';
import { type PlatformConfig, platformConfig } from './core/config.js';
import type { PlatformContext } from './core/platform-context.js';
import { cryptoRandom, type Random } from './core/random.js';
import { plantOrRecallDemo, startDemoSellerFor } from './demo/demo-sandbox.js';
import type { DemoCredentials, DemoRecordsSeeder } from './demo/demo-seed.js';
import type { DemoSeller } from './demo/demo-seller.js';
import { clientErrorHandler } from './http/client-error.js';
import { type Database, openDatabase } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { type BackgroundWorkers, startBackgroundWorkers } from './workers.js';

/** What `feira start` hands over once its config is resolved; nothing here reads flags or environment. */
export interface StartPlatformOptions {
  /** `sqlite:<path>` or `postgres://…`. */
  databaseUrl: string;
  host: string;
  /** 0 picks a free port; the real one is in `RunningPlatform.port`. */
  port: number;
  /** Public API URL; default `http://<host>:<actual port>`. */
  publicUrl?: string;
  /** Identity-provider URL (spec-notes I1); default the public URL. */
  authUrl?: string;
  mode: PlatformConfig['mode'];
  adminToken: string;
  secretKey: string;
  /** Data folder: where the demo credentials are kept. */
  dataDir: string;
  /** `demo` plants the demo seller and client into an empty database. */
  seed: 'demo' | 'none';
  /** Seeder of the demo stores' records; default `seedDemoRecords` (demo/demo-records.ts). */
  seedRecords?: DemoRecordsSeeder;
  /** pino level for the logs on stderr, or a logger, or `false` for none. */
  logger?: FastifyBaseLogger | string | false;
  /** Where a level-given logger writes (default stderr as JSON lines), e.g. a pino-pretty stream. */
  logDestination?: DestinationStream;
  /** Sandbox with a demo: run the demo seller's quote endpoint and point the demo stores at it (default true). */
  demoSeller?: boolean;
  /** Port of the demo seller's quote endpoint; 0 (the default) picks a free one. */
  demoSellerPort?: number;
  /** Extra CA certificates (PEM) trusted by outbound calls: webhook deliveries and quote calls. */
  outboundCa?: string;
  /** Bearer token `GET /metrics` requires; open when absent. */
  metricsToken?: string;
  /** Reverse proxies whose X-Forwarded-For is believed (PlatformConfig.trustProxy). */
  trustProxy?: readonly string[];
  /** Run the webhook dispatcher in this process (default true). */
  dispatcher?: boolean;
  /** How long in-flight requests may take to finish on shutdown before their connections are cut (default 10 s). */
  shutdownGraceMs?: number;
  clock?: Clock;
  random?: Random;
}

export interface RunningPlatform {
  /** Where the server actually listens, e.g. `http://127.0.0.1:41234`. */
  listenUrl: string;
  port: number;
  publicUrl: string;
  authUrl: string;
  app: FastifyInstance;
  platform: PlatformContext;
  /** The demo credentials (seeded now or by an earlier start), if the demo exists in this database. */
  demo: DemoCredentials | undefined;
  /** True when this start planted the demo (the database was empty). */
  seededNow: boolean;
  /** The demo seller's quote endpoint the demo stores call (sandbox with a demo only). */
  demoSellerUrl: string | undefined;
  /** Graceful shutdown: stop accepting, let in-flight requests finish, stop workers, close the database. Idempotent. */
  close(): Promise<void>;
}

/** An address as a URL host: IPv6 in brackets; a wildcard bind is reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Stops accepting and waits for in-flight requests: idle keep-alive connections
 * go now, busy ones after their response (see the request hook in startPlatform),
 * and whatever is still open after `graceMs` is cut.
 */
async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  cut.unref();
  await closed;
  clearTimeout(cut);
}

function makeLogger(logger: StartPlatformOptions['logger'], to: DestinationStream | undefined): FastifyBaseLogger | false {
  if (logger === false) return false;
  if (typeof logger === 'object') return logger;
  // JSON logs go to stderr so stdout stays the human-readable banner. Requests are logged
  // without their query string: authorization codes and states travel there (/demo/callback?code=…),
  // and no token or secret may reach a log line.
  return pino(
    {
      level: logger ?? 'info',
      serializers: {
        req: (req: { method: string; url: string; id?: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      },
    },
    to ?? destination(2),
  ) as unknown as FastifyBaseLogger;
}

/**
 * Runs the whole platform in this process: open the database, migrate, bind
 * the port, build the app (its public URL may depend on the port actually
 * bound, when port 0 was asked), plant the demo on an empty database, start
 * the background workers. The socket is bound before the app is built so a
 * port-0 start knows its real URL; until the app is ready it answers 503.
 */
export async function startPlatform(options: StartPlatformOptions): Promise<RunningPlatform> {
  const logger = makeLogger(options.logger, options.logDestination);
  const database: Database = await openDatabase(options.databaseUrl, logger ? { log: logger } : {});
  let server: Server | undefined;
  let app: FastifyInstance | undefined;
  let workers: BackgroundWorkers | undefined;
  let demoSeller: DemoSeller | undefined;
  let closing = false;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ message: 'Starting up', slug: 'SERVICE_UNAVAILABLE', details: [] }));
  };

  const shutdown = async () => {
    closing = true;
    if (server?.listening) await closeGracefully(server, options.shutdownGraceMs ?? 10_000);
    await workers?.stop();
    await demoSeller?.close();
    await app?.close();
    await database.close();
  };

  try {
    await migrateToLatest(database);
    server = createServer((req, res) => {
      if (closing) {
        // A response finishing during shutdown must not keep its connection open for another request.
        res.shouldKeepAlive = false;
        res.on('finish', () => server?.closeIdleConnections());
      }
      handler(req, res);
    });
    // Node's own refusals (a 431 for a 20 kB query) in the platform error shape, not a bare status line (issue 17 §6).
    server.on('clientError', clientErrorHandler(options.random ?? cryptoRandom));
    const address = await listen(server, options.port, options.host);
    const listenUrl = `http://${urlHost(options.host)}:${address.port}`;
    const config = platformConfig({
      mode: options.mode,
      publicUrl: options.publicUrl ?? listenUrl,
      ...(options.authUrl ? { authUrl: options.authUrl } : {}),
      adminToken: options.adminToken,
      secretKey: options.secretKey,
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.trustProxy?.length ? { trustProxy: options.trustProxy } : {}),
    });
    const { publicUrl, authUrl } = config;
    app = await buildApp({
      config,
      database,
      ...(logger ? { logger } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.outboundCa ? { outboundCa: options.outboundCa } : {}),
    });
    await app.ready();
    const platform = app.platform;
    // Per-process metrics (docs/deploy.md): Node's own (CPU, memory, event-loop lag) and which process answered,
    // so a scrape through the shared port of `--workers` says whose figures these are.
    collectDefaultMetrics({ register: platform.metrics });
    new Gauge({
      name: 'feira_process_info',
      help: 'The process that answered this scrape (1 while it runs); its pid tells API workers apart',
      labelNames: ['pid'],
      registers: [platform.metrics],
    }).set({ pid: String(process.pid) }, 1);
    // On SQLite, the quote log's own file: opened (and any rows of an earlier version moved in) before the first request.
    await app.shipping.quoteLog.store.open();

    const { demo, seededNow } = await plantOrRecallDemo(platform, {
      seed: options.seed,
      dataDir: options.dataDir,
      ...(options.seedRecords ? { seedRecords: options.seedRecords } : {}),
    });
    if (demo && options.mode === 'sandbox' && (options.demoSeller ?? true)) {
      // The demo stores quote shipping against the demo seller, beside the platform.
      demoSeller = await startDemoSellerFor(platform, demo, options.demoSellerPort ?? 0);
    }

    const fastify = app;
    handler = (req, res) => fastify.routing(req, res);
    workers = await startBackgroundWorkers(platform, {
      dispatcher: options.dispatcher ?? true,
      readiness: app.readiness,
      ...(logger ? { databaseLog: logger } : {}),
    });

    let closePromise: Promise<void> | undefined;
    return {
      listenUrl,
      port: address.port,
      publicUrl,
      authUrl,
      app,
      platform,
      demo,
      seededNow,
      demoSellerUrl: demoSeller ? `${demoSeller.url}/quote` : undefined,
      close: () => {
        closePromise ??= shutdown();
        return closePromise;
      },
    };
  } catch (error) {
    await shutdown().catch(() => {});
    throw error;
  }
}
