import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leasedDeliveries } from '../../test/webhooks/leased-deliveries.js';
import type { LoopbackReceiver } from '../../test/webhooks/loopback-receiver.js';
import { platformWithReceiver } from '../../test/webhooks/webhook-kit.js';
import { type TestPlatform, testDatabaseTargets } from '../testing.js';
import type { ClaimedDelivery } from './claim-queries.js';
import { prepareJobs } from './delivery-jobs.js';
import { DEFAULT_LEASE_MS } from './lease-keeper.js';

describe.each(testDatabaseTargets())('delivery jobs on $dialect', (target) => {
  let platform: TestPlatform;
  let receiver: LoopbackReceiver;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ platform, receiver, close } = await platformWithReceiver(target));
  });
  afterAll(() => close());

  async function claims(count: number): Promise<ClaimedDelivery[]> {
    const leaseUntil = platform.clock.now().getTime() + DEFAULT_LEASE_MS;
    return (await leasedDeliveries(platform, { webhook: receiver.url, count, worker: 'jobs-worker', leaseUntil })).claims;
  }

  it('a claim becomes a job with its subscription, its event body and its endpoint origin', async () => {
    const [claim] = (await claims(1)) as [ClaimedDelivery];
    const { jobs, unsendable, origins } = await prepareJobs(platform.database.db, [claim], null, 1234);
    const origin = new URL(receiver.url).origin;
    expect(unsendable).toEqual([]);
    expect(origins).toEqual([{ subscriptionId: claim.subscription_id, origin }]);
    expect(jobs).toHaveLength(1);
    const [{ origin: jobOrigin, job }] = jobs as [(typeof jobs)[number]];
    expect(jobOrigin).toBe(origin);
    expect(job).toMatchObject({ claim, leaseUntil: 1234, subscription: { id: claim.subscription_id, url: receiver.url } });
    expect(JSON.parse(job.body)).toMatchObject({ topic: 'sac_ticket', data: { status: 'CREATION' } });
  });

  it('W4: a claim of a disabled subscription, or of one that is gone, is not sent and says why', async () => {
    const [disabled] = (await claims(1)) as [ClaimedDelivery];
    await platform.database.db
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled' })
      .where('id', '=', disabled.subscription_id)
      .execute();
    const gone: ClaimedDelivery = { ...disabled, id: `${disabled.id}-gone`, subscription_id: 'no-such-subscription' };
    const { jobs, unsendable } = await prepareJobs(platform.database.db, [disabled, gone], null, 0);
    expect(jobs).toEqual([]);
    expect(unsendable).toEqual([
      { claim: disabled, reason: 'subscription disabled' },
      { claim: gone, reason: 'subscription removed' },
    ]);
  });

  it('what the fan-out already read is used as it is, not read again', async () => {
    const [claim] = (await claims(1)) as [ClaimedDelivery];
    const stored = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('id', '=', claim.subscription_id)
      .executeTakeFirstOrThrow();
    const { jobs } = await prepareJobs(
      platform.database.db,
      [claim],
      { bodies: new Map([[claim.event_id, '{"from":"the fan-out"}']]), subscriptions: [stored] },
      0,
    );
    expect(jobs.map(({ job }) => job.body)).toEqual(['{"from":"the fan-out"}']);
  });
});
