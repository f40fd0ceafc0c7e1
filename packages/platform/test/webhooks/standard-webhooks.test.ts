// spec-notes W10: a v1 subscription that asks for it gets the Standard
// Webhooks headers beside the spec's own, verified here by the
// `standardwebhooks` and `svix` libraries exactly as a receiver would call them.
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets, testTls } from '../../src/testing.js';
import { type LoopbackReceiver, type ReceivedRequest, startReceiver } from './loopback-receiver.js';
import { dispatcherOf, recordChange, type Seller, sellerWithToken } from './webhook-kit.js';

/** The headers as a receiver's framework hands them over: lower-case names, string values. */
function headersOf(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
}

describe.each(testDatabaseTargets())('Standard Webhooks on $dialect', (target) => {
  let platform: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  beforeAll(async () => {
    // The libraries check the timestamp against the real clock (5 minutes either way): the platform's starts at now.
    platform = await createTestPlatform(target, { outboundCa: testTls.ca, clock: new ManualClock(new Date()) });
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => platform.close());

  async function signupV1(seller: Seller, url: string, standardWebhooks?: boolean, version: 'v0' | 'v1' = 'v1') {
    return platform.app.inject({
      method: 'PUT',
      url: `/${version}/onboarding/signup`,
      headers: { authorization: `Bearer ${seller.token}` },
      payload: {
        webhook: url,
        topics: ['sac_ticket'],
        ...(standardWebhooks === undefined ? {} : { standard_webhooks: standardWebhooks }),
      },
    });
  }

  async function deliveredTo(seller: Seller, hooks: LoopbackReceiver, count: number): Promise<ReceivedRequest> {
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    return (await hooks.waitFor(count))[count - 1] as ReceivedRequest;
  }

  it('spec-notes W10 (Standard Webhooks): an opted-in v1 delivery verifies with the standardwebhooks and svix libraries as they are, and with the spec signature', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const res = await signupV1(seller, hooks.url, true);
    expect(res.statusCode).toBe(200);
    const subscription = res.json().subscriptions[0];
    expect(subscription.standard_webhooks).toBe(true);
    const secret = subscription.parameters.secret as string;
    // spec-notes W2: whsec_ + 32 bytes in base64, which both libraries decode.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const request = await deliveredTo(seller, hooks, 1);
    const headers = headersOf(request);
    const body = request.raw.toString('utf8');
    expect(headers['webhook-id']).toBe(headers['x-webhook-id']);
    expect(headers['webhook-timestamp']).toBe(headers['x-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new SvixWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The spec's own scheme is still there and still verifies (spec "Signature (v1 only)").
    const digest = createHmac('sha256', secret).update(`${headers['x-timestamp']}.`).update(request.raw).digest('hex');
    expect(headers['x-signature-256']).toBe(`sha256=${digest}`);
  });

  it('spec-notes W10 (Standard Webhooks): a tampered body or another secret fails both libraries', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const secret = (await signupV1(seller, hooks.url, true)).json().subscriptions[0].parameters.secret as string;
    const request = await deliveredTo(seller, hooks, 1);
    const headers = headersOf(request);
    const tampered = request.raw.toString('utf8').replace('"CREATION"', '"DELETION"');
    expect(() => new StandardWebhook(secret).verify(tampered, headers)).toThrow();
    expect(() => new SvixWebhook(secret).verify(tampered, headers)).toThrow();
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => new StandardWebhook(other).verify(request.raw.toString('utf8'), headers)).toThrow();
  });

  it('spec-notes W10 / "Limits" (grace period): after a new signup both secrets sign in webhook-signature too, so either verifies during the grace hour', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const before = (await signupV1(seller, hooks.url, true)).json().subscriptions[0].parameters.secret as string;
    const after = (await signupV1(seller, hooks.url, true)).json().subscriptions[0].parameters.secret as string;
    expect(after).not.toBe(before);
    const request = await deliveredTo(seller, hooks, 1);
    const headers = headersOf(request);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(headers['x-signature-256']?.split(',')).toHaveLength(2);
    const body = request.raw.toString('utf8');
    expect(new StandardWebhook(after).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new StandardWebhook(before).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new SvixWebhook(before).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('spec-notes W10: without the option (the default) only the spec headers are sent; a signup without it turns it off; v0 refuses it', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const plain = (await signupV1(seller, hooks.url)).json().subscriptions[0];
    expect(plain.standard_webhooks).toBe(false);
    const first = headersOf(await deliveredTo(seller, hooks, 1));
    expect(first['x-signature-256']).toBeDefined();
    expect(first['webhook-signature']).toBeUndefined();
    expect(first['webhook-id']).toBeUndefined();

    await signupV1(seller, hooks.url, true);
    expect(headersOf(await deliveredTo(seller, hooks, 2))['webhook-signature']).toBeDefined();
    await signupV1(seller, hooks.url, false);
    expect(headersOf(await deliveredTo(seller, hooks, 3))['webhook-signature']).toBeUndefined();

    const v0 = await signupV1(seller, hooks.url, true, 'v0');
    expect(v0.statusCode).toBe(422);
    expect(v0.json()).toEqual(
      expect.objectContaining({
        slug: 'UNPROCESSABLE_ENTITY',
        details: [expect.objectContaining({ field: 'standard_webhooks', location: 'body' })],
      }),
    );
  });
});
