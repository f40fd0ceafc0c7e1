import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCOPE_NAMES } from '@feira/contract';
import { authorizationUrl, createPkce, exchangeCode, OAuthError } from '@feira/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { findSandbox, NoSandboxError, type SandboxFlags, sandboxOptions } from '../sandbox/find-sandbox.js';
import { LOGIN_FILE, type LoginFile, loginTokens, readLogin, tenantsOfToken, writeLogin } from '../sandbox/login-store.js';

// `feira login`, like `stripe login`: the authorization-code flow
// with PKCE against the sandbox, as a native app does it (RFC 8252): the CLI
// listens on a loopback port, the seller logs in and picks stores in the
// browser, the browser comes back to the CLI with the code. The tokens go to
// the data folder (0600); `feira token` and `feira listen` use them.

/** A path as one shell word: quoted when it holds anything a shell would split or expand. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The path registered for the CLI's loopback redirect (demo-seed DEMO_CLI_REDIRECT_URI, any port: RFC 8252 §7.3). */
const CALLBACK_PATH = '/feira-cli/callback';
const LOGIN_TIMEOUT_MS = 10 * 60_000;

interface LoginOptions extends SandboxFlags {
  browser: boolean;
  clientId?: string;
  clientSecret?: string;
  scopes?: string;
  port?: number;
}

class LoginError extends Error {}

/** Opens the URL in the desktop's browser when there is one; false when there is none to open. */
function openBrowser(url: string): boolean {
  const platform = process.platform;
  const hasDisplay = platform === 'darwin' || platform === 'win32' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  if (!hasDisplay) return false;
  const [command, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;
}

/** The loopback receiver: resolves with the code once the browser comes back with this login's state. */
function awaitCallback(server: Server, state: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LoginError('no answer from the browser within 10 minutes')), LOGIN_TIMEOUT_MS);
    timer.unref();
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== CALLBACK_PATH) {
        res.writeHead(404).end();
        return;
      }
      const headers = {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      };
      // RFC 6749 §10.12: a callback without this login's state is not ours (CSRF); it is ignored.
      if (url.searchParams.get('state') !== state) {
        res.writeHead(400, headers).end(page('Not this login', 'This page does not belong to the running feira login.'));
        return;
      }
      clearTimeout(timer);
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      if (error || !code) {
        res.writeHead(200, headers).end(page('Login cancelled', 'You can close this tab.'));
        reject(new LoginError(`the login was not completed (${error ?? 'no code'})`));
        return;
      }
      res.writeHead(200, headers).end(page('Logged in to Feira', 'You can close this tab and return to the terminal.'));
      resolve(code);
    });
  });
}

