import type { RunningPlatform } from '@feira/platform';
import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { loadStartConfig, type StartConfig } from '../config/load-start-config.js';
import { resolveStartSettings, type StartFlags, settingOption, settingsOf } from '../config/start-config.js';
import { snapshotDataDir } from '../sandbox/data-dir-snapshot.js';
import { type LocalCa, outboundTrustOf, sandboxServerTls } from '../sandbox/local-ca.js';
import { removeSandboxRecord, SANDBOX_RECORD_FILE, writeSandboxRecord } from '../sandbox/sandbox-record.js';
import { logDestination } from '../sandbox/start-logger.js';
import { stopSignal } from '../stop-signals.js';
import { type ClusterFlags, clusterReady, clusterRole, inCluster, startClusterIfAsked } from './start-cluster.js';

/** Output of the command; tests and `bin.ts` pass the real streams. */
export interface StartIo {
  out(line: string): void;
  err(line: string): void;
}

function banner(
  config: StartConfig,
  running: RunningPlatform,
  localCa: LocalCa | undefined,
  demoLoginUrl: (authUrl: string, demo: NonNullable<RunningPlatform['demo']>) => string,
): string[] {
  const { publicUrl, authUrl, demo } = running;
  const lines = [
    `Feira is ready (${config.platform.mode} mode, database ${running.platform.database.displayUrl})`,
    '',
    `  API          ${publicUrl}`,
    `  API docs     ${publicUrl}/docs`,
    `  OpenAPI      ${publicUrl}/openapi.json`,
    `  Health       ${publicUrl}/health`,
    `  Console      ${publicUrl}/console  (sellers: sign in with a seller's login${demo ? ', e.g. the demo seller below' : ''})`,
    `  Operator     ${publicUrl}/console/operator  (sign in with the admin token below)`,
  ];
  if (demo) lines.push(`  Demo login   ${demoLoginUrl(authUrl, demo)}`);
  if (running.demoSellerUrl) lines.push(`  Demo quotes  ${running.demoSellerUrl}  (the demo stores' shipping-quote endpoint)`);
  if (running.demoGatewayUrl)
    lines.push(`  Demo gateway ${running.demoGatewayUrl}  (a fake Melhor Envio: the first demo store quotes through it)`);
  lines.push('', 'Admin API (Authorization: Bearer <token>)');
  if (config.adminTokenSource === 'flag-or-env')
    lines.push('  token        the one given with --admin-token / FEIRA_ADMIN_TOKEN');
  else lines.push(`  token        ${config.platform.adminToken}`, `               kept in ${config.adminTokenPath}`);
  if (demo) {
    lines.push(
      '',
      `Demo seller${running.seededNow ? ' (created now)' : ''}`,
      `  login        ${demo.sellerLogin}`,
      `  password     ${demo.sellerPassword}`,
      ...demo.tenants.map((t) => `  store        ${t.name}  ${t.id}`),
      '',
      'Demo client app "Feira demo app"',
      `  client_id     ${demo.clientId}`,
      `  client_secret ${demo.clientSecret}`,
      `  redirect_uri  ${demo.redirectUri}`,
      `               kept in ${config.dataDir}/demo-credentials.json`,
    );
  }
  if (!demo && config.seed === 'demo') {
    lines.push(
      '',
      `No demo: the database already had accounts and ${config.dataDir}/demo-credentials.json does not name one of them.`,
    );
  }
  if (config.https && localCa) {
    lines.push(
      '',
      `HTTPS, certified by this data folder's local CA ${localCa.certFile} (--http serves plain HTTP)`,
      '  feira commands trust it themselves; for your own code and tools:',
      `  Node         NODE_EXTRA_CA_CERTS=${localCa.certFile} node your-app.js`,
      `  curl         curl --cacert ${localCa.certFile} ${publicUrl}/health`,
      '  system store and browsers: npx feira trust',
    );
  }
  lines.push('', `Data folder ${config.dataDir} (other feira commands find this sandbox through ${SANDBOX_RECORD_FILE} there)`);
  if (demo && config.platform.mode === 'sandbox') {
    lines.push(
      'Next, in other terminals of this folder: npx feira login; node examples/webhook-receiver/receiver.mjs;',
      '  npx feira listen --forward-to http://127.0.0.1:4000/hooks; npx feira trigger order',
    );
  }
  lines.push('', `Listening on ${running.listenUrl} (press Ctrl-C to stop)`);
  return lines;
}

/**
 * A database that cannot be reached or does not exist, said with its URL
 * (password hidden) and what to do, rather than the driver's bare
 * "connect ECONNREFUSED" or 'database "x" does not exist'. Undefined for other errors.
 */
function databaseProblem(error: unknown, databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('postgres')) return undefined;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return undefined;
  }
  if (url.password) url.password = '***';
  const shown = url.toString();
  const name = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
  const codes = [error, ...((error as { errors?: unknown[] }).errors ?? [])].map((e) => (e as { code?: string } | null)?.code);
  if (codes.includes('3D000')) {
    const host = url.hostname ? ` -h ${url.hostname}` : '';
    const port = url.port ? ` -p ${url.port}` : '';
    const user = url.username ? ` -U ${decodeURIComponent(url.username)}` : '';
    return `the database ${shown} does not exist: create it with \`createdb${host}${port}${user} ${name}\`, then start again`;
  }
  if (codes.some((c) => c === 'ECONNREFUSED' || c === 'ENOTFOUND' || c === 'EHOSTUNREACH' || c === 'ETIMEDOUT'))
    return `cannot reach the database ${shown} (${(error as Error).message}): is PostgreSQL running there? (a new database: \`createdb ${name}\`)`;
  return undefined;
}

