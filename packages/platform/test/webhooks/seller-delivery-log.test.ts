import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import { type LoopbackReceiver, startReceiver } from './loopback-receiver.js';
import { dispatcherOf, recordChange, SELLER_SCOPES, signup } from './webhook-kit.js';

/**
 * The seller's delivery log as an app's tools call it with a bearer
 * token: each attempt's request headers and the exact body, and "resend all
 * failed since", which touches only the calling app's own deliveries.
 */
describe.each(testDatabaseTargets())('seller delivery log API on $dialect', (target) => {
  let platform: TestPlatform;
  let hooks: LoopbackReceiver;
  let failing = true;

  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca, clock: new ManualClock(new Date()) });
    hooks = await startReceiver({ tls: true, answer: () => (failing ? { status: 503 } : { status: 204 }) });
  });
  afterAll(async () => {
    await hooks?.close();
    await platform?.close();
  });

  async function appIn(tenantId: string) {
    const app = await platform.createClient();
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: [...SELLER_SCOPES], clientId: app.clientId });
    const signed = await signup(platform, { tenantId, clientId: app.clientId, token }, 'v1', `${hooks.url}/hooks`);
    expect(signed.statusCode).toBe(200);
    return { clientId: app.clientId, token };
  }

  const get = (url: string, token: string) =>
    platform.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  const redeliverFailed = (token: string, payload: unknown) =>
    platform.app.inject({
      method: 'POST',
      url: '/seller/v1/webhooks/deliveries/redeliver-failed',
      headers: { authorization: `Bearer ${token}` },
      payload: payload as Record<string, unknown>,
    });

  it('a delivery shows each attempt with the headers it was sent with (signature included) and the exact body the receiver got', async () => {
    const { tenantIds } = await platform.createSeller();
    const tenantId = tenantIds[0] as string;
    const app = await appIn(tenantId);
    failing = true;
    const before = hooks.received.length;
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    const [sent] = await hooks.waitFor(before + 1);
    const received = hooks.received[before] ?? sent;
    const list = await get('/seller/v1/webhooks/deliveries', app.token);
    const [delivery] = list.json().results as Array<{ id: string }>;
    const one = await get(`/seller/v1/webhooks/deliveries/${delivery?.id}`, app.token);
    expect(one.statusCode).toBe(200);
    const body = one.json() as {
      request_body: string;
      attempt_log: Array<{ request_headers: Record<string, string>; status_code: number }>;
    };
    expect(body.request_body).toBe(received?.raw.toString('utf8'));
    const attempt = body.attempt_log[0];
    expect(attempt?.status_code).toBe(503);
    expect(attempt?.request_headers['x-signature-256']).toBe(received?.headers['x-signature-256']);
    expect(attempt?.request_headers['x-webhook-id']).toBe(delivery?.id);
  });

  it('spec-notes W4: "resend all failed since" with an app token sends only that app\'s dead deliveries again; a bad since is a 422 in the uniform error shape', async () => {
    const { tenantIds } = await platform.createSeller();
    const tenantId = tenantIds[0] as string;
    const mine = await appIn(tenantId);
    const other = await appIn(tenantId);
    failing = true;
    await recordChange(platform, { tenantId });
    await dispatcherOf(platform).runOnce();
    // Both subscriptions disabled: their pending deliveries end dead at the next claim (W4).
    await platform.database.db
      .updateTable('webhook_subscriptions')
      .set({ state: 'disabled' })
      .where('tenant_id', '=', tenantId)
      .execute();
    platform.clock.advance(3_600_000);
    await dispatcherOf(platform).runOnce();
    const states = await platform.database.db
      .selectFrom('webhook_deliveries')
      .select('state')
      .where('tenant_id', '=', tenantId)
      .execute();
    expect(states.map((s) => s.state)).toEqual(['dead', 'dead']);

    const since = new Date(platform.clock.now().getTime() - 2 * 3_600_000).toISOString();
    const resent = await redeliverFailed(mine.token, { since });
    expect(resent.statusCode).toBe(202);
    expect(resent.json()).toEqual({ redelivered: 1 });
    const after = await platform.database.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_subscriptions', 'webhook_subscriptions.id', 'webhook_deliveries.subscription_id')
      .select(['webhook_subscriptions.client_id', 'webhook_deliveries.state'])
      .where('webhook_deliveries.tenant_id', '=', tenantId)
      .execute();
    expect(after.find((r) => r.client_id === mine.clientId)?.state).toBe('pending');
    expect(after.find((r) => r.client_id === other.clientId)?.state).toBe('dead');

    // A "since" after the deliveries were made matches none of them.
    const later = await redeliverFailed(other.token, { since: platform.clock.now().toISOString() });
    expect(later.json()).toEqual({ redelivered: 0 });

    for (const payload of [
      { since: 'yesterday' },
      { since: new Date(platform.clock.now().getTime() + 60_000).toISOString() },
      {},
    ]) {
      const refused = await redeliverFailed(mine.token, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(422);
      expect(refused.json()).toMatchObject({
        slug: expect.any(String),
        details: [expect.objectContaining({ field: expect.stringContaining('since') })],
      });
    }
  });
});
