import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leasedDeliveries } from '../../test/webhooks/leased-deliveries.js';
import type { LoopbackReceiver } from '../../test/webhooks/loopback-receiver.js';
import { platformWithReceiver } from '../../test/webhooks/webhook-kit.js';
import { pollUntil, type TestPlatform, testDatabaseTargets } from '../testing.js';
import type { ClaimedDelivery } from './claim-queries.js';
import type { FinishedAttempt } from './delivery-log.js';
import { DEFAULT_LEASE_MS } from './lease-keeper.js';
import { ResultRecorder, type ResultRecorderOptions } from './result-recorder.js';
import { webhookMetrics } from './webhook-metrics.js';

const WORKER = 'recorder-worker';

describe.each(testDatabaseTargets())('result recorder on $dialect', (target) => {
  let platform: TestPlatform;
  let receiver: LoopbackReceiver;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ platform, receiver, close } = await platformWithReceiver(target));
  });
  afterAll(() => close());

  function recorder(options: ResultRecorderOptions = {}) {
    const registry = new Registry();
    const metrics = webhookMetrics(registry);
    const errors: string[] = [];
    const rec = new ResultRecorder(
      {
        database: platform.database,
        random: platform.app.platform.random,
        metrics,
        log: { error: (_obj, message) => errors.push(message) },
      },
      options,
    );
    const outcomes = async () =>
      Object.fromEntries((await metrics.deliveries.get()).values.map((v) => [v.labels.outcome, v.value]));
    return { rec, outcomes, errors };
  }

  async function deliveries(count: number): Promise<{ tenantId: string; claims: ClaimedDelivery[] }> {
    const leaseUntil = platform.clock.now().getTime() + DEFAULT_LEASE_MS;
    return leasedDeliveries(platform, { webhook: receiver.url, count, worker: WORKER, leaseUntil });
  }

  function attempt(claim: ClaimedDelivery, statusCode: number): FinishedAttempt {
    const at = platform.clock.now();
    return {
      claim,
      worker: WORKER,
      startedAt: at,
      finishedAt: at,
      result: {
        ok: statusCode < 300,
        statusCode,
        error: statusCode < 300 ? null : `HTTP ${statusCode}`,
        responseBody: 'answer',
        requestHeaders: {},
        durationMs: 1,
        retryAfterMs: null,
      },
    };
  }

  const rowsOf = async (tenantId: string) =>
    new Map(
      (
        await platform.database.db
          .selectFrom('webhook_deliveries')
          .select(['id', 'state', 'lease_owner', 'attempts', 'last_error'])
          .where('tenant_id', '=', tenantId)
          .execute()
      ).map((row) => [row.id, row]),
    );

  it('W4 / W6: a succeeded, a failed, a skipped and a given-back delivery are recorded together at the flush, each with its outcome', async () => {
    const { tenantId, claims } = await deliveries(4);
    const [ok, failing, skipped, released] = claims as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
    const { rec, outcomes } = recorder({ flushDelayMs: 3_600_000 });
    rec.finished(attempt(ok, 200));
    rec.finished(attempt(failing, 500));
    rec.skipped({ claim: skipped, reason: 'subscription disabled', at: platform.clock.now() });
    rec.released(released);
    expect(rec.pending).toBe(4);
    expect((await rowsOf(tenantId)).get(ok.id)?.state).toBe('pending'); // not written before the flush
    await rec.flush();
    expect(rec.pending).toBe(0);
    const rows = await rowsOf(tenantId);
    expect(rows.get(ok.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(rows.get(failing.id)).toMatchObject({ state: 'pending', attempts: 1, lease_owner: null, last_error: 'HTTP 500' });
    expect(rows.get(skipped.id)).toMatchObject({ state: 'dead', lease_owner: null, last_error: 'subscription disabled' });
    expect(rows.get(released.id)).toMatchObject({ state: 'pending', attempts: 0, lease_owner: null });
    expect(await outcomes()).toMatchObject({ succeeded: 1, failed: 1, dead: 1 });
  });

  it('W6: results are written once a batch is full, without a flush', async () => {
    const { tenantId, claims } = await deliveries(3);
    const { rec } = recorder({ flushBatch: 3, flushDelayMs: 3_600_000 });
    for (const claim of claims.slice(0, 2)) rec.finished(attempt(claim, 200));
    expect(rec.pending).toBe(2);
    rec.finished(attempt(claims[2] as ClaimedDelivery, 200));
    expect(rec.pending).toBe(0);
    await pollUntil('the full batch written', async () => {
      const rows = await rowsOf(tenantId);
      return [...rows.values()].every((row) => row.state === 'succeeded') ? true : undefined;
    });
  });

  it('W6: a result fenced out (another worker claimed the delivery since) changes nothing and is counted stale', async () => {
    const { tenantId, claims } = await deliveries(1);
    const claim = claims[0] as ClaimedDelivery;
    // Another worker's claim after an expiry moves the fencing token on.
    await platform.database.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'other-worker', fence: claim.fence + 1 })
      .where('id', '=', claim.id)
      .execute();
    const { rec, outcomes } = recorder();
    rec.finished(attempt(claim, 200));
    await rec.flush();
    expect((await rowsOf(tenantId)).get(claim.id)).toMatchObject({ state: 'pending', attempts: 0, lease_owner: 'other-worker' });
    expect(await outcomes()).toEqual({ stale: 1 });
  });

  it('W6: a result whose delivery is gone is dropped as stale; the rest of its batch is recorded', async () => {
    const { tenantId, claims } = await deliveries(2);
    const [gone, kept] = claims as [ClaimedDelivery, ClaimedDelivery];
    const { rec, outcomes, errors } = recorder();
    rec.finished(attempt(gone, 200));
    rec.finished(attempt(kept, 200));
    await platform.database.db.deleteFrom('webhook_deliveries').where('id', '=', gone.id).execute();
    await rec.flush();
    expect((await rowsOf(tenantId)).get(kept.id)?.state).toBe('succeeded');
    expect(await outcomes()).toEqual({ succeeded: 1, stale: 1 });
    expect(errors).toEqual([]);
  });
});
