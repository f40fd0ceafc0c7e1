import { type Command, InvalidArgumentError } from 'commander';
import { settingFromEnv } from '../config/start-config.js';
import { AdminApi, AdminApiError } from '../sandbox/admin-api.js';
import { findSandbox, NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';

// `feira clock` and `feira clock advance <duration>`: the sandbox clock
// (POST /admin/v1/clock/advance), so an integrator sees "my token expired",
// "my old webhook secret stopped working", a retry falling due, without
// waiting. Refused by a platform in strict mode: the CLI says why.

const DURATION = /^([0-9]{1,6}[dhms])+$/;

interface ClockOptions extends SandboxFlags {
  adminToken?: string;
  json?: boolean;
}

interface ClockView {
  now: string;
  system_now: string;
  offset_seconds: number;
}

class ClockError extends Error {}

function api(options: ClockOptions): AdminApi {
  const sandbox = findSandbox(options);
  // The admin token never appears in output or errors.
  const token = options.adminToken ?? sandbox.adminToken;
  if (!token) throw new ClockError(`no admin token: pass --admin-token or set FEIRA_ADMIN_TOKEN (none in ${sandbox.dataDir})`);
  return new AdminApi(sandbox.url, token);
}

/** "2h 30m ahead of the host" */
function ahead(seconds: number): string {
  if (seconds === 0) return 'not moved: the host clock';
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return `${parts.join(' ')} ahead of the host`;
}

function print(view: ClockView, options: ClockOptions): void {
  console.log(options.json ? JSON.stringify(view) : `sandbox time ${view.now} (${ahead(view.offset_seconds)})`);
}

/** Runs a clock action, printing a refusal (strict mode, a bad duration, no sandbox) as one line and exit 1. */
async function run(options: ClockOptions, action: (admin: AdminApi) => Promise<unknown>): Promise<void> {
  try {
    print((await action(api(options))) as ClockView, options);
  } catch (error) {
    if (!(error instanceof ClockError || error instanceof NoSandboxError || error instanceof AdminApiError)) throw error;
    if (options.json) console.log(JSON.stringify({ error: error.message }));
    console.error(`feira clock: ${error.message}`);
    process.exitCode = 1;
  }
}

const withToken = (raw: ClockOptions): ClockOptions => ({
  ...raw,
  adminToken: raw.adminToken ?? settingFromEnv('platform.adminToken'),
});

export function register(program: Command): void {
  const clock = program
    .command('clock')
    .description("Show the sandbox's clock (the platform's time and how far it was moved ahead)")
    .option('--admin-token <token>', 'admin API token (env FEIRA_ADMIN_TOKEN; default <data-dir>/admin-token)')
    .option('--json', 'print the result as JSON');
  sandboxOptions(clock).action(async (raw: ClockOptions) => run(withToken(raw), (admin) => admin.get('/admin/v1/clock')));

  // The options are the parent's (`feira clock advance 2h --url …` gives them to `clock`): read with its own.
  clock
    .command('advance')
    .description('Move the sandbox clock forward: tokens, codes and secret graces expire, retries fall due, retention sweeps')
    .argument('<duration>', 'how far: whole days, hours, minutes, seconds (2h, 1d12h, 90m), at most 366d', (value: string) => {
      if (!DURATION.test(value)) throw new InvalidArgumentError('must be like 2h, 90m, 1d12h or 30s');
      return value;
    })
    .action(async (duration: string, _options: object, command: Command) =>
      run(withToken(command.optsWithGlobals<ClockOptions>()), (admin) =>
        admin.send('POST', '/admin/v1/clock/advance', { duration }),
      ),
    );
}
