import { demoLoginUrl, type RunningPlatform, startPlatform } from '@feira/platform';
import { type Command, Option } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { loadStartConfig, type StartConfig } from '../config/load-start-config.js';
import { START_SETTINGS, type StartFlags } from '../config/start-config.js';

/** Output of the command; tests and `bin.ts` pass the real streams. */
export interface StartIo {
  out(line: string): void;
  err(line: string): void;
}

function banner(config: StartConfig, running: RunningPlatform): string[] {
  const { publicUrl, authUrl, demo } = running;
  const lines = [
    `Feira is ready (${config.mode} mode, database ${running.platform.database.displayUrl})`,
    '',
    `  API          ${publicUrl}`,
    `  API docs     ${publicUrl}/docs`,
    `  OpenAPI      ${publicUrl}/openapi.json`,
    `  Health       ${publicUrl}/health`,
  ];
  if (demo) lines.push(`  Demo login   ${demoLoginUrl(authUrl, demo)}`);
  if (running.demoSellerUrl) lines.push(`  Demo quotes  ${running.demoSellerUrl}  (the demo stores' shipping-quote endpoint)`);
  lines.push('', 'Admin API (Authorization: Bearer <token>)');
  if (config.adminTokenSource === 'flag-or-env')
    lines.push('  token        the one given with --admin-token / FEIRA_ADMIN_TOKEN');
  else lines.push(`  token        ${config.adminToken}`, `               kept in ${config.adminTokenPath}`);
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
  lines.push('', `Listening on ${running.listenUrl} (press Ctrl-C to stop)`);
  return lines;
}

/**
 * `feira start`: the sandbox (issue 2 §5). Resolves config, starts the
 * platform, prints URLs and credentials once ready, and shuts down gracefully
 * on SIGINT/SIGTERM (a second signal forces the exit). Resolves with the exit code.
 */
export async function runStart(flags: StartFlags, io: StartIo): Promise<RunningPlatform | number> {
  let config: StartConfig;
  try {
    config = loadStartConfig(flags);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`feira start: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
  let running: RunningPlatform;
  try {
    running = await startPlatform({
      databaseUrl: config.databaseUrl,
      host: config.host,
      port: config.port,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      mode: config.mode,
      adminToken: config.adminToken,
      secretKey: config.secretKey,
      dataDir: config.dataDir,
      seed: config.seed,
      logger: config.logLevel === 'silent' ? false : config.logLevel,
      ...(config.outboundCa ? { outboundCa: config.outboundCa } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use (try --port)`
        : code === 'EACCES'
          ? `no permission to listen on ${config.host}:${config.port}`
          : (error as Error).message;
    io.err(`feira start: could not start: ${reason}`);
    return 1;
  }
  for (const line of banner(config, running)) io.out(line);
  return running;
}

export function register(program: Command): void {
  const S = START_SETTINGS;
  const command = program.command('start').description('Run the platform sandbox: API, identity provider, webhooks, docs');
  for (const setting of Object.values(S)) {
    command.addOption(new Option(setting.flag, `${setting.help} (env ${setting.env}; default ${setting.default})`));
  }
  command.action(async (flags: StartFlags) => {
    const io: StartIo = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
    const result = await runStart(flags, io);
    if (typeof result === 'number') {
      process.exitCode = result;
      return;
    }
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        io.err(`feira start: ${signal} again, exiting without waiting`);
        process.exit(1);
      }
      stopping = true;
      io.out(`\n${signal}: shutting down (finishing in-flight requests)…`);
      result.close().then(
        () => {
          io.out('Stopped.');
          process.exit(0);
        },
        (error: unknown) => {
          io.err(`feira start: error during shutdown: ${(error as Error).message}`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