async function login(options: LoginOptions): Promise<void> {
  const sandbox = findSandbox(options);
  const clientId = options.clientId ?? sandbox.demo?.clientId;
  const clientSecret = options.clientSecret ?? process.env.FEIRA_CLIENT_SECRET ?? sandbox.demo?.clientSecret;
  if (!clientId || !clientSecret) {
    throw new LoginError(
      `no client: the data folder ${sandbox.dataDir} has no demo credentials; pass --client-id and --client-secret of a client that registered http://127.0.0.1${CALLBACK_PATH}`,
    );
  }
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new LoginError(
              `port ${options.port} on 127.0.0.1 is already in use: pick another --port, or leave it out for any free one`,
            )
          : error,
      ),
    );
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  try {
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
    const pkce = createPkce();
    const state = randomBytes(16).toString('hex');
    const scopes = options.scopes ? options.scopes.split(/[\s,]+/).filter(Boolean) : [...SCOPE_NAMES];
    const url = authorizationUrl({ authUrl: sandbox.url, clientId, redirectUri, scopes, state, chooseTenants: true, pkce });
    const code = awaitCallback(server, state);
    const opened = options.browser && openBrowser(url);
    console.log(
      `${opened ? 'Your browser is opening the login page; if it does not, open' : 'Open'} this URL to log in and pick your stores:\n\n  ${url}\n`,
    );
    if (sandbox.demo) console.log(`Demo seller: ${sandbox.demo.sellerLogin} / ${sandbox.demo.sellerPassword}\n`);
    console.log('Waiting for the browser…');
    const tokenSet = await exchangeCode({
      authUrl: sandbox.url,
      clientId,
      clientSecret,
      code: await code,
      redirectUri,
      codeVerifier: pkce.codeVerifier,
    });
    const names = new Map((sandbox.demo?.tenants ?? []).map((t) => [t.id, t.name]));
    const tenants = tenantsOfToken(tokenSet.access_token).map((id) => ({ id, name: names.get(id) ?? null }));
    const stored: LoginFile = {
      url: sandbox.url,
      ...(sandbox.record?.database ? { database: sandbox.record.database } : {}),
      client_id: clientId,
      client_secret: clientSecret,
      seller_login: clientId === sandbox.demo?.clientId ? (sandbox.demo?.sellerLogin ?? null) : null,
      tenants,
      tokens: {
        accessToken: tokenSet.access_token,
        refreshToken: tokenSet.refresh_token,
        expiresAt: Date.now() + tokenSet.expires_in * 1000,
        scope: tokenSet.scope,
      },
    };
    writeLogin(sandbox.dataDir, stored);
    console.log(`Logged in. Stores: ${tenants.map((t) => (t.name ? `${t.name} (${t.id})` : t.id)).join(', ') || 'none'}`);
    console.log(`Scopes: ${tokenSet.scope}`);
    console.log(
      `Tokens kept in ${sandbox.dataDir}/${LOGIN_FILE} (refreshed when needed); \`npx feira token${options.dataDir ? ` --data-dir ${shellWord(options.dataDir)}` : ''}\` prints an access token.`,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** A valid access token of the stored login, refreshed (and the rotation kept) when it expires within 60 s. */
export async function storedAccessToken(
  flags: SandboxFlags,
): Promise<{ token: string; tenants: string[]; stores: Array<{ id: string; name: string | null }> }> {
  const sandbox = findSandbox(flags);
  const stored = readLogin(sandbox.dataDir);
  if (!stored) throw new LoginError(`not logged in: run \`npx feira login\` first (no ${LOGIN_FILE} in ${sandbox.dataDir})`);
  // The same folder may have run on another database since (D70): its tokens, client and stores are not this one's.
  const running = sandbox.record?.database;
  if (running && stored.database && stored.database !== running) {
    throw new LoginError(
      `the stored login was made against the database ${stored.database}, and the sandbox now runs on ${running}: run npx feira login`,
    );
  }
  if (stored.url !== sandbox.url) {
    throw new LoginError(`the stored login is for ${stored.url}, not ${sandbox.url}: run npx feira login`);
  }
  const { manager, key } = loginTokens(sandbox.dataDir, stored);
  try {
    const token = await manager.accessToken(key);
    return { token, tenants: stored.tenants.map((t) => t.id), stores: stored.tenants };
  } catch (error) {
    if (error instanceof OAuthError) {
      throw new LoginError(`the stored login no longer works (${error.code}): run npx feira login`);
    }
    throw error;
  }
}

async function report(run: () => Promise<void>, command: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof LoginError || error instanceof NoSandboxError || error instanceof OAuthError)) throw error;
    console.error(`feira ${command}: ${error.message}`);
    process.exitCode = 1;
  }
}

export function register(program: Command): void {
  const loginCommand = program
    .command('login')
    .description('Log in as a seller through the browser (OAuth 2.0 with PKCE) and keep the tokens in the data folder')
    .option('--no-browser', 'print the login URL without opening a browser')
    .option('--client-id <id>', 'client to log in with (default: the demo client of the data folder)')
    .option('--client-secret <secret>', 'its secret (env FEIRA_CLIENT_SECRET)')
    .option('--scopes <scopes>', `space- or comma-separated scopes (default all: ${SCOPE_NAMES.join(' ')})`)
    .option(
      '--port <port>',
      'loopback port of the redirect, http://127.0.0.1:<port>/feira-cli/callback (default: any free one)',
      (value: string) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError('must be a port number (1-65535)');
        return n;
      },
    );
  sandboxOptions(loginCommand).action((options: LoginOptions) => report(() => login(options), 'login'));

  const tokenCommand = program
    .command('token')
    .description('Print a valid access token of the stored login (refreshed if needed), for scripts');
  sandboxOptions(tokenCommand).action((options: SandboxFlags) =>
    report(async () => {
      process.stdout.write(`${(await storedAccessToken(options)).token}\n`);
    }, 'token'),
  );
}
