// verifyStandardWebhook against what the reference library signs, and against
// real deliveries of the platform's dispatcher (spec-notes W10).
import { createTestPlatform, ManualClock, type TestPlatform, testDatabaseTargets, testTls } from '@feira/platform/testing';
import { verifyStandardWebhook, verifyWebhook, WebhookVerificationError } from '@feira/sdk';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, type ReceivedRequest, startReceiver } from '../../platform/test/webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, type Seller, sellerWithToken } from '../../platform/test/webhooks/webhook-kit.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const NOW = new Date('2026-01-15T12:00:00.000Z');
const ID = 'a3f1c2d4-0000-4000-8000-000000000001';
const BODY =
  '{"data":{"status":"CREATION","params":{"id":"7d1c"},"resource":"/seller/v0/tickets/7d1c"},"tenant_id":"0f8fad5b-d9cb-469f-a165-70867728950e","topic":"sac_ticket"}';

/** Headers as the reference library's signer makes them. */
function signed(secret: string, at: Date = NOW, body: string = BODY, id: string = ID): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new ReferenceWebhook(secret).sign(id, at, body),
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
  return undefined;
}

describe('verifyStandardWebhook against the standardwebhooks reference signer', () => {
  it('spec-notes W10: accepts `v1,<base64>` of HMAC-SHA256 over "<id>.<timestamp>.<body>" keyed by the base64 part of whsec_, returning the id and the message', () => {
    const { id, message } = verifyStandardWebhook({ rawBody: BODY, headers: signed(SECRET), secrets: SECRET, now: NOW });
    expect(id).toBe(ID);
    expect(message.topic).toBe('sac_ticket');
    expect(message.data.resource).toBe('/seller/v0/tickets/7d1c');
  });

  it('takes a Buffer body, Fetch Headers in any case, and several space-separated entries or secrets (rotation)', () => {
    const headers = signed(SECRET);
    const both = `${signed(OTHER)['webhook-signature']} ${headers['webhook-signature']}`;
    const fetchHeaders = new Headers({
      'Webhook-Id': ID,
      'Webhook-Timestamp': headers['webhook-timestamp'] ?? '',
      'Webhook-Signature': both,
    });
    expect(verifyStandardWebhook({ rawBody: Buffer.from(BODY), headers: fetchHeaders, secrets: SECRET, now: NOW }).id).toBe(ID);
    expect(verifyStandardWebhook({ rawBody: BODY, headers: signed(OTHER), secrets: [SECRET, OTHER], now: NOW }).id).toBe(ID);
  });

  it('ERR_SIGNATURE_MISMATCH: another body, another id, another secret, or a v1a entry only', () => {
    const headers = signed(SECRET);
    const tampered = BODY.replace('CREATION', 'DELETION');
    expect(codeOf(() => verifyStandardWebhook({ rawBody: tampered, headers, secrets: SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
    expect(
      codeOf(() =>
        verifyStandardWebhook({ rawBody: BODY, headers: { ...headers, 'webhook-id': 'other' }, secrets: SECRET, now: NOW }),
      ),
    ).toBe('ERR_SIGNATURE_MISMATCH');
    expect(codeOf(() => verifyStandardWebhook({ rawBody: BODY, headers, secrets: OTHER, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
    expect(
      codeOf(() =>
        verifyStandardWebhook({
          rawBody: BODY,
          headers: { ...headers, 'webhook-signature': `${headers['webhook-signature']}x` },
          secrets: SECRET,
          now: NOW,
        }),
      ),
    ).toBe('ERR_SIGNATURE_MISMATCH');
    const asymmetric = { ...headers, 'webhook-signature': (headers['webhook-signature'] ?? '').replace('v1,', 'v1a,') };
    expect(codeOf(() => verifyStandardWebhook({ rawBody: BODY, headers: asymmetric, secrets: SECRET, now: NOW }))).toBe(
      'ERR_SIGNATURE_MISSING',
    );
  });

  it('ERR_SIGNATURE_MISSING when any of the three headers is absent', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers: Record<string, string> = { ...signed(SECRET) };
      delete headers[name];
      expect(codeOf(() => verifyStandardWebhook({ rawBody: BODY, headers, secrets: SECRET, now: NOW }))).toBe(
        'ERR_SIGNATURE_MISSING',
      );
    }
  });

  it('ERR_TIMESTAMP_OUT_OF_RANGE beyond 5 minutes either way (the Standard Webhooks tolerance), accepted within it', () => {
    const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
    for (const offset of [-301, 301]) {
      expect(
        codeOf(() => verifyStandardWebhook({ rawBody: BODY, headers: signed(SECRET, at(offset)), secrets: SECRET, now: NOW })),
      ).toBe('ERR_TIMESTAMP_OUT_OF_RANGE');
    }
    for (const offset of [-300, 300]) {
      expect(verifyStandardWebhook({ rawBody: BODY, headers: signed(SECRET, at(offset)), secrets: SECRET, now: NOW }).id).toBe(
        ID,
      );
    }
  });

  it('ERR_PAYLOAD_INVALID for an authentic body that is not a webhook message; a secret with no key bytes is a programming error', () => {
    const body = '{"hello":"world"}';
    expect(
      codeOf(() => verifyStandardWebhook({ rawBody: body, headers: signed(SECRET, NOW, body), secrets: SECRET, now: NOW })),
    ).toBe('ERR_PAYLOAD_INVALID');
    expect(() => verifyStandardWebhook({ rawBody: BODY, headers: signed(SECRET), secrets: 'whsec_', now: NOW })).toThrow(
      TypeError,
    );
  });
});

/** The headers as a receiver's framework hands them over: lower-case names, string values. */
function headersOf(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
}

describe.each(testDatabaseTargets())('verifyStandardWebhook on real platform deliveries ($dialect)', (target) => {
  let platform: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca, clock: new ManualClock(new Date()) });
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => platform?.close());

  async function signupV1(seller: Seller, url: string): Promise<string> {
    const res = await platform.app.inject({
      method: 'PUT',
      url: '/v1/onboarding/signup',
      headers: { authorization: `Bearer ${seller.token}` },
      payload: { webhook: url, topics: ['sac_ticket'], standard_webhooks: true },
    });
    expect(res.statusCode).toBe(200);
    return res.json().subscriptions[0].parameters.secret as string;
  }

  it('spec-notes W10: a v1 delivery with standard_webhooks verifies with verifyStandardWebhook (id = X-Webhook-Id) and with verifyWebhook; a tampered copy does not', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const secret = await signupV1(seller, hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    const request = (await hooks.waitFor(1))[0] as ReceivedRequest;
    const headers = headersOf(request);
    const now = platform.clock.now();

    const { id, message } = verifyStandardWebhook({ rawBody: request.raw, headers, secrets: secret, now });
    expect(id).toBe(headers['x-webhook-id']);
    expect(message).toEqual(JSON.parse(request.raw.toString('utf8')));
    expect(verifyWebhook({ rawBody: request.raw, headers, secrets: secret, now })).toEqual(message);

    const tampered = request.raw.toString('utf8').replace('"CREATION"', '"DELETION"');
    expect(codeOf(() => verifyStandardWebhook({ rawBody: tampered, headers, secrets: secret, now }))).toBe(
      'ERR_SIGNATURE_MISMATCH',
    );
  });

  it('spec-notes W10 / "Limits" (grace period): after a second signup both secrets sign, and either verifies', async () => {
    const hooks = await startReceiver({ tls: true });
    receivers.push(hooks);
    const seller = await sellerWithToken(platform);
    const before = await signupV1(seller, hooks.url);
    const after = await signupV1(seller, hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    const request = (await hooks.waitFor(1))[0] as ReceivedRequest;
    const headers = headersOf(request);
    const now = platform.clock.now();
    expect(verifyStandardWebhook({ rawBody: request.raw, headers, secrets: before, now }).message.topic).toBe('sac_ticket');
    expect(verifyStandardWebhook({ rawBody: request.raw, headers, secrets: after, now }).message.topic).toBe('sac_ticket');
  });
});
