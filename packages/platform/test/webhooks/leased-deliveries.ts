import type { TestPlatform } from '../../src/testing.js';
import type { ClaimedDelivery } from '../../src/webhooks/claim-queries.js';
import { fanOutEvents } from '../../src/webhooks/fan-out.js';
import { recordChange, sellerWithToken, signup } from './webhook-kit.js';

/**
 * `count` deliveries to `webhook`, fanned out already leased to `worker` until `leaseUntil` (epoch ms), as
 * the dispatcher's fan-out leaves them: what the dispatcher's parts are tested with, without a dispatcher.
 */
export async function leasedDeliveries(
  platform: TestPlatform,
  options: { webhook: string; count: number; worker: string; leaseUntil: number },
): Promise<{ tenantId: string; claims: ClaimedDelivery[] }> {
  const seller = await sellerWithToken(platform);
  const answer = await signup(platform, seller, 'v1', options.webhook);
  if (answer.statusCode !== 200) throw new Error(`signup: HTTP ${answer.statusCode} ${answer.body}`);
  for (let i = 0; i < options.count; i++) await recordChange(platform, { tenantId: seller.tenantId });
  const { leased } = await fanOutEvents(platform.database, platform.app.platform, options.count, {
    worker: options.worker,
    leaseUntilIso: new Date(options.leaseUntil).toISOString(),
    max: options.count,
  });
  return { tenantId: seller.tenantId, claims: leased.map((l) => l.claim) };
}
