import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestPlatform,
  pollUntil,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  testConfig,
  testDatabaseTargets,
} from '../testing.js';
import { startBackgroundWorkers } from '../workers.js';

const asOperator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe.each(testDatabaseTargets())('health for orchestrators on $dialect', (target) => {
  let platform: TestPlatform | undefined;
  afterEach(async () => {
    await platform?.close();
    platform = undefined;
  });

  it('/health/live answers 200 and /health/ready names each check it passed', async () => {
    platform = await createTestPlatform(target);
    const live = await platform.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await platform.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('/health/ready answers 503 naming the migration this build has and the database has not run', async () => {
    platform = await createTestPlatform(target);
    // As if an older version had migrated the database and this one started without migrating.
    await sql`delete from kysely_migration where name = '0005-shipping'`.execute(platform.database.db);
    const ready = await platform.app.inject({ method: 'GET', url: '/health/ready', headers: asOperator });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['retry-after']).toBe('5');
    expect(ready.json()).toMatchObject({
      slug: 'SERVICE_UNAVAILABLE',
      details: [],
      request_id: expect.any(String),
      checks: { database: 'ok', migrations: 'pending: 0005-shipping' },
    });
  });

  it('/health/ready follows the dispatcher heartbeat: stale after a lease without a renewal, fresh after one, 503 once stopped', async () => {
    platform = await createTestPlatform(target);
    const test = platform;
    const workers = await startBackgroundWorkers(test.app.platform, {
      dispatcher: true,
      // Renewals by the timer would not come during this test: the test renews by hand.
      dispatcherOptions: { leaseMs: 10_000, leaseRenewMs: 5_000 },
      readiness: test.app.readiness,
    });
    try {
      const ready = async () => {
        const res = await test.app.inject({ method: 'GET', url: '/health/ready', headers: asOperator });
        return { status: res.statusCode, dispatcher: res.json().checks.dispatcher as string };
      };
      expect(await ready()).toEqual({ status: 200, dispatcher: 'ok' });
      test.clock.advance(11_000);
      const stale = await ready();
      expect(stale.status).toBe(503);
      expect(stale.dispatcher).toMatch(/^dispatcher heartbeat 11 s old/);
      await workers.dispatcher?.renewLeases();
      // The loop's next pass (within its 250 ms back-off) reads the moved clock too.
      await pollUntil('a fresh heartbeat', async () => ((await ready()).status === 200 ? true : undefined), {
        deadlineMs: 10_000,
      });
      expect(await ready()).toEqual({ status: 200, dispatcher: 'ok' });
    } finally {
      await workers.stop();
    }
    const stopped = await test.app.inject({ method: 'GET', url: '/health/ready', headers: asOperator });
    expect(stopped.statusCode).toBe(503);
    expect(stopped.json().checks.dispatcher).toBe('dispatcher not running');
  });

  it('/health/ready tells why a check failed only to a caller with the admin or metrics token; anyone else reads "unavailable"', async () => {
    platform = await createTestPlatform(target, { config: testConfig({ metricsToken: 'test-metrics-token-0123456789' }) });
    const test = platform;
    await sql`delete from kysely_migration where name = '0005-shipping'`.execute(test.database.db);
    const checksAs = async (authorization?: string) => {
      const res = await test.app.inject({
        method: 'GET',
        url: '/health/ready',
        ...(authorization ? { headers: { authorization } } : {}),
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ slug: 'SERVICE_UNAVAILABLE', details: [], request_id: expect.any(String) });
      return res.json().checks;
    };
    const redacted = { database: 'ok', migrations: 'unavailable' };
    expect(await checksAs()).toEqual(redacted);
    expect(await checksAs('Bearer not-the-admin-token')).toEqual(redacted);
    expect(await checksAs(`Basic ${TEST_ADMIN_TOKEN}`)).toEqual(redacted);
    const detailed = { database: 'ok', migrations: 'pending: 0005-shipping' };
    expect(await checksAs(`Bearer ${TEST_ADMIN_TOKEN}`)).toEqual(detailed);
    expect(await checksAs('bearer test-metrics-token-0123456789')).toEqual(detailed);
  });
});
