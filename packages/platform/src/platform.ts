import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp, createPlatformContext } from './app.js';
import { systemClock } from './core/clock.js';
import { type PlatformConfigInput, platformConfig } from './core/config.js';
import { cryptoRandom } from './core/random.js';
import { clientErrorHandler } from './http/client-error.js';
import type { PlatformContext } from './http/platform-context.js';
import { answerStartingUp, answerUnavailable } from './http/service-unavailable.js';
import { prepareDatabase } from './prepare-database.js';
import { BUILT_IN_RECORD_KINDS } from './records/index.js';
import type { Database } from './storage/database.js';
import type { DatabaseLog } from './storage/lost-connection.js';
import { SandboxClock } from './storage/sandbox-clock.js';
import type { WebhookDispatcherOptions } from './webhooks/index.js';
import { type BackgroundWorkers, startBackgroundWorkers } from './workers.js';

/** What a process runs: `feira start` both, `feira start --no-dispatcher` the API, `feira dispatch` the dispatcher. */
export interface PlatformRoles {
  /** Serve the HTTP API: the Fastify app with its identity and shipping services. */
  api: boolean;
  /** Run the webhook dispatcher in this process, tuned by `config.dispatcher`. */
  dispatcher: boolean;
}

/**
 * Where the API listens. The socket is bound before the app is built, so a
 * port-0 start knows its URL (the public URL when none is configured); until
 * the app is ready it answers 503.
 */
export interface PlatformListen {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** How long in-flight requests may take to finish on close before their connections are cut (default 10 s). */
  shutdownGraceMs?: number;
  /** Serve HTTPS with this certificate (PEM, its chain after it) and key; absent: plain HTTP. */
  tls?: { cert: string; key: string };
}

/** A config, whose public URL may be left out when the platform listens: it is then the listening URL. */
export type PlatformConfigSource = Omit<PlatformConfigInput, 'publicUrl'> & { publicUrl?: string };

export type CreatePlatformOptions = Omit<AppDeps, 'config' | 'database'> & {
  config: PlatformConfigSource;
  roles: PlatformRoles;
  /** Bind a socket and serve the API on it (api role only). */
  listen?: PlatformListen;
  /** Where a lost PostgreSQL connection is reported; default the logger, when one is given. */
  databaseLog?: DatabaseLog;
  /** Where the dispatcher reports a failed pass (and, with `info`, the background re-seal its progress; else the logger). */
  workerLog?: { error(obj: object, message: string): void; info?(obj: object, message: string): void };
  /**
   * Sandbox mode: how often this process reads the sandbox clock's shared offset again, in ms (default 1000);
   * 0 reads it at start only (a test process whose one platform moves it itself).
   */
  sandboxClockRefreshMs?: number;
  /** Overrides of the dispatcher's tuning over `config.dispatcher` (tests: a worker name, a short poll). */
  dispatcherOptions?: WebhookDispatcherOptions;
  /**
   * Runs once the app is ready and before it serves a request or the
   * dispatcher starts: what an entry point plants or opens first (the demo,
   * the quote log's file, per-process metrics). What it starts it hands to
   * `deferClose`, so a start that fails later closes it too.
   */
  beforeServe?: (platform: {
    app: FastifyInstance | undefined;
    context: PlatformContext;
    deferClose(close: () => Promise<void>): void;
  }) => Promise<void>;
} & (
    | { /** An open, migrated database; its opener closes it, after the handle. */ database: Database; databaseUrl?: never }
    | {
        /** `sqlite:<path>` or `postgres://…`, opened and migrated here, closed by the handle. */ databaseUrl: string;
        database?: never;
      }
  );

/** A running platform: what its roles built, and the one way to stop it. */
export interface Platform {
  context: PlatformContext;
  database: Database;
  /** The HTTP app (api role). */
  app: FastifyInstance | undefined;
  /** The background loops (dispatcher role). */
  workers: BackgroundWorkers | undefined;
  /** Where the socket listens, e.g. `http://127.0.0.1:41234` (with `listen`). */
  listenUrl: string | undefined;
  port: number | undefined;
  /** Something the caller started on top (the demo seller): closed after the socket, before the workers. */
  deferClose(close: () => Promise<void>): void;
  /**
   * Stops in one order, each step after the one before has finished: the
   * socket (in-flight requests finish, within the grace), what was deferred,
   * the dispatcher (in-flight deliveries finish), the app, and the database
   * if it opened it. Idempotent.
   */
  close(): Promise<void>;
}

/** An address as a URL host: IPv6 in brackets; a wildcard bind is reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function bind(server: Server, port: number, host: string): Promise<AddressInfo> {
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
 * go now, busy ones after their response (see the request hook below), and
 * whatever is still open after `graceMs` is cut.
 */
async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  cut.unref();
  await closed;
  clearTimeout(cut);
}