/**
 * `feira start`: the sandbox. Resolves config, starts the
 * platform, prints URLs and credentials once ready, and shuts down gracefully
 * on SIGINT/SIGTERM (a second signal forces the exit). Resolves with the exit code.
 */
export async function runStart(flags: StartFlags & ClusterFlags, io: StartIo): Promise<RunningPlatform | number> {
  const role = clusterRole(flags);
  let config: StartConfig;
  let snapshot: { restore(): void } | undefined;
  try {
    // Taken before anything is written, so a failed start leaves the folder as it was.
    snapshot = snapshotDataDir(resolveStartSettings(flags, process.env).dataDir);
    config = loadStartConfig(flags);
  } catch (error) {
    snapshot?.restore();
    if (error instanceof ConfigError) {
      io.err(`feira start: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
  let running: RunningPlatform;
  let localCa: LocalCa | undefined;
  try {
    const trust = outboundTrustOf({ ...config, mode: config.platform.mode });
    localCa = trust.localCa;
    const { outboundCa } = trust;
    const destination = logDestination(config.logFormat);
    // The server is loaded only once a start is really asked for: `feira --help` and the client commands never pay for it.
    const { startPlatform } = await import('@feira/platform');
    running = await startPlatform({
      databaseUrl: config.databaseUrl,
      host: config.host,
      port: config.port,
      ...(config.https && localCa ? { tls: sandboxServerTls(localCa, config.host, config.platform.publicUrl) } : {}),
      // The platform's settings go over whole, as read against the schema.
      config: config.platform,
      dataDir: config.dataDir,
      seed: role.seed ? config.seed : 'none',
      dispatcher: role.dispatcher,
      demoSeller: role.seed,
      logger: config.logLevel === 'silent' ? false : config.logLevel,
      ...(destination ? { logDestination: destination } : {}),
      demoSellerPort: config.quotePort,
      demoGateway: config.demoGateway,
      ...(outboundCa ? { outboundCa } : {}),
    });
    if (role.banner)
      writeSandboxRecord(config.dataDir, {
        url: running.publicUrl,
        pid: process.pid,
        admin_token_file: config.adminTokenPath ?? null,
        demo_quote_url: running.demoSellerUrl ?? null,
        local_ca_file: localCa?.certFile ?? null,
        mode: config.platform.mode,
        database: running.platform.database.displayUrl,
        started_at: new Date().toISOString(),
      });
  } catch (error) {
    snapshot.restore();
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${(error as { port?: number }).port ?? config.port} on ${config.host} is already in use (try --port, or --quote-port for the demo quote endpoint)`
        : code === 'EACCES'
          ? `no permission to listen on ${config.host}:${config.port}`
          : (databaseProblem(error, config.databaseUrl) ?? (error as Error).message);
    io.err(`feira start: could not start: ${reason}`);
    return 1;
  }
  if (!role.banner) {
    // A cluster worker other than the first: the first one prints and records the sandbox.
    io.out(`Worker pid ${process.pid} serving ${running.listenUrl}`);
    clusterReady();
    return running;
  }
  // In a cluster the primary says Listening once every worker is ready (start-cluster.ts).
  const lines = banner(config, running, localCa, (await import('@feira/platform')).demoLoginUrl);
  for (const line of inCluster() ? lines.slice(0, -2) : lines) io.out(line);
  clusterReady(running.listenUrl);
  const close = running.close;
  return {
    ...running,
    close: () => {
      removeSandboxRecord(config.dataDir);
      return close();
    },
  };
}

export function register(program: Command): void {
  const command = program.command('start').description('Run the platform sandbox: API, identity provider, webhooks, docs');
  for (const leaf of settingsOf('start')) if (leaf.schema.flag) command.addOption(settingOption(leaf));
  command.action(async (flags: StartFlags & ClusterFlags) => {
    const io: StartIo = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
    if (await startClusterIfAsked(flags, io)) return;
    // Listened for before the banner: a SIGTERM sent on reading it must find the handler. One sent
    // while the platform starts shuts it down once it has started.
    const signalled = stopSignal('feira start');
    let started = false;
    void signalled.then((signal) => {
      if (!started) io.err(`feira start: ${signal} while starting; stopping once started (press Ctrl-C again to exit now)`);
    });
    const result = await runStart(flags, io);
    started = true;
    if (typeof result === 'number') {
      process.exitCode = result;
      return;
    }
    const signal = await signalled;
    io.out(`\n${signal}: shutting down (finishing in-flight requests)…`);
    try {
      await result.close();
    } catch (error) {
      io.err(`feira start: error during shutdown: ${(error as Error).message}`);
      process.exit(1);
    }
    io.out('Stopped.');
    process.exit(0);
  });
}
