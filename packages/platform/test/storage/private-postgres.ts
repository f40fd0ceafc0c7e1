// A PostgreSQL server of a test's own, for fault tests that stop, kill and
// restart it: initdb into a temporary folder, its own free port on 127.0.0.1,
// Debian's server binaries. Never the shared server the rest of the suite uses.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const PG_ROOT = '/usr/lib/postgresql';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust authentication: no password). */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl stop -m immediate`: every server process quits at once, without a checkpoint (as a crash). */
  stopImmediately(): Promise<void>;
  /** `pg_ctl start` on the same folder and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Server processes of client sessions on the test's database (not this module's own), busiest first. */
  backendPids(): Promise<number[]>;
  /** `select pg_terminate_backend(pid)`: the server ends the session (SQLSTATE 57P01 to its client). */
  terminateBackend(pid: number): Promise<void>;
  /** `kill -9` of one server process: the postmaster then cuts every session and recovers (a crash restart). */
  killBackend(pid: number): void;
  /** The server's log so far (for a failure's message). */
  log(): string;
  /** Stops the server (if running) and deletes its folder. */
  destroy(): Promise<void>;
}

/**
 * The newest Debian server install (`/usr/lib/postgresql/<version>/bin`), or
 * an error saying what to install: a fault test must fail, not skip, where
 * the binaries are missing (CI installs them).
 */
export function postgresBinaries(): string {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb')) && existsSync(join(PG_ROOT, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      `PostgreSQL server binaries not found (no ${PG_ROOT}/<version>/bin/initdb and pg_ctl): this fault test starts a server ` +
        'of its own. Install them (Debian/Ubuntu: apt-get install postgresql) and run it again.',
    );
  }
  return join(PG_ROOT, newest, 'bin');
}

/** initdb and postgres refuse to run as root: as root, the `postgres` OS user runs them. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function idOf(flag: '-u' | '-g'): Promise<number> {
  return Number((await run('id', [flag, 'postgres'])).stdout.trim());
}

/** One statement on a connection of its own (it may be cut by what it does, or by the server's state). */
async function adminQuery<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Starts a private server and creates `database` in it. Pass `destroy()` to
 * the test's cleanup: it stops the server and removes the folder.
 */
export async function startPrivatePostgres(database = 'feira'): Promise<PrivatePostgres> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'feira-private-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (process.getuid?.() === 0) chownSync(dir, await idOf('-u'), await idOf('-g'));
  const serverUser = async (command: string, args: string[]) => {
    const [file, argv] = asServerUser(join(bin, command), args);
    try {
      return await run(file, argv, { cwd: dir, timeout: 60_000 });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`${command} ${args.join(' ')} failed: ${(error as Error).message}\n${stdout ?? ''}${stderr ?? ''}`);
    }
  };
  await serverUser('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // The socket file in the test's folder (the default folder may not exist or be writable); no fsync, as
  // the data is thrown away; crash restarts stay on (the default), as in production.
  const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=100`;
  const start = async () => {
    await serverUser('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', logFile, '-o', serverOptions]);
  };
  let running = false;
  await start();
  running = true;
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await adminQuery(adminUrl, `create database ${database}`);
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;

  return {
    url,
    port,
    async stopImmediately() {
      await serverUser('pg_ctl', ['stop', '-w', '-m', 'immediate', '-D', data]);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async backendPids() {
      const rows = await adminQuery<{ pid: number }>(
        adminUrl,
        `select pid from pg_stat_activity
          where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()
          order by (state = 'active') desc, (state = 'idle in transaction') desc, pid`,
        [database],
      );
      return rows.map((r) => r.pid);
    },
    async terminateBackend(pid) {
      await adminQuery(adminUrl, 'select pg_terminate_backend($1)', [pid]);
    },
    killBackend(pid) {
      process.kill(pid, 'SIGKILL');
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    async destroy() {
      if (running) await serverUser('pg_ctl', ['stop', '-w', '-m', 'immediate', '-D', data]).catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