/**
 * The composition root: opens and prepares the database (`prepareDatabase`),
 * or takes an open one, builds the shared services, and by role the HTTP
 * app (with its identity and shipping services) and the background workers.
 * `startPlatform` (`feira start` and its `--workers` children), `feira
 * dispatch` and the test kit all build the platform here.
 */
export async function createPlatform(options: CreatePlatformOptions): Promise<Platform> {
  const {
    roles,
    listen,
    databaseLog,
    workerLog,
    dispatcherOptions,
    sandboxClockRefreshMs,
    beforeServe,
    config: configSource,
    database: given,
    databaseUrl,
    ...deps
  } = options;
  if (listen && !roles.api) throw new Error('createPlatform: only the api role listens');
  const progressLog = workerLog?.info
    ? (workerLog as Required<typeof workerLog>)
    : typeof deps.logger === 'object'
      ? deps.logger
      : undefined;
  const logAs = databaseLog ?? (typeof deps.logger === 'object' ? deps.logger : undefined);
  const recordKinds = deps.recordKinds ?? BUILT_IN_RECORD_KINDS;
  // A database given open is its opener's, migrated by it; only the declared tables of these kinds are made sure of.
  const database = given
    ? await prepareDatabase(given, { migrate: false, recordKinds })
    : await prepareDatabase(databaseUrl as string, { recordKinds, ...(logAs ? { open: { log: logAs } } : {}) });

  let server: Server | undefined;
  let app: FastifyInstance | undefined;
  let workers: BackgroundWorkers | undefined;
  let sandboxClock: SandboxClock | undefined;
  const deferred: Array<() => Promise<void>> = [];
  const deferClose = (close: () => Promise<void>) => void deferred.push(close);
  let closing = false;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = answerStartingUp(deps.random ?? cryptoRandom);

  const shutdown = async () => {
    closing = true;
    if (server?.listening) await closeGracefully(server, listen?.shutdownGraceMs ?? 10_000);
    for (const close of deferred.reverse()) await close();
    await workers?.stop();
    await app?.close();
    sandboxClock?.stop();
    if (!given) await database.close();
  };

  try {
    let listenUrl: string | undefined;
    let port: number | undefined;
    if (listen) {
      const serve = (req: IncomingMessage, res: ServerResponse) => {
        if (closing) {
          // A response finishing during shutdown must not keep its connection open for another request.
          res.shouldKeepAlive = false;
          res.on('finish', () => server?.closeIdleConnections());
        }
        handler(req, res);
      };
      // An https.Server is a net.Server serving HTTP over TLS: the same listen, close and idle-connection calls.
      server = listen.tls
        ? (createTlsServer({ cert: listen.tls.cert, key: listen.tls.key }, serve) as unknown as Server)
        : createServer(serve);
      // Node's own refusals (a 431 for a 20 kB query) in the platform error shape, not a bare status line.
      server.on('clientError', clientErrorHandler(deps.random ?? cryptoRandom));
      port = (await bind(server, listen.port, listen.host)).port;
      listenUrl = `${listen.tls ? 'https' : 'http'}://${urlHost(listen.host)}:${port}`;
    }
    const publicUrl = configSource.publicUrl ?? listenUrl;
    if (publicUrl === undefined) throw new Error('createPlatform: a public URL is needed when the platform does not listen');
    const config = platformConfig({ ...configSource, publicUrl });
    // Sandbox mode: the operator may move time forward; every service of this process reads it through `clock`.
    if (config.mode === 'sandbox') {
      sandboxClock = await SandboxClock.open(database.db, deps.clock ?? systemClock, {
        refreshMs: sandboxClockRefreshMs ?? 1000,
      });
    }
    const clocks = sandboxClock ? { clock: sandboxClock, sandboxClock } : {};
    let context: PlatformContext;
    if (roles.api) {
      app = await buildApp({ ...deps, ...clocks, config, database });
      await app.ready();
      context = app.platform;
    } else {
      context = createPlatformContext({ ...deps, ...clocks, config, database });
    }
    await beforeServe?.({ app, context, deferClose });
    if (app && server) {
      const fastify = app;
      const shuttingDown = answerUnavailable('HTTP_SHUTTING_DOWN', deps.random ?? cryptoRandom);
      handler = (req, res) => (fastify.shuttingDown ? shuttingDown(req, res) : fastify.routing(req, res));
    }
    if (roles.dispatcher) {
      workers = await startBackgroundWorkers(context, {
        dispatcher: true,
        ...(dispatcherOptions ? { dispatcherOptions } : {}),
        ...(workerLog ? { log: workerLog } : {}),
        ...(logAs ? { databaseLog: logAs } : {}),
        ...(progressLog ? { progressLog } : {}),
        ...(app ? { readiness: app.readiness, quoteLog: app.shipping.quoteLog.store } : {}),
      });
    }

    let closePromise: Promise<void> | undefined;
    return {
      context,
      database,
      app,
      workers,
      listenUrl,
      port,
      deferClose,
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
