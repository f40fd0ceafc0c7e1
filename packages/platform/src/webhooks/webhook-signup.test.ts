import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sellerWithToken, signup } from '../../test/webhooks/webhook-kit.js';
import { createTestPlatform, platformOver, type TestPlatform, testConfig, testDatabaseTargets } from '../testing.js';

describe.each(testDatabaseTargets())('webhook signup on $dialect', (target) => {
  let platform: TestPlatform;
  /** The same database served in strict mode. */
  let strict: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    strict = await platformOver(platform.database, { config: testConfig({ mode: 'strict' }), clock: platform.clock });
  });
  afterAll(async () => {
    await strict.close();
    await platform.close();
  });

  it('spec "Webhook subscription" / Signature rule 6 / W1-W2: v1 returns one whsec_ secret per subscription, once; never readable again', async () => {
    const seller = await sellerWithToken(platform);
    const res = await signup(platform, seller, 'v1', 'https://hooks.example.com/feira', null);
    expect(res.statusCode).toBe(200);
    const { subscriptions } = res.json();
    // W1: default topics = all the token's scopes allow (tickets and orders here).
    expect(subscriptions.map((s: { topic: string }) => s.topic).sort()).toEqual(['order', 'sac_ticket']);
    for (const s of subscriptions) {
      expect(s.parameters.url).toBe('https://hooks.example.com/feira');
      expect(s.parameters.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    }
    // Sealed at rest: the clear secret appears nowhere in the table.
    const rows = await platform.database.db.selectFrom('webhook_subscriptions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(subscriptions[0].parameters.secret);
    // The admin view shows the subscription and its state, never a secret.
    const admin = await platform.app.inject({
      method: 'GET',
      url: `/admin/webhooks/subscriptions?tenant_id=${seller.tenantId}`,
      headers: { authorization: `Bearer ${platform.app.platform.config.adminToken}` },
    });
    expect(admin.statusCode).toBe(200);
    expect(admin.json().results).toHaveLength(2);
    expect(admin.json().results[0]).toMatchObject({ state: 'active', failure_streak: 0, version: 'v1' });
    expect(admin.body).not.toContain('whsec_');
    expect(admin.body).not.toContain('secret_sealed');
  });

  it('spec "Webhook subscription" (v1 repeat) / W1: one subscription per (client, tenant, topic); repeating the call keeps the id and returns a new secret', async () => {
    const seller = await sellerWithToken(platform);
    const first = (await signup(platform, seller, 'v1', 'https://a.example.com/h')).json().subscriptions[0];
    const second = (await signup(platform, seller, 'v1', 'https://b.example.com/h')).json().subscriptions[0];
    expect(second.id).toBe(first.id);
    expect(second.parameters.secret).not.toBe(first.parameters.secret);
    expect(second.parameters.url).toBe('https://b.example.com/h');
  });

  it('W4: the admin API disables a subscription (its state and time, no secret); an unknown id is a 404; a new signup re-enables it', async () => {
    const seller = await sellerWithToken(platform);
    const [subscription] = (await signup(platform, seller, 'v1', 'https://hooks.example.com/feira')).json().subscriptions;
    const admin = { authorization: `Bearer ${platform.app.platform.config.adminToken}` };
    const disable = (id: string) =>
      platform.app.inject({ method: 'POST', url: `/admin/webhooks/subscriptions/${id}/disable`, headers: admin });
    const disabled = await disable(subscription.id);
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json()).toMatchObject({
      id: subscription.id,
      state: 'disabled',
      disabled_at: platform.clock.now().toISOString(),
    });
    expect(disabled.body).not.toContain('secret_sealed');
    const unknown = await disable('no-such-subscription');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ slug: 'NOT_FOUND', request_id: expect.any(String) });
    await signup(platform, seller, 'v1', 'https://hooks.example.com/feira');
    const listed = await platform.app.inject({
      method: 'GET',
      url: `/admin/webhooks/subscriptions?tenant_id=${seller.tenantId}`,
      headers: admin,
    });
    expect(listed.json().results).toMatchObject([{ id: subscription.id, state: 'active', disabled_at: null }]);
  });

  it('spec "Webhook URL rejected (v1)": an http URL on v1 is a 422 with exactly the spec body', async () => {
    const seller = await sellerWithToken(platform);
    const res = await signup(platform, seller, 'v1', 'http://hooks.example.com/feira');
    expect(res.statusCode).toBe(422);
    const { request_id: _ignored, ...body } = res.json();
    expect(body).toEqual({
      message: 'Unprocessable entity',
      slug: 'UNPROCESSABLE_ENTITY',
      details: [{ field: 'webhook', location: 'body', message: 'must use the HTTPS scheme', slug: 'INVALID_PARAMETER_VALUE' }],
    });
  });

  it('W1: a URL that is not absolute is a 422 on both versions', async () => {
    const seller = await sellerWithToken(platform);
    for (const version of ['v0', 'v1'] as const) {
      for (const bad of ['/relative/path', 'not a url', 'ftp://hooks.example.com/x', 'https://user:pw@hooks.example.com/']) {
        const res = await signup(platform, seller, version, bad);
        expect(res.statusCode, `${version} ${bad}`).toBe(422);
        expect(res.json().details[0]).toMatchObject({ field: 'webhook', location: 'body', slug: 'INVALID_PARAMETER_VALUE' });
      }
    }
  });

  it('spec "Differences between v0 and v1": v0 accepts http URLs and returns no secret', async () => {
    const seller = await sellerWithToken(platform);
    const res = await signup(platform, seller, 'v0', 'http://hooks.example.com/feira');
    expect(res.statusCode).toBe(200);
    expect(res.json().subscriptions[0].parameters).toEqual({ url: 'http://hooks.example.com/feira' });
  });

  it('W9: strict mode refuses URLs on loopback, private and every special-purpose address (SSRF guard on); sandbox allows loopback', async () => {
    const seller = await sellerWithToken(platform);
    for (const url of [
      'https://127.0.0.1:8443/h',
      'https://localhost/h',
      'https://10.1.2.3/h',
      'https://169.254.169.254/latest',
      // W9: the ranges an earlier hand-written list missed.
      'https://[::ffff:7f00:1]/h',
      'https://[::a00:1]/h',
      'https://[64:ff9b::a9fe:a9fe]/h',
      'https://[2002:a00:1::1]/h',
      'https://192.0.2.1/h',
      'https://198.51.100.1/h',
      'https://203.0.113.1/h',
    ]) {
      const res = await signup(strict, seller, 'v1', url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().details[0].field).toBe('webhook');
    }
    const sandboxSeller = await sellerWithToken(platform);
    expect((await signup(platform, sandboxSeller, 'v1', 'https://127.0.0.1:8443/h')).statusCode).toBe(200);
    expect((await signup(platform, sandboxSeller, 'v1', 'https://10.1.2.3/h')).statusCode).toBe(422);
  });

  it('W1: the scope open:webhook:write and a tenant are required; a topic beyond the token scopes is refused', async () => {
    const { tenantIds } = await platform.createSeller();
    const readOnly = await platform.mintAccessToken({ tenants: tenantIds, scopes: ['open:ticket:read'] });
    const noScope = await platform.app.inject({
      method: 'PUT',
      url: '/v1/onboarding/signup',
      headers: { authorization: `Bearer ${readOnly}` },
      payload: { webhook: 'https://hooks.example.com/h' },
    });
    expect(noScope.statusCode).toBe(403);
    const seller = await sellerWithToken(platform);
    const product = await signup(platform, seller, 'v1', 'https://hooks.example.com/h', ['product']);
    expect(product.statusCode).toBe(403);
    expect(product.json().details[0]).toMatchObject({ field: 'topics', location: 'body' });
    const anonymous = await platform.app.inject({ method: 'PUT', url: '/v0/onboarding/signup', payload: { webhook: 'x' } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('validates the body as sent: unknown fields, unknown topics and a missing webhook are 422s, never 500', async () => {
    const seller = await sellerWithToken(platform);
    for (const payload of [
      {},
      { webhook: 'https://h.example.com', extra: 1 },
      { webhook: 'https://h.example.com', topics: ['nope'] },
      { webhook: 5 },
    ]) {
      const res = await platform.app.inject({
        method: 'PUT',
        url: '/v1/onboarding/signup',
        headers: { authorization: `Bearer ${seller.token}` },
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
    }
  });
});
