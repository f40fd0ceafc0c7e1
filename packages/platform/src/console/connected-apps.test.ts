import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeThroughPages, PageClient } from '../identity/test-support/page-client.js';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { connectedApps, disconnectApp } from './connected-apps.js';

const REDIRECT = 'https://integrator.example/callback';

/**
 * The console's "connected apps" of a store: what the seller granted, read
 * from the identity and accounts capabilities, and the disconnect that undoes
 * it for one store (the browser test drives the same through the pages).
 */
describe.each(testDatabaseTargets())('connected apps on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform.close());

  const tokenRequest = (payload: Record<string, string>) => platform.app.inject({ method: 'POST', url: '/oauth/token', payload });

  async function connectedSeller() {
    const seller = await platform.createSeller({ tenants: 2 });
    const client = await platform.createClient({
      name: 'Acme Integrations',
      redirectUris: [REDIRECT],
      scopes: ['open:order-order:read', 'open:ticket:read'],
      defaultScopes: ['open:order-order:read'],
    });
    const browser = new PageClient(platform.url);
    const flow = {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read open:ticket:read',
      login: seller.login,
      password: seller.password,
      tenants: seller.tenantIds,
    };
    const first = await authorizeThroughPages(browser, flow);
    expect(first.pages).toEqual(['login', 'tenants', 'consent']);
    const issued = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: REDIRECT,
      code: first.callback.searchParams.get('code') as string,
    });
    expect(issued.statusCode).toBe(200);
    return { seller, client, browser, flow, refreshToken: issued.json().refresh_token as string };
  }

  it('lists the app granted to a store with its name, scopes and when a token was last issued (a refresh moves it)', async () => {
    const { seller, client, refreshToken } = await connectedSeller();
    const tenantId = seller.tenantIds[0] as string;
    const issuedAt = platform.clock.now().toISOString();
    expect(await connectedApps(platform.database.db, seller.sellerId, tenantId)).toEqual([
      {
        clientId: client.clientId,
        name: 'Acme Integrations',
        scopes: expect.arrayContaining(['open:order-order:read', 'open:ticket:read']),
        grantedAt: issuedAt,
        lastTokenAt: issuedAt,
      },
    ]);
    platform.clock.advanceSeconds(90);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      refresh_token: refreshToken,
    });
    expect(refreshed.statusCode).toBe(200);
    const [app] = await connectedApps(platform.database.db, seller.sellerId, tenantId);
    expect(app?.lastTokenAt).toBe(platform.clock.now().toISOString());
    expect(app?.grantedAt).toBe(issuedAt);
  });

  it('spec-notes I10: disconnecting from one store revokes the grant and asks for consent again there; the other store keeps its consent', async () => {
    const { seller, client, browser, flow, refreshToken } = await connectedSeller();
    const [leftStore, keptStore] = seller.tenantIds as [string, string];
    await disconnectApp(
      platform.database.db,
      { sellerId: seller.sellerId, tenantId: leftStore, clientId: client.clientId },
      platform.clock.now(),
    );
    expect(await connectedApps(platform.database.db, seller.sellerId, leftStore)).toEqual([]);
    expect((await connectedApps(platform.database.db, seller.sellerId, keptStore)).map((app) => app.clientId)).toEqual([
      client.clientId,
    ]);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      refresh_token: refreshToken,
    });
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json().error).toBe('invalid_grant');
    expect((await authorizeThroughPages(browser, { ...flow, tenants: [keptStore] })).pages).toEqual(['tenants']);
    expect((await authorizeThroughPages(browser, { ...flow, tenants: [leftStore] })).pages).toEqual(['tenants', 'consent']);
  });
});
