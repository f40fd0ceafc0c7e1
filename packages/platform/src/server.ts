import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type DestinationStream, destination, pino } from 'pino';
import { collectDefaultMetrics, Gauge } from 'prom-client';
import type { Clock } from './core/clock.js';
import type { Random } from './core/random.js';
import { configureDemoGatewayShipping, startDemoGateway } from './demo/demo-gateway.js';
import { plantOrRecallDemo, startDemoSellerFor } from './demo/demo-sandbox.js';
import type { DemoCredentials, DemoRecordsSeeder } from './demo/demo-seed.js';
import type { PlatformContext } from './http/platform-context.js';
import { createPlatform, type PlatformConfigSource } from './platform.js';

/** What `feira start` hands over once its config is resolved; nothing here reads flags or environment. */
export interface StartPlatformOptions {
  /** `sqlite:<path>` or `postgres://…`. */
  databaseUrl: string;
  host: string;
  /** 0 picks a free port; the real one is in `RunningPlatform.port`. */
  port: number;
  /** Serve HTTPS with this certificate and key (the sandbox's, from its local CA); absent: plain HTTP. */
  tls?: { cert: string; key: string };
  /**
   * The platform's settings (PlatformConfig: the settings schema's platform group, the CLI hands over what it
   * read); a public URL left out is `http(s)://<host>:<actual port>`.
   */
  config: PlatformConfigSource;
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
  /**
   * Sandbox with a demo: `melhor_envio` starts a fake Melhor Envio beside the platform (its URL the Melhor Envio
   * base URL of this run) and the first demo store quotes through it (D60). Default `none`.
   */
  demoGateway?: 'melhor_envio' | 'none';
  /** Extra CA certificates (PEM) trusted by outbound calls: webhook deliveries and quote calls. */
  outboundCa?: string;
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
  /** The fake Melhor Envio's base URL, with `demoGateway: 'melhor_envio'` (D60). */
  demoGatewayUrl: string | undefined;
  /** Graceful shutdown: stop accepting, let in-flight requests finish, stop workers, close the database. Idempotent. */
  close(): Promise<void>;
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
 * Runs the whole platform in this process, a thin layer over the composition
 * root (platform.ts), which opens and migrates the database, binds the port
 * and builds the app (its public URL may depend on the port actually bound,
 * when port 0 was asked). What this adds is what a long-running process
 * wants: logs on stderr, per-process metrics, the quote log's file opened
 * before the first request, the demo planted on an empty database and its
 * quote endpoint, and the graceful close.
 */
export async function startPlatform(options: StartPlatformOptions): Promise<RunningPlatform> {
  const logger = makeLogger(options.logger, options.logDestination);
  let demo: DemoCredentials | undefined;
  let seededNow = false;
  let demoSellerUrl: string | undefined;
  // D60: the fake gateway runs before the platform, so its URL can be the config's Melhor Envio base URL.
  const demoGateway =
    options.config.mode === 'sandbox' && options.demoGateway === 'melhor_envio' ? await startDemoGateway() : undefined;
  const platform = await createPlatform({
    databaseUrl: options.databaseUrl,
    roles: { api: true, dispatcher: options.dispatcher ?? true },
    listen: {
      host: options.host,
      port: options.port,
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    },
    config: demoGateway
      ? { ...options.config, gateways: { ...options.config.gateways, melhorEnvio: demoGateway.url } }
      : options.config,
    ...(logger ? { logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.outboundCa ? { outboundCa: options.outboundCa } : {}),
    beforeServe: async ({ app, context, deferClose }) => {
      // Per-process metrics (docs/deploy.md): Node's own (CPU, memory, event-loop lag) and which process answered,
      // so a scrape through the shared port of `--workers` says whose figures these are.
      collectDefaultMetrics({ register: context.metrics });
      new Gauge({
        name: 'feira_process_info',
        help: 'The process that answered this scrape (1 while it runs); its pid tells API workers apart',
        labelNames: ['pid'],
        registers: [context.metrics],
      }).set({ pid: String(process.pid) }, 1);
      // On SQLite, the quote log's own file: opened (and any rows of an earlier version moved in) before the first request.
      await app?.shipping.quoteLog.store.open();
      ({ demo, seededNow } = await plantOrRecallDemo(context, {
        seed: options.seed,
        dataDir: options.dataDir,
        ...(options.seedRecords ? { seedRecords: options.seedRecords } : {}),
      }));
      if (demo && options.config.mode === 'sandbox' && (options.demoSeller ?? true)) {
        // The demo stores quote shipping against the demo seller, beside the platform.
        const seller = await startDemoSellerFor(context, demo, options.demoSellerPort ?? 0);
        deferClose(() => seller.close());
        demoSellerUrl = `${seller.url}/quote`;
      }
      if (demoGateway) {
        deferClose(() => demoGateway.close());
        const first = demo?.tenants[0];
        if (first) await configureDemoGatewayShipping(context, first.id);
      }
    },
  }).catch(async (error: unknown) => {
    await demoGateway?.close();
    throw error;
  });
  const app = platform.app as FastifyInstance;
  return {
    listenUrl: platform.listenUrl as string,
    port: platform.port as number,
    publicUrl: platform.context.config.publicUrl,
    authUrl: platform.context.config.authUrl,
    app,
    platform: platform.context,
    demo,
    seededNow,
    demoSellerUrl,
    demoGatewayUrl: demoGateway?.url,
    close: () => platform.close(),
  };
}
