import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeiraProcess, runFeira } from './feira-process.js';

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;

// Each test starts real processes (TypeScript compiled on the fly, migrations, demo seed); on a
// loaded 2-core CI machine one start can take tens of seconds.
const PROCESS_TEST_TIMEOUT_MS = 180_000;

describe('feira start as a real process', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let dir: string | undefined;
  const processes: FeiraProcess[] = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const start = (args: string[], env: Record<string, string> = {}) => {
    const p = runFeira(['start', ...args], env);
    processes.push(p);
    return p;
  };
  const adminGet = (base: string, token: string, path: string) =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('serves /health, /docs and the admin API on the real port it prints; SIGTERM stops it; a restart keeps data and does not reseed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    const dataDir = join(dir, 'data');
    const first = start(['--port', '0', '--data-dir', dataDir, '--log-level', 'silent']);
    const port = Number((await first.waitFor(LISTENING))[1]);
    expect(port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}`;
    const out = first.stdout();
    expect(out).toContain(`API          ${base}`);
    expect(out).toContain(`API docs     ${base}/docs`);
    expect(out).toMatch(new RegExp(`Demo login   ${base}/login\\?client_id=client_`));
    expect(out).toContain('login        demo@feira.test');
    expect(out).toMatch(/Demo seller \(created now\)/);
    expect(out.match(/store {8}Feira Demo/g)).toHaveLength(2);
    const adminToken = out.match(/token {8}(\S+)/)?.[1] ?? '';
    const clientSecret = out.match(/client_secret (\S+)/)?.[1] ?? '';
    expect(adminToken).toBe(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')).clientSecret).toBe(clientSecret);

    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    expect((await fetch(`${base}/admin/v1/sellers`)).status).toBe(401);
    const created = await fetch(`${base}/admin/v1/sellers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Kept',
        login: 'kept@shop.test',
        password: 'a long password',
        tenants: [{ name: 'Kept store' }],
      }),
    });
    expect(created.status).toBe(201);

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.stdout()).toContain('Stopped.');
    await expect(fetch(`${base}/health`)).rejects.toThrow();

    const second = start(['--port', '0', '--data-dir', dataDir, '--log-level', 'silent']);
    const port2 = Number((await second.waitFor(LISTENING))[1]);
    const base2 = `http://127.0.0.1:${port2}`;
    const out2 = second.stdout();
    expect(out2).not.toContain('(created now)');
    expect(out2).toContain(`token        ${adminToken}`);
    expect(out2).toContain(`client_secret ${clientSecret}`);
    const sellers = (await (await adminGet(base2, adminToken, '/admin/v1/sellers')).json()) as {
      results: Array<{ login: string }>;
    };
    expect(sellers.results.map((s) => s.login).sort()).toEqual(['demo@feira.test', 'kept@shop.test']);
    const clients = (await (await adminGet(base2, adminToken, '/admin/v1/clients')).json()) as { meta: { total: number } };
    expect(clients.meta.total).toBe(1);
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('takes FEIRA_* variables when no flag is given: FEIRA_SEED=none starts without demo, FEIRA_ADMIN_TOKEN guards the admin API', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    const token = 'env-admin-token-0123456789abcdef';
    const p = start(['--port', '0'], {
      FEIRA_DATA_DIR: join(dir, 'data'),
      FEIRA_SEED: 'none',
      FEIRA_ADMIN_TOKEN: token,
      FEIRA_LOG_LEVEL: 'info',
    });
    const base = `http://127.0.0.1:${(await p.waitFor(LISTENING))[1]}`;
    expect(p.stdout()).not.toContain('Demo seller');
    expect(p.stdout()).not.toContain(token);
    const list = (await (await adminGet(base, token, '/admin/v1/sellers')).json()) as { meta: { total: number } };
    expect(list.meta.total).toBe(0);
    // Request logs (JSON on stderr) carry the path but never the query string, where codes travel.
    await fetch(`${base}/health?code=SECRET-CODE-4242`);
    await p.waitFor(/"path":"\/health"/, 30_000, 'stderr');
    expect(p.stderr()).not.toContain('SECRET-CODE-4242');
    expect(p.stderr()).not.toContain(token);
    expect(p.stdout()).not.toContain('{"level"');
    expect(await p.stop()).toBe(0);
  });

  it('exits with code 2 and a clear message on a bad --port, before touching anything', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    const p = start(['--port', '99999', '--data-dir', join(dir, 'data')]);
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('--port must be an integer from 0 to 65535');
    expect(p.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a SIGTERM while it is still starting (a database that never answers) says it will stop once started; a second one exits at once with code 1', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    // Accepts the connection and never answers: the start waits on the database's first reply.
    const sockets = new Set<Socket>();
    let reached: () => void = () => {};
    const reachedDatabase = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      reached();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `postgres://feira@127.0.0.1:${(silent.address() as AddressInfo).port}/feira`;
      const p = start(['--port', '0', '--data-dir', join(dir, 'data'), '--database', url, '--log-level', 'silent']);
      // The start has opened its database connection, so its signal handlers are in place.
      await reachedDatabase;
      p.child.kill('SIGTERM');
      await p.waitFor(/SIGTERM while starting; stopping once started \(press Ctrl-C again to exit now\)/, 60_000, 'stderr');
      p.child.kill('SIGTERM');
      expect(await p.exited, `ended by ${p.exitSignal()}`).toBe(1);
      expect(p.stderr()).toContain('feira start: SIGTERM again, exiting without waiting');
      expect(p.stdout()).not.toMatch(LISTENING);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;
  it.runIf(pgUrl)(
    'a PostgreSQL database that does not exist, or a server that does not answer, is named with what to do (createdb)',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
      const missing = new URL(pgUrl as string);
      missing.pathname = `/feira_missing_${randomBytes(4).toString('hex')}`;
      const absent = start(['--port', '0', '--data-dir', join(dir, 'a'), '--database', missing.toString()]);
      expect(await absent.exited).toBe(1);
      expect(absent.stderr()).toContain(`the database ${missing.toString()} does not exist: create it with \`createdb`);
      expect(absent.stderr()).toContain(`${missing.pathname.slice(1)}\`, then start again`);

      // A port where nothing listens: bind one, note it, close it.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const closedPort = (probe.address() as AddressInfo).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const nowhere = `postgres://postgres:secret-pw@127.0.0.1:${closedPort}/feira`;
      const unreachable = start(['--port', '0', '--data-dir', join(dir, 'b'), '--database', nowhere]);
      expect(await unreachable.exited).toBe(1);
      expect(unreachable.stderr()).toContain(`cannot reach the database postgres://postgres:***@127.0.0.1:${closedPort}/feira`);
      expect(unreachable.stderr()).toContain('is PostgreSQL running there?');
      expect(unreachable.stderr()).not.toContain('secret-pw');
    },
  );

  it.runIf(pgUrl)('--database postgres://… runs on PostgreSQL and keeps its data there', async () => {
    dir = mkdtempSync(join(tmpdir(), 'feira-cli-'));
    const name = `feira_cli_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    try {
      const url = new URL(pgUrl!);
      url.pathname = `/${name}`;
      const p = start(['--port', '0', '--data-dir', join(dir, 'data'), '--database', url.toString(), '--log-level', 'silent']);
      const base = `http://127.0.0.1:${(await p.waitFor(LISTENING))[1]}`;
      expect(p.stdout()).toMatch(/database postgres:\/\//);
      const token = p.stdout().match(/token {8}(\S+)/)?.[1] ?? '';
      expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
      const sellers = (await (await adminGet(base, token, '/admin/v1/sellers')).json()) as { results: Array<{ login: string }> };
      expect(sellers.results.map((s) => s.login)).toEqual(['demo@feira.test']);
      expect(await p.stop()).toBe(0);
      const direct = new pg.Client({ connectionString: url.toString() });
      await direct.connect();
      const rows = await direct.query('select login from sellers');
      await direct.end();
      expect(rows.rows).toEqual([{ login: 'demo@feira.test' }]);
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
