// spec-notes I20: per-app API rate limits, per store, shared by every API process on the database.
// Real SQLite and PostgreSQL; the refill is driven by the injected clock, never by waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../src/platform.js';
import { sharedDatabaseUrl, testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';
import { ADMIN } from '../lists/list-fixtures.js';
import { quote, storeWithSettings, uploadTable, vtexCsv } from '../shipping/freight-kit.js';
import { addProducts } from '../shipping/shipping-kit.js';

const LIMIT = { requestsPerSecond: 2, burst: 3 };
const READ = 'open:order-order:read' as const;

type Response = Awaited<ReturnType<TestPlatform['app']['inject']>>;

/** The `RateLimit` header's remaining and reset (draft-ietf-httpapi-ratelimit-headers-11). */
function rateLimitOf(response: Response): { r: number; t: number } {
  const match = /^"app";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit));
  if (!match) throw new Error(`no RateLimit header: ${JSON.stringify(response.headers)}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

describe.each(testDatabaseTargets())('API rate limits on $dialect (spec-notes I20)', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { config: testConfig({ apiRateLimit: LIMIT }) });
  });
  afterAll(() => platform.close());

  /** A fresh app with a token for the given stores (its own bucket). */
  async function appToken(tenants: string[], clientId?: string) {
    const client = clientId ?? (await platform.createClient()).clientId;
    return { clientId: client, token: await platform.mintAccessToken({ tenants, scopes: [READ], clientId: client }) };
  }
  const list = (token: string, tenantId?: string, app = platform.app) =>
    app.inject({
      url: '/v1/orders',
      headers: { authorization: `Bearer ${token}`, ...(tenantId ? { 'x-tenant-id': tenantId } : {}) },
    });

  it('spec-notes I20: an app over its limit gets 429 RATE_LIMITED with Retry-After and the RateLimit headers, while another app on the same store, the same app on another store and the storefront quote answer 200', async () => {
    const seller = await platform.createSeller({ tenants: 2 });
    const [store, otherStore] = seller.tenantIds as [string, string];
    const hot = await appToken([store, otherStore]);
    const other = await appToken([store]);
    // A store that quotes from its own freight table: the storefront path takes no app's bucket.
    const shop = await storeWithSettings(platform, { method: 'freight_table' });
    await addProducts(platform, shop, [
      { sku: 'SKU-A', price_cents: 1000, depth_cm: 10, height_cm: 10, width_cm: 10, weight_g: 500 },
    ]);
    await uploadTable(platform, shop, 'standard', vtexCsv(['01000000;01999999;;0;5000;10;0;0;;3;BRA;0']));

    for (let i = 0; i < LIMIT.burst; i++) expect((await list(hot.token, store)).statusCode).toBe(200);
    const refused = await list(hot.token, store);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ slug: 'RATE_LIMITED', details: [], request_id: expect.any(String) });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe('"app";q=3;w=2');
    expect(rateLimitOf(refused).r).toBe(0);

    const neighbour = await list(other.token, store);
    expect(neighbour.statusCode).toBe(200);
    expect(rateLimitOf(neighbour).r).toBe(LIMIT.burst - 1);
    const elsewhere = await list(hot.token, otherStore);
    expect(elsewhere.statusCode).toBe(200);
    expect(rateLimitOf(elsewhere).r).toBe(LIMIT.burst - 1);
    const quoted = await quote(platform, shop, '01310100', [{ sku: 'SKU-A', quantity: 1 }]);
    expect(quoted.available).toBe(true);
    // Still refused: nothing above refilled the hot bucket.
    expect((await list(hot.token, store)).statusCode).toBe(429);
  });

  it('spec-notes I6 / I20: a revoked token is refused 401 before what its claims or its origin would earn, and takes nothing from its app’s bucket (D162)', async () => {
    const seller = await platform.createSeller();
    const store = seller.tenantIds[0] as string;
    const { clientId, token: live } = await appToken([store]);
    const revoked = await platform.mintAccessToken({ tenants: [store], scopes: [READ], clientId });
    const unscoped = await platform.mintAccessToken({ tenants: [store], scopes: ['open:portfolio:read'], clientId });
    for (const token of [revoked, unscoped]) {
      const { fid } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { fid: string };
      await platform.database.db
        .updateTable('token_families')
        .set({ revoked_at: platform.clock.now().toISOString() })
        .where('id', '=', fid)
        .execute();
    }
    const refusals = [
      await list(revoked),
      await list(revoked),
      await list(revoked, '00000000-0000-7000-8000-000000000000'),
      await list(unscoped),
      await platform.app.inject({
        url: '/v1/orders',
        headers: { authorization: `Bearer ${revoked}`, origin: 'https://elsewhere.example' },
      }),
    ];
    for (const refusal of refusals) {
      expect(refusal.statusCode).toBe(401);
      expect(refusal.json().slug).toBe('UNAUTHORIZED');
      expect(refusal.headers.ratelimit).toBeUndefined();
    }
    // The bucket the revoked calls named is whole: the app's live token still gets all of it.
    const admitted = [];
    for (let i = 0; i < LIMIT.burst; i++) admitted.push(await list(live));
    expect(admitted.map((answer) => [answer.statusCode, rateLimitOf(answer).r])).toEqual([
      [200, 2],
      [200, 1],
      [200, 0],
    ]);
    expect((await list(live)).statusCode).toBe(429);
  });

  it('spec-notes I20: every answer of a limited route carries RateLimit-Policy and RateLimit, a 404 and a 422 included, and r counts down', async () => {
    const seller = await platform.createSeller();
    const store = seller.tenantIds[0] as string;
    const { token } = await appToken([store]);
    const headers = { authorization: `Bearer ${token}` };
    const ok = await list(token);
    const missing = await platform.app.inject({ url: '/v1/orders/00000000-0000-7000-8000-000000000000', headers });
    const invalid = await platform.app.inject({ url: '/v1/orders?_limit=0', headers });
    expect([ok.statusCode, missing.statusCode, invalid.statusCode]).toEqual([200, 404, 422]);
    expect([ok, missing, invalid].map((response) => rateLimitOf(response).r)).toEqual([2, 1, 0]);
    for (const response of [ok, missing, invalid]) expect(response.headers['ratelimit-policy']).toBe('"app";q=3;w=2');
    expect(rateLimitOf(invalid).t).toBe(2);
    // Answers refused before the app and store are known take from no bucket and carry no limit.
    const anonymous = await platform.app.inject({ url: '/v1/orders' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers.ratelimit).toBeUndefined();
  });

  it('spec-notes I20: the bucket refills at requests_per_second (clock moved): Retry-After is when the next request is admitted', async () => {
    const store = (await platform.createSeller()).tenantIds[0] as string;
    const { token } = await appToken([store]);
    for (let i = 0; i < LIMIT.burst; i++) await list(token);
    expect((await list(token)).statusCode).toBe(429);
    platform.clock.advance(499);
    expect((await list(token)).statusCode).toBe(429);
    platform.clock.advance(1);
    const refilled = await list(token);
    expect(refilled.statusCode).toBe(200);
    expect(rateLimitOf(refilled).r).toBe(0);
    expect((await list(token)).statusCode).toBe(429);
    // A quiet spell refills the whole bucket, never more than burst.
    platform.clock.advanceSeconds(60);
    const full = await list(token);
    expect(rateLimitOf(full).r).toBe(LIMIT.burst - 1);
    for (let i = 1; i < LIMIT.burst; i++) expect((await list(token)).statusCode).toBe(200);
    expect((await list(token)).statusCode).toBe(429);
  });

  it('spec-notes I20: PATCH /admin/v1/clients/{client_id} rate_limit takes effect at the next request, shows in the view, and null goes back to the default', async () => {
    const store = (await platform.createSeller()).tenantIds[0] as string;
    const { clientId, token } = await appToken([store]);
    const patch = (payload: object, id = clientId) =>
      platform.app.inject({ method: 'PATCH', url: `/admin/v1/clients/${id}`, headers: ADMIN, payload });

    const before = await platform.app.inject({ url: `/admin/v1/clients/${clientId}`, headers: ADMIN });
    expect(before.json().rate_limit).toEqual({ requests_per_second: 2, burst: 3, source: 'default' });
    const set = await patch({ rate_limit: { requests_per_second: 5, burst: 6 } });
    expect(set.statusCode).toBe(200);
    expect(set.json().rate_limit).toEqual({ requests_per_second: 5, burst: 6, source: 'app' });
    for (let i = 0; i < 6; i++) expect((await list(token)).statusCode).toBe(200);
    const over = await list(token);
    expect(over.statusCode).toBe(429);
    expect(over.headers['ratelimit-policy']).toBe('"app";q=6;w=2');
    const listed = await platform.app.inject({ url: `/admin/v1/clients?client_id=${clientId}`, headers: ADMIN });
    expect(listed.json().results[0].rate_limit).toEqual({ requests_per_second: 5, burst: 6, source: 'app' });

    const reset = await patch({ rate_limit: null });
    expect(reset.json().rate_limit).toEqual({ requests_per_second: 2, burst: 3, source: 'default' });
    platform.clock.advanceSeconds(60);
    for (let i = 0; i < 3; i++) expect((await list(token)).statusCode).toBe(200);
    expect((await list(token)).statusCode).toBe(429);
  });

  it('spec-notes I20: a rate_limit out of bounds, incomplete or with an unknown field is a 422 naming it; an unknown app is a 404', async () => {
    const { clientId } = await platform.createClient();
    const patch = (payload: object, id = clientId) =>
      platform.app.inject({ method: 'PATCH', url: `/admin/v1/clients/${id}`, headers: ADMIN, payload });
    for (const [payload, field] of [
      [{ rate_limit: { requests_per_second: 0, burst: 5 } }, 'rate_limit.requests_per_second'],
      [{ rate_limit: { requests_per_second: 5, burst: 1_000_001 } }, 'rate_limit.burst'],
      [{ rate_limit: { requests_per_second: 1.5, burst: 5 } }, 'rate_limit.requests_per_second'],
      [{ rate_limit: { requests_per_second: 5 } }, 'rate_limit.burst'],
      [{ rate_limit: { requests_per_second: 5, burst: 5, window: 1 } }, 'rate_limit.window'],
    ] as const) {
      const refused = await patch(payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(422);
      expect(refused.json().slug).toBe('UNPROCESSABLE_ENTITY');
      expect(refused.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await patch({})).statusCode).toBe(422);
    const unknown = await patch({ rate_limit: null }, 'client_nosuchapp');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().slug).toBe('NOT_FOUND');
    const unauthorized = await platform.app.inject({
      method: 'PATCH',
      url: `/admin/v1/clients/${clientId}`,
      payload: { rate_limit: null },
    });
    expect(unauthorized.statusCode).toBe(401);
  });

  it('spec-notes I20 / I16: a browser app on its own origin may read RateLimit-Policy, RateLimit and Retry-After (CORS exposes them)', async () => {
    const store = (await platform.createSeller()).tenantIds[0] as string;
    const { clientId } = await platform.createClient({ redirectUris: ['https://spa.example/callback'] });
    const { token } = await appToken([store], clientId);
    const answer = await platform.app.inject({
      url: '/v1/orders',
      headers: { authorization: `Bearer ${token}`, origin: 'https://spa.example' },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('https://spa.example');
    const exposed = String(answer.headers['access-control-expose-headers'])
      .split(',')
      .map((h) => h.trim());
    expect(exposed).toEqual(expect.arrayContaining(['ratelimit-policy', 'ratelimit', 'retry-after']));
  });

  it('spec-notes I20: a personal token (no store) takes from its app’s bucket for the seller at /userinfo', async () => {
    const seller = await platform.createSeller();
    const { clientId } = await platform.createClient();
    const token = await platform.mintAccessToken({
      tenants: [],
      scopes: ['openid' as never],
      sellerId: seller.sellerId,
      clientId,
    });
    const userinfo = () => platform.app.inject({ url: '/userinfo', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < LIMIT.burst; i++) expect((await userinfo()).statusCode).toBe(200);
    const refused = await userinfo();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
  });

  describe('two platforms over one database, as two API processes', () => {
    let second: Platform;
    beforeAll(async () => {
      const shared = await sharedDatabaseUrl(platform.database);
      second = await createPlatform({
        databaseUrl: shared.url,
        config: testConfig({ apiRateLimit: LIMIT }),
        clock: platform.clock,
        roles: { api: true, dispatcher: false },
      });
    });
    afterAll(() => second.close());

    it('spec-notes I20: the bucket is shared: what one process admitted the other counts, and a limit raised through one applies there at once and in the other once its refusal has waited out one emission interval', async () => {
      const store = (await platform.createSeller()).tenantIds[0] as string;
      const { clientId, token } = await appToken([store]);
      const other = second.app as TestPlatform['app'];
      expect((await list(token, undefined, platform.app)).statusCode).toBe(200);
      expect((await list(token, undefined, other)).statusCode).toBe(200);
      expect((await list(token, undefined, platform.app)).statusCode).toBe(200);
      expect((await list(token, undefined, other)).statusCode).toBe(429);
      expect((await list(token, undefined, platform.app)).statusCode).toBe(429);

      await platform.app.inject({
        method: 'PATCH',
        url: `/admin/v1/clients/${clientId}`,
        headers: ADMIN,
        payload: { rate_limit: { requests_per_second: 1, burst: 10 } },
      });
      // The process that set it asks the database again at once.
      const here = await list(token, undefined, platform.app);
      expect(here.statusCode).toBe(200);
      expect(here.headers['ratelimit-policy']).toBe('"app";q=10;w=10');
      // The other remembers its refusal (a flood costs no statement) until the bucket would have admitted again
      // under the old limit: at most one emission interval.
      expect((await list(token, undefined, other)).statusCode).toBe(429);
      platform.clock.advance(1000 / LIMIT.requestsPerSecond);
      const raised = await list(token, undefined, other);
      expect(raised.statusCode).toBe(200);
      expect(raised.headers['ratelimit-policy']).toBe('"app";q=10;w=10');
    });

    it('spec-notes I20: N parallel requests through both processes admit exactly burst, no more (no race between processes)', async () => {
      const store = (await platform.createSeller()).tenantIds[0] as string;
      const { clientId, token } = await appToken([store]);
      const burst = 12;
      await platform.app.inject({
        method: 'PATCH',
        url: `/admin/v1/clients/${clientId}`,
        headers: ADMIN,
        payload: { rate_limit: { requests_per_second: 1, burst } },
      });
      const other = second.app as TestPlatform['app'];
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => list(token, undefined, i % 2 === 0 ? platform.app : other)),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status === 200)).toHaveLength(burst);
      expect(statuses.filter((status) => status === 429)).toHaveLength(60 - burst);
      // Each admitted answer saw a different count of what was left: one bucket, taken one at a time.
      const remaining = answers.filter((answer) => answer.statusCode === 200).map((answer) => rateLimitOf(answer).r);
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: burst }, (_, i) => i));
    });
  });
});
