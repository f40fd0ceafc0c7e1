import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT_NAME, DEMO_SELLER_LOGIN } from './demo/demo-seed.js';
import { type RunningPlatform, type StartPlatformOptions, startPlatform } from './server.js';

/** Starts, seeds (over a thousand demo records) and restarts a real server: slow on a loaded CI machine. */
const SERVER_TEST_TIMEOUT_MS = 120_000;
const ADMIN_TOKEN = 'server-test-admin-token-0123456789';

interface Target {
  dialect: string;
  /** A database URL that survives a restart, and a cleanup. */
  prepare(dir: string): Promise<{ url: string; cleanup(): Promise<void> }>;
}

const targets: Target[] = [
  { dialect: 'sqlite', prepare: async (dir) => ({ url: `sqlite:${join(dir, 'feira.db')}`, cleanup: async () => {} }) },
];
const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;
if (pgUrl) {
  targets.push({
    dialect: 'postgres',
    prepare: async () => {
      // A fresh database per test: data must survive a restart of the platform, so the
      // per-open throwaway schema of openPostgresTestDatabase does not fit here.
      const name = `feira_server_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const url = new URL(pgUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        cleanup: async () => {
          const c = new pg.Client({ connectionString: pgUrl });
          await c.connect();
          await c.query(`drop database if exists ${name} with (force)`);
          await c.end();
        },
      };
    },
  });
}

describe.each(targets)('startPlatform on $dialect', (target) => {
  let dir: string;
  let running: RunningPlatform[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    for (const r of running) await r.close();
    running = [];
    await cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A database of the test's own, in a fresh folder; afterEach removes both. */
  async function freshDatabaseUrl(): Promise<string> {
    dir = mkdtempSync(join(tmpdir(), 'feira-server-'));
    const prepared = await target.prepare(dir);
    cleanup = prepared.cleanup;
    return prepared.url;
  }

  /** GET of an admin API path on a running platform: must answer 200. */
  async function adminGet<T>(r: RunningPlatform, path: string): Promise<T> {
    const response = await fetch(`${r.listenUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  async function start(url: string, overrides: Partial<StartPlatformOptions> = {}) {
    const r = await startPlatform({
      databaseUrl: url,
      host: '127.0.0.1',
      port: 0,
      config: { mode: 'sandbox', adminToken: ADMIN_TOKEN, secretKey: 'server-test-secret-key-0123456789' },
      dataDir: join(dir, 'data'),
      seed: 'demo',
      logger: false,
      ...overrides,
    });
    running.push(r);
    return r;
  }

  it(
    'serves /health on the real port, seeds the demo once, and a restart keeps data without reseeding',
    async () => {
      const url = await freshDatabaseUrl();

      const first = await start(url);
      expect(first.port).toBeGreaterThan(0);
      expect(first.listenUrl).toBe(`http://127.0.0.1:${first.port}`);
      expect(first.publicUrl).toBe(first.listenUrl);
      const health = await fetch(`${first.listenUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });

      expect(first.seededNow).toBe(true);
      expect(first.demo).toMatchObject({ sellerLogin: DEMO_SELLER_LOGIN, redirectUri: `${first.publicUrl}/demo/callback` });
      expect(first.demo?.tenants).toHaveLength(2);
      // The demo stores come with records (the records capability's seeder), so the record APIs have something to list.
      const orders = await adminGet<{ results: unknown[] }>(
        first,
        `/admin/v1/tenants/${first.demo?.tenants[0]?.id}/orders?_limit=100`,
      );
      expect(orders.results).toHaveLength(100);
      // Sandbox demo: both stores quote shipping against the running demo seller.
      expect(first.demoSellerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/quote$/);
      const settings = await first.platform.database.db.selectFrom('shipping_settings').select(['tenant_id', 'url']).execute();
      expect(settings.map((row) => row.tenant_id).sort()).toEqual(first.demo?.tenants.map((t) => t.id).sort());
      for (const row of settings) expect(row.url.startsWith(first.demoSellerUrl as string)).toBe(true);
      expect(statSync(join(dir, 'data', 'demo-credentials.json')).mode & 0o777).toBe(0o600);
      const clients = await adminGet<{ results: unknown[] }>(first, '/admin/v1/clients');
      expect(clients.results).toEqual([
        expect.objectContaining({
          client_id: first.demo?.clientId,
          name: DEMO_CLIENT_NAME,
          default_scopes: ['open:portfolio:read', 'open:order-order:read'],
        }),
      ]);
      const created = await fetch(`${first.listenUrl}/admin/v1/sellers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Kept', login: 'kept@shop.test', password: 'a long password', tenants: [] }),
      });
      expect(created.status).toBe(201);
      await first.close();

      const second = await start(url);
      expect(second.seededNow).toBe(false);
      expect(second.demo?.clientId).toBe(first.demo?.clientId);
      expect(second.demo?.clientSecret).toBe(first.demo?.clientSecret);
      // Port 0 gave another port: the demo client now also accepts the new callback, so the printed login URL works.
      expect(second.demo?.redirectUri).toBe(`${second.publicUrl}/demo/callback`);
      const demoClient = await adminGet<{ redirect_uris: string[] }>(second, `/admin/v1/clients/${second.demo?.clientId}`);
      expect(demoClient.redirect_uris).toContain(`${second.publicUrl}/demo/callback`);
      // The demo seller moved to a new port: the stores follow it.
      const moved = await second.platform.database.db.selectFrom('shipping_settings').select('url').execute();
      for (const row of moved) expect(row.url.startsWith(second.demoSellerUrl as string)).toBe(true);
      const sellers = await adminGet<{ results: Array<{ login: string }> }>(second, '/admin/v1/sellers');
      expect(sellers.results.map((s) => s.login).sort()).toEqual([DEMO_SELLER_LOGIN, 'kept@shop.test']);
    },
    SERVER_TEST_TIMEOUT_MS,
  );

  it(
    'spec-notes Q7: a storefront quote on the running sandbox is in the quote log after a restart (SQLite: in the log file beside the database)',
    async () => {
      const url = await freshDatabaseUrl();
      const first = await start(url);
      const tenantId = first.demo?.tenants[0]?.id as string;
      const product = await first.platform.database.db
        .selectFrom('products')
        .select('sku')
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      const quoted = await fetch(`${first.listenUrl}/storefront/v1/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: tenantId, zipcode: '20040002', items: [{ sku: product.sku, quantity: 1 }] }),
      });
      expect(quoted.status).toBe(200);
      const { session_id: sessionId } = (await quoted.json()) as { session_id: string };
      await first.close();
      expect(existsSync(join(dir, 'feira.quote-log.db'))).toBe(target.dialect === 'sqlite');

      const second = await start(url);
      const log = await adminGet<{ results: Array<{ session_id: string; purpose: string }> }>(
        second,
        `/admin/v1/tenants/${tenantId}/shipping/quote-calls`,
      );
      expect(log.results).toEqual([expect.objectContaining({ session_id: sessionId, purpose: 'storefront' })]);
    },
    SERVER_TEST_TIMEOUT_MS,
  );

  it(
    'the server of feira start answers Node-level refusals (431) in the platform error shape with nosniff; the SQLite file is 0600; /metrics takes the metrics token',
    async () => {
      const url = await freshDatabaseUrl();
      const r = await start(url, {
        seed: 'none',
        config: {
          mode: 'sandbox',
          adminToken: ADMIN_TOKEN,
          secretKey: 'server-test-secret-key-0123456789',
          metricsToken: 'metrics-token-0123456789',
        },
      });
      const tooLong = await fetch(`${r.listenUrl}/v1/orders?q=${'a'.repeat(20_000)}`);
      expect(tooLong.status).toBe(431);
      expect(tooLong.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await tooLong.json()).toEqual({
        message: expect.any(String),
        slug: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
        details: [],
        request_id: expect.any(String),
      });
      if (target.dialect === 'sqlite') {
        for (const file of ['feira.db', 'feira.db-wal']) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
      }
      const open = await fetch(`${r.listenUrl}/metrics`);
      expect(open.status).toBe(401);
      expect(((await open.json()) as { slug: string }).slug).toBe('UNAUTHORIZED');
      const wrong = await fetch(`${r.listenUrl}/metrics`, { headers: { authorization: 'Bearer not-the-token' } });
      expect(wrong.status).toBe(401);
      const scraped = await fetch(`${r.listenUrl}/metrics`, { headers: { authorization: 'bearer metrics-token-0123456789' } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# HELP');
    },
    SERVER_TEST_TIMEOUT_MS,
  );

  it(
    'refuses a port already in use with EADDRINUSE and leaves nothing open behind',
    async () => {
      const url = await freshDatabaseUrl();
      const first = await start(url, { seed: 'none' });
      await expect(start(url, { seed: 'none', port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect((await fetch(`${first.listenUrl}/health`)).status).toBe(200);
    },
    SERVER_TEST_TIMEOUT_MS,
  );

  it(
    'graceful shutdown: a request in flight when close() is called still gets its answer, then the port is freed',
    async () => {
      const url = await freshDatabaseUrl();
      const r = await start(url, { seed: 'none' });
      const body = JSON.stringify({ name: 'Late', login: 'late@shop.test', password: 'a long password', tenants: [] });
      const half = Math.floor(body.length / 2);
      let closed: Promise<void> | undefined;

      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${r.listenUrl}/admin/v1/sellers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': body.length },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, half), () => {
          // The request is on the wire, half sent: shut down now, then send the rest.
          closed = r.close();
          setImmediate(() => req.end(body.slice(half)));
        });
      });
      const answer = await response;
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body).login).toBe('late@shop.test');
      await closed;
      await expect(fetch(`${r.listenUrl}/health`)).rejects.toThrow();
    },
    SERVER_TEST_TIMEOUT_MS,
  );
});
