import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '../records/outbox.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { signUp } from '../webhooks/subscription-store.js';
import { healthOverHour } from './operator-health-console.js';

const MINUTE_MS = 60_000;

/**
 * The operator's health page, minute by minute over the last hour: work
 * waiting (events not fanned out, deliveries not finished) and the age of the
 * oldest, delivery attempts by outcome and quote latency, each read from the
 * capability that keeps it (records' outbox, webhooks, the quote log).
 */
describe.each(testDatabaseTargets())('operator health over the hour on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  it('counts waiting work and its oldest age, attempts by outcome and quote p50/p99, each in its minute', async () => {
    const { db } = platform.database;
    const deps = platform.app.platform;
    const t0 = platform.clock.now().getTime();
    const at = (minutes: number) => new Date(t0 + minutes * MINUTE_MS).toISOString();
    const seller = await platform.createSeller();
    const tenantId = seller.tenantIds[0] as string;
    const { clientId } = await platform.createClient();
    const [first, second] = await signUp(
      db,
      { clientId, tenantId, topics: ['order', 'sac_ticket'], url: 'http://127.0.0.1:9/hooks', version: 'v0' },
      deps,
    );
    // An event never fanned out (no dispatcher here): it waits from t0 on.
    const eventId = await appendEvent(
      db,
      { tenantId, topic: 'order', status: 'CREATION', recordId: 'o-1', resource: '/seller/v0/orders/o-1' },
      deps,
    );
    const delivery = (id: string, created: number, state: 'succeeded' | 'pending', delivered: number | null) => ({
      id,
      event_id: eventId,
      // One delivery per (event, subscription): a second subscription carries the second delivery.
      subscription_id: (state === 'pending' ? second?.id : first?.id) as string,
      tenant_id: tenantId,
      topic: state === 'pending' ? 'ticket' : 'order',
      state,
      next_attempt_at: state === 'pending' ? at(created) : null,
      lease_owner: null,
      lease_until: null,
      last_status_code: null,
      last_error: null,
      event_created_at: at(0),
      created_at: at(created),
      updated_at: at(delivered ?? created),
      delivered_at: delivered === null ? null : at(delivered),
    });
    await db
      .insertInto('webhook_deliveries')
      .values([delivery('d-done', 5, 'succeeded', 7), delivery('d-waiting', -30, 'pending', null)])
      .execute();
    const attempt = (n: number, outcome: 'succeeded' | 'failed', minute: number) => ({
      delivery_id: 'd-done',
      attempt: n,
      fence: n,
      worker: 'test',
      outcome,
      status_code: outcome === 'succeeded' ? 200 : 500,
      duration_ms: 12,
      error: null,
      response_body: null,
      request_headers: null,
      next_attempt_at: null,
      started_at: at(minute),
    });
    await db
      .insertInto('webhook_delivery_attempts')
      .values([attempt(1, 'failed', 5), attempt(2, 'succeeded', 7)])
      .execute();
    const call = (id: string, latencyMs: number) => ({
      id,
      tenant_id: tenantId,
      session_id: id,
      purpose: 'storefront' as const,
      outcome: 'ok',
      latency_ms: latencyMs,
      http_status: 200,
      detail: null,
      fallback_used: 0,
      gateway_kind: null,
      created_at: at(30),
    });
    await platform.app.shipping.quoteLog.store.write([call('q-fast', 100), call('q-slow', 300)]);

    const now = new Date(t0 + 40.5 * MINUTE_MS);
    const { points, truncated } = await healthOverHour(platform.app, now);
    expect(truncated).toBe(false);
    expect(points).toHaveLength(60);
    const minute = (m: number) => points.find((p) => p.start === at(m));
    // The last point is now: the event (since t0) and the delivery pending since before the hour (t0-30) wait.
    expect(points.at(-1)).toMatchObject({ backlog: 2, oldestPendingSeconds: 70.5 * 60 });
    // At the end of t0+5's minute the finished delivery was still waiting too.
    expect(minute(5)).toMatchObject({ backlog: 3, failed: 1, succeeded: 0 });
    expect(minute(7)).toMatchObject({ backlog: 2, failed: 0, succeeded: 1 });
    expect(minute(30)).toMatchObject({ quoteP50Ms: 100, quoteP99Ms: 300 });
    expect(minute(29)).toMatchObject({ quoteP50Ms: null, quoteP99Ms: null, succeeded: 0, failed: 0 });
  });
});
