import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, startReceiver } from '../../test/webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, sellerWithToken, signup } from '../../test/webhooks/webhook-kit.js';
import { createTestPlatform, pollUntil, type TestPlatform, testDatabaseTargets, testTls } from '../testing.js';
import { DEFAULT_LEASE_MS } from './webhook-dispatcher.js';

describe.each(testDatabaseTargets())('delivery leases on $dialect', (target) => {
  let platform: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) {
      r.release();
      await r.close();
    }
  });
  afterAll(() => platform.close());

  it('W6: a live worker renews its leases, so a request longer than one lease is not taken over; a silent one loses them after one lease', async () => {
    const hooks = await startReceiver({ tls: true, answer: () => 'hang' });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    for (let i = 0; i < 5; i++) await recordChange(platform, { tenantId: seller.tenantId });

    // Worker A fans the five events out, leasing their deliveries to itself; the requests hang at the receiver.
    const a = dispatcherOf(platform, { worker: 'worker-a', requestTimeoutMs: 60_000 });
    expect(await a.fanOut()).toBe(5);
    await pollUntil('five requests held open', () => (hooks.hanging === 5 ? true : undefined));
    const b = dispatcherOf(platform, { worker: 'worker-b' });

    // A renews before its lease runs out: twice a lease later, the deliveries are still A's.
    for (let i = 0; i < 4; i++) {
      platform.clock.advance(DEFAULT_LEASE_MS / 2);
      await a.renewLeases();
    }
    expect(await b.claimAndSend()).toBe(0);

    // A falls silent (as after a SIGKILL): one lease later B takes all five.
    platform.clock.advance(DEFAULT_LEASE_MS + 1);
    const owners = () =>
      platform.database.db
        .selectFrom('webhook_deliveries')
        .select('lease_owner')
        .where('tenant_id', '=', seller.tenantId)
        .execute();
    expect(await b.claimAndSend()).toBe(5);
    expect((await owners()).map((o) => o.lease_owner)).toEqual(Array(5).fill('worker-b'));
    // A renewal by the worker that lost its leases does not take them back.
    await a.renewLeases();
    expect((await owners()).map((o) => o.lease_owner)).toEqual(Array(5).fill('worker-b'));
    hooks.release();
    await b.idle();
    await a.idle();
  });
});
