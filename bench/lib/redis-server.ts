import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/**
 * A Redis server of the benchmark's own, configured as BullMQ's "Going to
 * production" guide asks: AOF persistence with `appendfsync everysec` and
 * `maxmemory-policy noeviction`. The machine's own Redis may keep nothing on
 * disk (this project's CI image does not), which is how a queue runs in
 * development, not in production.
 */
export const PRODUCTION_REDIS_ARGS = [
  '--appendonly',
  'yes',
  '--appendfsync',
  'everysec',
  '--maxmemory-policy',
  'noeviction',
  '--save',
  '',
];

/**
 * The same server syncing its append-only file before it answers each write
 * (`appendfsync always`): an acknowledged enqueue survives a crash of the
 * server or of the host, as an order Feira has committed on PostgreSQL does.
 * The benchmark measures the peer on it beside the production one, for
 * comparison only.
 */
export const DURABLE_REDIS_ARGS = PRODUCTION_REDIS_ARGS.map((arg) => (arg === 'everysec' ? 'always' : arg));

export interface RedisServer {
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` on a free loopback port with its files in `dir`, or
 * returns why it cannot (no `redis-server` on the PATH, say).
 */
export async function startRedisServer(dir: string, args: readonly string[]): Promise<RedisServer | string> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, ...args], {
      stdio: 'ignore',
    });
  } catch (error) {
    return `redis-server could not be started (${error instanceof Error ? error.message : String(error)})`;
  }
  const failed = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`redis-server could not be started (${error.message})`));
    child.once('exit', (code) => resolve(`redis-server exited with code ${code}`));
  });
  // A run stopped by Ctrl-C or a crash leaves no server behind.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const problem = await Promise.race([failed, redisAnswers(port).then((ok) => (ok ? null : undefined))]);
    if (problem === null) {
      return {
        port,
        stop: async () => {
          process.off('exit', kill);
          if (child.exitCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (typeof problem === 'string') return problem;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  kill();
  return `redis-server did not answer on port ${port} within 10 s`;
}

/** Where the scenario's own Redis keeps its append-only file (`name` tells two such servers apart). */
export function redisDir(scratchDir: string, name: string): string {
  return join(scratchDir, name);
}

/**
 * One inline command's reply, raw (RESP), from the Redis on `port`; `lines` is how many
 * CRLF-terminated lines the reply has (1 for a simple string, 5 for a two-element array).
 */
function command(port: number, line: string, lines: number, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (data) => {
      reply += data.toString();
      if (reply.split('\r\n').length > lines) {
        socket.destroy();
        resolve(reply);
      }
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`Redis on port ${port} did not answer ${line}`));
    });
    socket.once('error', reject);
  });
}

/** Whether a Redis on 127.0.0.1:`port` answers PING. */
export async function redisAnswers(port: number, timeoutMs = 500): Promise<boolean> {
  return command(port, 'PING', 1, timeoutMs).then(
    (reply) => reply.startsWith('+PONG'),
    () => false,
  );
}

/** How the Redis on `port` keeps its data: `appendonly …, appendfsync …, save '…'`. */
export async function redisPersistence(port: number): Promise<string> {
  const setting = async (key: string) => (await command(port, `CONFIG GET ${key}`, 5)).split('\r\n')[4] ?? '?';
  return `appendonly ${await setting('appendonly')}, appendfsync ${await setting('appendfsync')}, save '${await setting('save')}'`;
}
