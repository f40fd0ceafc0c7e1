import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@feira/platform';
import {
  createTestPlatform,
  sharedDatabaseUrl,
  type TestPlatform,
  testConfig,
  testDatabaseTargets,
  testTls,
} from '@feira/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, startReceiver } from '../../platform/test/webhooks/loopback-receiver.js';
import { recordChange, sellerWithToken, signup } from '../../platform/test/webhooks/webhook-kit.js';
import { runFeira } from './feira-process.js';
import { runCli } from './support/run-cli.js';

// `feira dispatch` as a real process against a real database file. spec-notes
// W4: a dead delivery is "redeliverable by API and CLI"; the API half is tested
// in webhook-retries.test.ts, this is the CLI half (`--redeliver`). And the
// long-running dispatcher's stop on SIGTERM.

describe('feira dispatch (real process, SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-redeliver-'));
  const url = `sqlite:${join(dir, 'feira.db')}`;
  const deadAt = '2026-01-15T12:00:00.000Z';

  const deliveryRow = async (id: string) => {
    const database = await openDatabase(url);
    try {
      return await database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    } finally {
      await database.close();
    }
  };

  beforeAll(async () => {
    const database = await openDatabase(url);
    await migrateToLatest(database);
    await database.db
      .insertInto('sellers')
      .values({ id: 's-1', name: 'Seller', login: 'seller', password_hash: 'x', created_at: deadAt })
      .execute();
    await database.db.insertInto('tenants').values({ id: 't-1', seller_id: 's-1', name: 'Store', created_at: deadAt }).execute();
    await database.db
      .insertInto('webhook_subscriptions')
      .values({
        id: 'sub-1',
        client_id: 'c-1',
        tenant_id: 't-1',
        topic: 'sac_ticket',
        version: 'v0',
        url: 'http://127.0.0.1:9/hooks',
        state: 'active',
        created_at: deadAt,
        updated_at: deadAt,
      })
      .execute();
    // A delivery that used up its 8 attempts (W4) and is dead.
    await database.db
      .insertInto('webhook_deliveries')
      .values({
        id: 'delivery-1',
        event_id: 'event-1',
        subscription_id: 'sub-1',
        tenant_id: 't-1',
        topic: 'sac_ticket',
        state: 'dead',
        attempts: 8,
        next_attempt_at: null,
        last_status_code: 500,
        event_created_at: deadAt,
        created_at: deadAt,
        updated_at: deadAt,
      })
      .execute();
    await database.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('W4: re-queues a dead delivery under the same id with a fresh schedule and exits 0; an unknown id exits 1 naming it', async () => {
    const run = await runCli(['dispatch', '--database', url, '--data-dir', dir, '--redeliver', 'delivery-1']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('re-queued delivery-1');
    const requeued = await deliveryRow('delivery-1');
    expect(requeued).toMatchObject({ state: 'pending', attempts: 0, event_id: 'event-1', subscription_id: 'sub-1' });
    expect(Date.parse(requeued.next_attempt_at ?? '')).toBeGreaterThan(Date.parse(deadAt));

    const missing = await runCli(['dispatch', '--database', url, '--data-dir', dir, '--redeliver', 'no-such-delivery']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no delivery no-such-delivery');
  }, 120_000);

  it('takes its dispatcher tuning from the settings table: an out-of-bounds flag or FEIRA_DISPATCH_* value exits 2 naming the flag or the variable given, with its bounds', async () => {
    const byFlag = await runCli(['dispatch', '--database', url, '--data-dir', dir, '--concurrency', '0']);
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain('feira dispatch: --concurrency must be an integer from 1 to 100000 (got "0")');
    const byEnv = await runCli(['dispatch', '--database', url, '--data-dir', dir], {
      env: { FEIRA_DISPATCH_LEASE_MS: '500' },
    });
    expect(byEnv.code).toBe(2);
    expect(byEnv.stderr).toContain('FEIRA_DISPATCH_LEASE_MS must be an integer from 1000 to 3600000 (got "500")');
  }, 120_000);

  it('runs until SIGTERM; one sent as soon as it says it is dispatching stops it cleanly, exit code 0', async () => {
    const dispatch = runFeira(['dispatch', '--database', url, '--data-dir', dir]);
    try {
      await dispatch.waitFor(/Dispatching webhooks from .*Ctrl-C to stop\./);
      expect(await dispatch.stop('SIGTERM'), `ended by ${dispatch.exitSignal()}; stderr: ${dispatch.stderr()}`).toBe(0);
      expect(dispatch.stdout()).toContain('Stopping: finishing in-flight deliveries…');
    } finally {
      await dispatch.stop('SIGKILL');
    }
  }, 120_000);
});

// A split deployment (`feira start --no-dispatcher` beside `feira dispatch`) must trust what one process
// would: the CA named by FEIRA_OUTBOUND_CA reaches the dispatcher's deliveries too.
describe('feira dispatch trusts --outbound-ca as feira start does (real process, SQLite)', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-dispatch-ca-'));
  const sqlite = testDatabaseTargets().find((t) => t.dialect === 'sqlite');
  let platform: TestPlatform;
  let receiver: LoopbackReceiver;
  beforeAll(async () => {
    platform = await createTestPlatform(sqlite as NonNullable<typeof sqlite>, { outboundCa: testTls.ca });
    receiver = await startReceiver({ tls: true, answer: () => ({ status: 204 }) });
  });
  afterAll(async () => {
    await receiver?.close();
    await platform?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec "Signature (v1 only)": a v1 delivery reaches an HTTPS receiver whose CA is given only by FEIRA_OUTBOUND_CA', async () => {
    const seller = await sellerWithToken(platform);
    expect((await signup(platform, seller, 'v1', receiver.url)).statusCode).toBe(200);
    await recordChange(platform, { tenantId: seller.tenantId });
    const caFile = join(dir, 'company-ca.pem');
    writeFileSync(caFile, testTls.ca);
    const { url } = await sharedDatabaseUrl(platform.database);
    const dispatch = runFeira(['dispatch', '--data-dir', join(dir, '.feira')], {
      FEIRA_DATABASE: url,
      FEIRA_SECRET_KEY: testConfig().secretKey,
      FEIRA_OUTBOUND_CA: caFile,
    });
    try {
      await dispatch.waitFor(/Dispatching webhooks from/, 60_000);
      const [delivery] = await receiver.waitFor(1, 60_000);
      expect(delivery?.headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    } finally {
      await dispatch.stop('SIGKILL');
    }
  });
});
