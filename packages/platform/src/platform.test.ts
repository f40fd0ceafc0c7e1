import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../test/webhooks/loopback-receiver.js';
import { recordChange, sellerWithToken, signup } from '../test/webhooks/webhook-kit.js';
import { ManualClock } from './core/clock.js';
import { createPlatform, type Platform } from './platform.js';
import { createTestPlatform, pollUntil, type TestPlatform, testConfig, testDatabaseTargets, testTls } from './testing.js';

/** Whether a TCP connection to `url` is refused (nothing listens there any more). */
async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`);
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

describe.each(testDatabaseTargets())('createPlatform roles on $dialect', (target) => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('spec-notes W6: an api-only platform and a dispatcher-only one share a database, as `feira start --no-dispatcher` and `feira dispatch` do: the API writes the event, the other process sends it', async () => {
    const api: TestPlatform = await createTestPlatform(target, { outboundCa: testTls.ca });
    closers.push(() => api.close());
    const receiver = await startReceiver({ tls: true });
    closers.push(() => receiver.close());
    expect(api.workers).toBeUndefined();
    const ready = await api.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.json().checks).not.toHaveProperty('dispatcher');

    const seller = await sellerWithToken(api);
    expect((await signup(api, seller, 'v1', receiver.url)).statusCode).toBe(200);
    await recordChange(api, { tenantId: seller.tenantId, recordId: 'ticket-1' });

    const dispatcher: Platform = await createPlatform({
      database: api.database,
      config: testConfig(),
      roles: { api: false, dispatcher: true },
      clock: api.clock,
      outboundCa: testTls.ca,
    });
    closers.push(() => dispatcher.close());
    expect(dispatcher.app).toBeUndefined();
    expect(dispatcher.workers?.dispatcher).not.toBeNull();
    const [delivered] = await receiver.waitFor(1, 10_000);
    expect(JSON.parse(delivered?.raw.toString() ?? '{}')).toMatchObject({ tenant_id: seller.tenantId, topic: 'sac_ticket' });

    // Closing the dispatcher's handle stops its loop and leaves the database it was given to the API.
    await dispatcher.close();
    expect(dispatcher.workers?.dispatcher?.stats().inFlight).toBe(0);
    const after = await api.app.inject({ method: 'GET', url: '/health/ready' });
    expect(after.statusCode).toBe(200);
  });

  it("the running dispatcher takes its tuning from config.dispatcher (the settings table's FEIRA_DISPATCH_LEASE_MS): a delivery it holds is leased for that long", async () => {
    const receiver = await startReceiver({ tls: true, answer: () => 'hang' });
    closers.push(() => receiver.close());
    const test = await createTestPlatform(target, {
      config: testConfig({ dispatcher: { leaseMs: 45_000 } }),
      roles: { api: true, dispatcher: true },
      outboundCa: testTls.ca,
    });
    closers.push(() => test.close());
    // Released before the platform closes, so the dispatcher's stop does not wait out the request timeout.
    closers.push(async () => receiver.release());
    expect(test.workers?.dispatcher).not.toBeNull();
    const seller = await sellerWithToken(test);
    expect((await signup(test, seller, 'v1', receiver.url)).statusCode).toBe(200);
    await recordChange(test, { tenantId: seller.tenantId });
    await receiver.waitFor(1, 10_000);
    const held = await test.database.db.selectFrom('webhook_deliveries').select('lease_until').executeTakeFirstOrThrow();
    expect(Date.parse(held.lease_until ?? '') - test.clock.now().getTime()).toBe(45_000);
  });

  it('both roles on a socket: the public URL is the bound port, /health/ready reports the dispatcher, and close() stops the socket, the loop and the app, leaving nothing that answers', async () => {
    const database = await target.open();
    closers.push(() => database.close());
    const { publicUrl: _publicUrl, authUrl: _authUrl, ...config } = testConfig();
    const platform = await createPlatform({
      database,
      config,
      roles: { api: true, dispatcher: true },
      listen: { host: '127.0.0.1', port: 0 },
      clock: new ManualClock(),
    });
    const url = platform.listenUrl as string;
    expect(platform.context.config.publicUrl).toBe(url);
    expect(platform.context.config.authUrl).toBe(url);
    const checks = await pollUntil('the dispatcher in /health/ready', async () => {
      const answer = await fetch(`${url}/health/ready`);
      const body = (await answer.json()) as { checks: Record<string, string> };
      return answer.status === 200 && body.checks.dispatcher === 'ok' ? body.checks : undefined;
    });
    expect(checks).toMatchObject({ database: 'ok', dispatcher: 'ok' });

    const deferredOrder: string[] = [];
    platform.deferClose(async () => {
      // Runs after the socket stopped, before the dispatcher and the app.
      deferredOrder.push(`socket refused: ${await refused(url)}`);
    });
    await platform.close();
    expect(deferredOrder[0]).toBe('socket refused: true');
    expect(await refused(url)).toBe(true);
    // The app is closed: Fastify refuses new injected requests.
    await expect(platform.app?.inject({ method: 'GET', url: '/health' })).rejects.toThrow();
    // The database it was given is still open for its opener.
    expect((await database.db.selectFrom('sellers').select('id').execute()).length).toBe(0);
    // close() is idempotent.
    await platform.close();
  });
});

describe('createPlatform opening its own database', () => {
  it('opens and migrates the database named by its URL, and closes it last', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feira-platform-'));
    try {
      const platform = await createPlatform({
        databaseUrl: `sqlite:${join(dir, 'feira.db')}`,
        config: testConfig(),
        roles: { api: false, dispatcher: false },
      });
      expect(platform.app).toBeUndefined();
      expect(platform.workers).toBeUndefined();
      // Migrated: the tables exist and are empty.
      expect(await platform.database.db.selectFrom('sellers').select('id').execute()).toEqual([]);
      await platform.close();
      await expect(platform.database.db.selectFrom('sellers').select('id').execute()).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to listen without the api role, before opening anything', async () => {
    await expect(
      createPlatform({
        databaseUrl: 'sqlite::memory:',
        config: testConfig(),
        roles: { api: false, dispatcher: true },
        listen: { host: '127.0.0.1', port: 0 },
      }),
    ).rejects.toThrow(/only the api role listens/);
  });
});
