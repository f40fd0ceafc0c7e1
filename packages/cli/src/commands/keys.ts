import type { Command } from 'commander';
import { settingFromEnv } from '../config/start-config.js';
import { AdminApi, AdminApiError } from '../sandbox/admin-api.js';
import { findSandbox, NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';

// `feira keys status` and `feira keys rotate`: the signing keys with their
// states (GET /admin/v1/signing-keys) and the server secret's re-seal
// (GET /admin/v1/secret-key); a rotation publishes a new key that signs after
// the publish delay (POST /admin/v1/signing-keys/rotate). Every process on the
// database takes the new key without a restart (docs/deploy.md "Rotating keys").

interface KeysOptions extends SandboxFlags {
  adminToken?: string;
  json?: boolean;
}

interface SigningKeyView {
  kid: string;
  state: 'next' | 'current' | 'previous' | 'retired';
  published_at: string;
  signs_from: string;
  signs_until: string | null;
  retires_at: string | null;
}

interface SigningKeyList {
  data: SigningKeyView[];
  publish_delay_seconds: number;
  retire_after_seconds: number;
}

interface SecretKeyStatus {
  kid: string;
  previous_kids: string[];
  remaining: number;
  columns: Array<{ table: string; column: string; sealed: number; remaining: number }>;
}

class KeysError extends Error {}

function api(options: KeysOptions): AdminApi {
  const sandbox = findSandbox(options);
  // The admin token never appears in output or errors.
  const token = options.adminToken ?? sandbox.adminToken;
  if (!token) throw new KeysError(`no admin token: pass --admin-token or set FEIRA_ADMIN_TOKEN (none in ${sandbox.dataDir})`);
  return new AdminApi(sandbox.url, token);
}

/** One line per key: its state and the dates that matter to it. */
function keyLine(key: SigningKeyView): string {
  switch (key.state) {
    case 'next':
      return `${key.kid}  next      published ${key.published_at}, signs from ${key.signs_from}`;
    case 'current':
      return `${key.kid}  current   signing since ${key.signs_from}`;
    case 'previous':
      return `${key.kid}  previous  stopped signing ${key.signs_until}, leaves the JWKS at ${key.retires_at}`;
    default:
      return `${key.kid}  retired   left the JWKS at ${key.retires_at}`;
  }
}

function secretLines(status: SecretKeyStatus): string[] {
  const lines = [
    `server secret ${status.kid}${status.previous_kids.length ? `, still reading ${status.previous_kids.join(', ')}` : ''}`,
  ];
  if (status.remaining === 0) {
    lines.push(
      status.previous_kids.length
        ? 'every sealed value is under the current secret: FEIRA_SECRET_KEY_PREVIOUS may be dropped once refresh tokens signed before the change expired'
        : 'every sealed value is under the current secret',
    );
  } else {
    lines.push(`${status.remaining} sealed values still under another secret (the background re-seal is working through them)`);
    for (const c of status.columns.filter((c) => c.remaining > 0))
      lines.push(`  ${c.table}.${c.column}: ${c.remaining} of ${c.sealed}`);
  }
  return lines;
}

/** Runs an action, printing a refusal (no sandbox, a 409 while a key waits) as one line and exit 1. */
async function run(options: KeysOptions, action: (admin: AdminApi) => Promise<{ json: unknown; lines: string[] }>) {
  try {
    const { json, lines } = await action(api(options));
    console.log(options.json ? JSON.stringify(json) : lines.join('\n'));
  } catch (error) {
    if (!(error instanceof KeysError || error instanceof NoSandboxError || error instanceof AdminApiError)) throw error;
    if (options.json) console.log(JSON.stringify({ error: error.message }));
    console.error(`feira keys: ${error.message}`);
    process.exitCode = 1;
  }
}

const withToken = (raw: KeysOptions): KeysOptions => ({
  ...raw,
  adminToken: raw.adminToken ?? settingFromEnv('platform.adminToken'),
});

export function register(program: Command): void {
  const keys = program
    .command('keys')
    .description('Signing keys and the server secret: their states, a rotation with no restart (docs/deploy.md "Rotating keys")')
    .option('--admin-token <token>', 'admin API token (env FEIRA_ADMIN_TOKEN; default <data-dir>/admin-token)')
    .option('--json', 'print the result as JSON');
  sandboxOptions(keys);

  // The options are the parent's (`feira keys status --url …` gives them to `keys`): read with its own.
  keys
    .command('status')
    .description("The signing keys (next, current, previous, retired) and the server secret's re-seal")
    .action(async (_options: object, command: Command) =>
      run(withToken(command.optsWithGlobals<KeysOptions>()), async (admin) => {
        const list = (await admin.get('/admin/v1/signing-keys')) as SigningKeyList;
        const secret = (await admin.get('/admin/v1/secret-key')) as SecretKeyStatus;
        return {
          json: { signing_keys: list, secret_key: secret },
          lines: [...list.data.map(keyLine), ...secretLines(secret)],
        };
      }),
    );

  keys
    .command('rotate')
    .description(
      'Publish a new signing key: in the JWKS now, signing after the publish delay; the old one stays until its tokens expire',
    )
    .action(async (_options: object, command: Command) =>
      run(withToken(command.optsWithGlobals<KeysOptions>()), async (admin) => {
        const key = (await admin.send('POST', '/admin/v1/signing-keys/rotate')) as SigningKeyView;
        return { json: key, lines: [`published ${key.kid}: in the JWKS now, signs from ${key.signs_from}`] };
      }),
    );
}
