import { cryptoRandom, seedRecords } from '@feira/platform';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN, testDatabaseTargets } from '@feira/platform/testing';
import {
  authorizationUrl,
  exchangeCode,
  FeiraApiError,
  FeiraClient,
  MemoryTokenStore,
  NotConnectedError,
  OAuthError,
  TokenManager,
} from '@feira/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentAsSeller } from './support/seller-browser.js';

const REDIRECT_URI = 'https://integrator.example/callback';
const ORDERS = 45;

describe.each(testDatabaseTargets())(
  'TokenManager and FeiraClient against the real platform on loopback ($dialect)',
  (target) => {
    let platform: ListeningPlatform;
    let credentials: { authUrl: string; clientId: string; clientSecret: string };
    let seller: { login: string; password: string; tenantIds: string[] };
    const tokenCalls: string[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/oauth/token')) tokenCalls.push(String(init?.body ?? ''));
      return fetch(input, init);
    };

    beforeAll(async () => {
      platform = await listenPlatform(target);
      credentials = { authUrl: platform.url, ...(await platform.createClient({ redirectUris: [REDIRECT_URI] })) };
      seller = await platform.createSeller({ tenants: 2 });
      await seedRecords(
        platform.database,
        seller.tenantIds[0]!,
        { orders: ORDERS, tickets: 6 },
        { clock: platform.clock, random: cryptoRandom },
      );
    });
    afterAll(async () => {
      await platform?.close();
    });

    async function connectedManager(store = new MemoryTokenStore()) {
      const manager = new TokenManager({ ...credentials, store, fetch: countingFetch, now: () => platform.clock.now() });
      const url = authorizationUrl({
        authUrl: platform.url,
        clientId: credentials.clientId,
        redirectUri: REDIRECT_URI,
        scopes: ['open:ticket:read', 'open:order-order:read'],
      });
      const callback = await consentAsSeller(url, seller);
      await manager.save(
        'seller',
        await exchangeCode({ ...credentials, code: callback.searchParams.get('code')!, redirectUri: REDIRECT_URI }),
      );
      return { manager, store };
    }

    it('spec "Authentication" rule 6: the access token is reused until shortly before expires_in, then refreshed once and the new refresh token stored', async () => {
      const { manager, store } = await connectedManager();
      const first = await manager.accessToken('seller');
      const before = await store.get('seller');
      tokenCalls.length = 0;
      platform.clock.advanceSeconds(7200 - 61);
      expect(await manager.accessToken('seller')).toBe(first);
      expect(tokenCalls).toHaveLength(0);
      platform.clock.advanceSeconds(2); // now within the 60 s margin
      const second = await manager.accessToken('seller');
      expect(second).not.toBe(first);
      expect(tokenCalls).toHaveLength(1);
      expect(tokenCalls[0]).toContain('grant_type=refresh_token');
      const after = await store.get('seller');
      expect(after?.refreshToken).not.toBe(before?.refreshToken);
      // The stored refresh token is the live one: refreshing with it works.
      await expect(manager.refresh('seller')).resolves.toMatchObject({ scope: expect.stringContaining('open:ticket:read') });
    });

    it('spec-notes I5: ten concurrent callers of an expiring token share one refresh', async () => {
      const { manager } = await connectedManager();
      platform.clock.advanceSeconds(7200);
      tokenCalls.length = 0;
      const tokens = await Promise.all(Array.from({ length: 10 }, () => manager.accessToken('seller')));
      expect(new Set(tokens).size).toBe(1);
      expect(tokenCalls).toHaveLength(1);
    });

    it('a pluggable store: tokens saved by one manager are used by another over the same store; unknown keys are NotConnectedError', async () => {
      const { store } = await connectedManager();
      const other = new TokenManager({ ...credentials, store, now: () => platform.clock.now() });
      const api = new FeiraClient({
        baseUrl: platform.url,
        accessToken: () => other.accessToken('seller'),
        tenantId: seller.tenantIds[0],
      });
      const page = api.pages('/v1/orders', { limit: 1 });
      expect((await page.next()).value?.results).toHaveLength(1);
      await expect(other.accessToken('nobody')).rejects.toBeInstanceOf(NotConnectedError);
    });

    it('spec-notes I5: a refresh token reused after its successor was used revokes the family: OAuthError invalid_grant', async () => {
      const { manager, store } = await connectedManager();
      const stale = (await store.get('seller'))!;
      await manager.refresh('seller');
      await manager.refresh('seller');
      await store.set('seller', stale);
      const error = await manager.refresh('seller').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OAuthError);
      expect((error as OAuthError).code).toBe('invalid_grant');
    });

    describe('FeiraClient', () => {
      let api: FeiraClient;
      beforeAll(async () => {
        const { manager } = await connectedManager();
        api = new FeiraClient({
          baseUrl: platform.url,
          accessToken: () => manager.accessToken('seller'),
          tenantId: seller.tenantIds[0],
        });
      });

      it('spec "List operations": list() with offset pagination yields every record once', async () => {
        const ids: string[] = [];
        for await (const order of api.list<{ id: string }>('/v1/orders', { limit: 10 })) ids.push(order.id);
        expect(ids).toHaveLength(ORDERS);
        expect(new Set(ids).size).toBe(ORDERS);
      });

      it('spec "List operations" rule 4: with cursor pagination each page is fetched at exactly meta.links.next', async () => {
        const requested: string[] = [];
        const recording = new FeiraClient({
          baseUrl: platform.url,
          accessToken: await (async () => {
            const { manager } = await connectedManager();
            return manager.accessToken('seller');
          })(),
          tenantId: seller.tenantIds[0],
          fetch: async (input, init) => {
            requested.push(String(input));
            return fetch(input, init);
          },
        });
        const nexts: Array<string | null> = [];
        const ids: string[] = [];
        for await (const page of recording.pages<{ id: string }>('/v1/orders', {
          paginate: 'cursor',
          limit: 20,
          sort: 'created_at:desc',
        })) {
          nexts.push(page.meta.links.next);
          expect(page.meta.page.offset).toBeNull();
          ids.push(...page.results.map((r) => r.id));
        }
        expect(ids).toHaveLength(ORDERS);
        expect(requested).toHaveLength(3);
        expect(requested[0]).toContain('_paginate=cursor');
        expect(requested.slice(1)).toEqual(nexts.slice(0, -1));
        expect(nexts.at(-1)).toBeNull();
      });

      it('spec-notes L8: filters and sort reach the platform and come back echoed; results honour them', async () => {
        const pages = api.pages<{ status: string; created_at: string }>('/seller/v0/tickets', {
          filters: { status__in: ['open', 'answered'] },
          sort: ['created_at:desc'],
        });
        const first = (await pages.next()).value!;
        expect(first.meta.sorts[0]).toEqual({ field: 'created_at', direction: 'desc' });
        expect(first.meta.filters[0]).toMatchObject({ field: 'status', operator: 'in' });
        expect(first.results.every((r) => r.status === 'open' || r.status === 'answered')).toBe(true);
        const dates = first.results.map((r) => r.created_at);
        expect(dates).toEqual([...dates].sort().reverse());
      });

      it('get() reads one record at the path a webhook names; a missing one is FeiraApiError NOT_FOUND', async () => {
        const first = (await api.pages<{ id: string }>('/seller/v0/tickets', { limit: 1 }).next()).value!.results[0]!;
        const ticket = await api.get<{ id: string }>(`/seller/v0/tickets/${first.id}`);
        expect(ticket.id).toBe(first.id);
        const error = await api.get('/seller/v0/tickets/00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FeiraApiError);
        expect((error as FeiraApiError).status).toBe(404);
        expect((error as FeiraApiError).slug).toBe('NOT_FOUND');
      });

      it('spec-notes L6: an unknown filter field is a typed 422 whose details name the field', async () => {
        const error = await (async () => {
          for await (const _ of api.list('/v1/orders', { filters: { no_such_field: 'x' } })) {
            // never reached
          }
        })().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(FeiraApiError);
        const apiError = error as FeiraApiError;
        expect(apiError.status).toBe(422);
        expect(apiError.slug).toBe('UNPROCESSABLE_ENTITY');
        expect(apiError.details[0]).toMatchObject({ field: 'no_such_field', location: 'query' });
        expect(apiError.requestId).toBeTruthy();
      });

      it('spec-notes I9: X-Tenant-Id selects the store of a multi-tenant token; another store sees none of these orders', async () => {
        const other = [];
        for await (const order of api.list('/v1/orders', { tenantId: seller.tenantIds[1] })) other.push(order);
        expect(other).toEqual([]);
      });

      it('spec-notes I9 / L9: without X-Tenant-Id a token for two stores is refused with a typed 4xx, and a bad token is 401 UNAUTHORIZED', async () => {
        const { manager } = await connectedManager();
        const token = await manager.accessToken('seller');
        const withoutTenant = new FeiraClient({ baseUrl: platform.url, accessToken: token });
        const error = (await withoutTenant.get('/v1/orders').catch((e: unknown) => e)) as FeiraApiError;
        expect(error).toBeInstanceOf(FeiraApiError);
        expect([400, 403, 422]).toContain(error.status);
        const badToken = new FeiraClient({ baseUrl: platform.url, accessToken: 'not-a-token', tenantId: seller.tenantIds[0] });
        const unauthorized = (await badToken.get('/v1/orders').catch((e: unknown) => e)) as FeiraApiError;
        expect(unauthorized.status).toBe(401);
        expect(unauthorized.slug).toBe('UNAUTHORIZED');
      });

      it('spec-notes I20: over its app’s limit, FeiraClient waits the platform’s Retry-After and is answered; rateLimit reads what is left; a wait it will not do is a typed RATE_LIMITED', async () => {
        const limited = await platform.createClient({ redirectUris: [REDIRECT_URI] });
        await platform.app.inject({
          method: 'PATCH',
          url: `/admin/v1/clients/${limited.clientId}`,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          payload: { rate_limit: { requests_per_second: 2, burst: 2 } },
        });
        const token = await platform.mintAccessToken({
          tenants: [seller.tenantIds[0]!],
          scopes: ['open:order-order:read'],
          clientId: limited.clientId,
        });
        // The wait moves the platform's clock instead of sleeping: the bucket refills exactly as long as asked.
        const waits: number[] = [];
        const patient = new FeiraClient({
          baseUrl: platform.url,
          accessToken: token,
          retry: {
            sleep: async (ms) => {
              waits.push(ms);
              platform.clock.advance(ms);
            },
          },
        });
        await patient.get('/v1/orders');
        expect(patient.rateLimit).toEqual({ remaining: 1, resetSeconds: 1 });
        await patient.get('/v1/orders');
        expect(patient.rateLimit?.remaining).toBe(0);
        await patient.get('/v1/orders');
        expect(waits).toHaveLength(1);
        expect(waits[0]).toBeGreaterThan(0);
        expect(waits[0]).toBeLessThanOrEqual(1000);

        const hasty = new FeiraClient({ baseUrl: platform.url, accessToken: token, retry: { maxRetries: 0 } });
        await hasty.get('/v1/orders');
        const error = (await hasty.get('/v1/orders').catch((e: unknown) => e)) as FeiraApiError;
        expect(error).toBeInstanceOf(FeiraApiError);
        expect(error.status).toBe(429);
        expect(error.slug).toBe('RATE_LIMITED');
        expect(error.retryAfterMs).toBe(1000);
        expect(error.rateLimit).toEqual({ remaining: 0, resetSeconds: 1 });
      });
    });
  },
);
