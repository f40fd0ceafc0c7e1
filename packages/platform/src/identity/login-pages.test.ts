import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../storage/test-databases.js';
import { type ListeningPlatform, startListeningPlatform } from './test-support/listening-platform.js';
import { authorizeThroughPages, formFields, loginUrl, PageClient } from './test-support/page-client.js';

const REDIRECT = 'https://integrator.example/callback';

describe.each(testDatabaseTargets())('login and consent pages on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await startListeningPlatform(target);
  });
  afterAll(() => platform.close());

  async function setup(input: { tenants?: number; defaultScopes?: Parameters<ListeningPlatform['createClient']>[0] } = {}) {
    const seller = await platform.createSeller({ tenants: input.tenants ?? 2 });
    const client = await platform.createClient({
      name: 'Acme Integrations',
      redirectUris: [REDIRECT],
      scopes: ['open:portfolio:read', 'open:order-order:read', 'open:ticket:read'],
      defaultScopes: ['open:portfolio:read'],
      termsOfUseUrl: 'https://integrator.example/terms',
      privacyPolicyUrl: 'https://integrator.example/privacy',
      ...input.defaultScopes,
    });
    return { seller, client, browser: new PageClient(platform.url) };
  }

  it('spec "Consent by redirect": log in, pick stores, consent, and land on redirect_uri with code and state', async () => {
    const { seller, client, browser } = await setup();
    const result = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state: 'xyz123',
      login: seller.login,
      password: seller.password,
      tenants: [seller.tenantIds[1] as string],
    });
    expect(result.pages).toEqual(['login', 'tenants', 'consent']);
    expect(result.callback.origin + result.callback.pathname).toBe(REDIRECT);
    expect(result.callback.searchParams.get('state')).toBe('xyz123');
    expect(result.callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
