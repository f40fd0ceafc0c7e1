import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';
import { operatorSession, sellerSession } from './console-session.js';

/** The platform error shape of a refusal with no detail. */
const refusal = (slug: string, message: string) => ({ message, slug, details: [], request_id: expect.any(String) });

/**
 * D160: what the console answers that is not a page, in the platform error
 * shape: the seller's quote log and statistics (read by the shipping page's
 * script) without a session or for a store that is not the seller's, a live
 * region of a store or delivery the session cannot see, and the operator's
 * clock outside sandbox mode, in the operator's language.
 */
describe.each(testDatabaseTargets())("the console's refusals on $dialect", (target) => {
  let platform: TestPlatform;
  let seller: Awaited<ReturnType<TestPlatform['createSeller']>>;
  let other: Awaited<ReturnType<TestPlatform['createSeller']>>;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    seller = await platform.createSeller({ tenants: 1 });
    other = await platform.createSeller({ tenants: 1 });
  });
  afterAll(() => platform.close());

  it('the quote log and statistics need the console session, and show only its own stores', async () => {
    const mine = seller.tenantIds[0] as string;
    const theirs = other.tenantIds[0] as string;
    for (const url of [`/seller/v1/shipping/quote-stats?tenant_id=${mine}`, '/seller/v1/shipping/quote-calls']) {
      const anonymous = await platform.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json(), url).toEqual(refusal('UNAUTHORIZED', 'Sign in to the console first'));
    }
    const session = await sellerSession(platform.app, seller);
    const foreign = await session.get(`/seller/v1/shipping/quote-stats?tenant_id=${theirs}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(refusal('NOT_FOUND', 'Store not found'));
    const own = await session.get(`/seller/v1/shipping/quote-stats?tenant_id=${mine}&window=24h`);
    expect(own.statusCode).toBe(200);
    expect(own.json().deadlineMs).toBe(1000);
  });

  it("a live region of another seller's store, or of a delivery the store does not have, is a 404", async () => {
    const session = await sellerSession(platform.app, seller);
    for (const url of [
      `/console/stores/${other.tenantIds[0]}/webhooks/deliveries/live`,
      `/console/stores/${other.tenantIds[0]}/webhooks/deliveries/no-such-delivery/live`,
      `/console/stores/${seller.tenantIds[0]}/webhooks/deliveries/no-such-delivery/live`,
    ]) {
      const refused = await session.get(url);
      expect(refused.statusCode, url).toBe(404);
      expect(refused.json(), url).toEqual(refusal('NOT_FOUND', 'Not found'));
    }
  });

  it('outside sandbox mode the operator cannot move the clock: a 403 in their language, and time is the host clock', async () => {
    const strict = await createTestPlatform(target, { config: testConfig({ mode: 'strict' }) });
    try {
      for (const [language, message] of [
        ['en', 'The platform clock can be moved only in sandbox mode.'],
        ['pt-BR', 'O relógio da plataforma só pode ser avançado no modo sandbox.'],
      ] as const) {
        const operator = await operatorSession(strict.app, { 'accept-language': language });
        // The health page's forms carry the session's CSRF token (the clock's form is not there in strict mode).
        await operator.get('/console/operator/health');
        const refused = await operator.post('/console/operator/clock', { duration: '2h' });
        expect(refused.statusCode, language).toBe(403);
        expect(refused.json(), language).toEqual(refusal('FORBIDDEN', message));
      }
      expect(strict.app.platform.clock.now().toISOString()).toBe(strict.clock.now().toISOString());
    } finally {
      await strict.close();
    }
  });
});
