import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leasedDeliveries } from '../../test/webhooks/leased-deliveries.js';
import type { LoopbackReceiver } from '../../test/webhooks/loopback-receiver.js';
import { platformWithReceiver } from '../../test/webhooks/webhook-kit.js';
import { type TestPlatform, testDatabaseTargets } from '../testing.js';
import { DEFAULT_LEASE_MS, LeaseKeeper } from './lease-keeper.js';

describe.each(testDatabaseTargets())('lease keeper on $dialect', (target) => {
  let platform: TestPlatform;
  let receiver: LoopbackReceiver;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ platform, receiver, close } = await platformWithReceiver(target));
  });
  afterAll(() => close());

  const leasesOf = (tenantId: string) =>
    platform.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'lease_owner', 'lease_until'])
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();

  it('W6: a renewal extends by a full lease from now the deliveries the worker holds, and only those', async () => {
    const worker = 'keeper-a';
    const leaseUntil = platform.clock.now().getTime() + DEFAULT_LEASE_MS;
    const { tenantId, claims } = await leasedDeliveries(platform, { webhook: receiver.url, count: 3, worker, leaseUntil });
    const keeper = new LeaseKeeper(platform.app.platform, { worker });
    const [first, second, third] = claims;
    if (!first || !second || !third) throw new Error('three deliveries expected');
    keeper.hold(first);
    keeper.hold(second);
    keeper.hold(third);
    keeper.release(third.id); // finished: no longer renewed
    expect(keeper.size).toBe(2);

    platform.clock.advance(DEFAULT_LEASE_MS / 2);
    await keeper.renew();
    const renewed = new Date(platform.clock.now().getTime() + DEFAULT_LEASE_MS).toISOString();
    const after = new Map((await leasesOf(tenantId)).map((row) => [row.id, row]));
    expect(after.get(first.id)?.lease_until).toBe(renewed);
    expect(after.get(second.id)?.lease_until).toBe(renewed);
    expect(after.get(third.id)?.lease_until).toBe(new Date(leaseUntil).toISOString());
  });

  it('W6: a renewal leaves a delivery another worker took over with its new owner', async () => {
    const leaseUntil = platform.clock.now().getTime() + DEFAULT_LEASE_MS;
    const { tenantId, claims } = await leasedDeliveries(platform, {
      webhook: receiver.url,
      count: 1,
      worker: 'keeper-b',
      leaseUntil,
    });
    const keeper = new LeaseKeeper(platform.app.platform, { worker: 'keeper-b' });
    for (const claim of claims) keeper.hold(claim);
    // Another worker's claim after the lease ran out.
    await platform.database.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'keeper-c' })
      .where('tenant_id', '=', tenantId)
      .execute();
    platform.clock.advance(DEFAULT_LEASE_MS + 1);
    await keeper.renew();
    const [row] = await leasesOf(tenantId);
    expect(row?.lease_owner).toBe('keeper-c');
    expect(row?.lease_until).toBe(new Date(leaseUntil).toISOString());
  });

  it('W6 fencing: once a renewal succeeds again after failing, a held delivery another worker took over is not sent, the others are', async () => {
    const leaseUntil = platform.clock.now().getTime() + DEFAULT_LEASE_MS;
    const { tenantId, claims } = await leasedDeliveries(platform, {
      webhook: receiver.url,
      count: 2,
      worker: 'keeper-f',
      leaseUntil,
    });
    const [taken, kept] = claims;
    if (!taken || !kept) throw new Error('two deliveries expected');
    const keeper = new LeaseKeeper(platform.app.platform, { worker: 'keeper-f' });
    keeper.hold(taken);
    keeper.hold(kept);
    // Renewals failed past the lease's end (a partition); another worker claimed one of the two meanwhile.
    await platform.database.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'keeper-g' })
      .where('id', '=', taken.id)
      .execute();
    platform.clock.advance(DEFAULT_LEASE_MS + 1);
    expect(keeper.canSend(kept.id, leaseUntil)).toBe(false);
    await keeper.renew(); // the database answers again
    expect(keeper.canSend(kept.id, leaseUntil)).toBe(true);
    expect(keeper.canSend(taken.id, leaseUntil)).toBe(false);
    expect((await leasesOf(tenantId)).find((row) => row.id === taken.id)?.lease_owner).toBe('keeper-g');
    // Released (given back), the id is forgotten: a later claim of it by this worker is sent as usual.
    keeper.release(taken.id);
    expect(keeper.canSend(taken.id, leaseUntil)).toBe(true);
  });

  it('W6: a job may be sent while its lease or the last renewal has half a lease to run, and not once renewals stop', async () => {
    const keeper = new LeaseKeeper(platform.app.platform, { worker: 'keeper-d' });
    const claimedAt = platform.clock.now();
    const leaseUntil = keeper.leaseUntil(claimedAt);
    expect(keeper.canSend('delivery-1', leaseUntil)).toBe(true);
    platform.clock.advance(DEFAULT_LEASE_MS / 2 - 1);
    expect(keeper.canSend('delivery-1', leaseUntil)).toBe(true);
    platform.clock.advance(2);
    expect(keeper.canSend('delivery-1', leaseUntil)).toBe(false);
    // A renewal (of nothing held, here) moves the horizon of every job claimed before it.
    await keeper.renew();
    expect(keeper.canSend('delivery-1', leaseUntil)).toBe(true);
    expect(keeper.lastRenewalAt).toBe(platform.clock.now().getTime());
  });

  it('W6: a renewal that fails (the database gone) is logged and moves nothing: a held job is given back half a lease after its claim', async () => {
    const errors: string[] = [];
    const closed = await target.open();
    await closed.close();
    const keeper = new LeaseKeeper(
      { clock: platform.clock, database: closed, log: { error: (_obj, message) => errors.push(message) } },
      { worker: 'keeper-e', leaseMs: 4_000 },
    );
    expect(keeper.renewMs).toBe(1_000);
    const leaseUntil = keeper.leaseUntil(platform.clock.now());
    keeper.hold({ id: 'delivery-1', event_id: 'event-1', subscription_id: 'subscription-1', attempts: 0, fence: 1 });
    platform.clock.advance(1_000);
    await keeper.renew();
    expect(errors).toEqual(['renewing webhook delivery leases failed']);
    expect(keeper.lastRenewalAt).toBe(0);
    platform.clock.advance(1_001);
    expect(keeper.canSend('delivery-1', leaseUntil)).toBe(false);
  });
});
