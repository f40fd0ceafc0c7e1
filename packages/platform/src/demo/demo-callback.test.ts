import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeThroughPages, formFields, PageClient } from '../identity/test-support/page-client.js';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform, platformOver, testConfig } from '../testing.js';

describe.each(testDatabaseTargets())('sandbox demo callback on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform.close());

  it('/demo/callback shows the code and exchanges it once the newcomer enters the demo client secret', async () => {
    const redirectUri = `${platform.url}/demo/callback`;
    const seller = await platform.createSeller({ tenants: 1 });
    const demo = await platform.createClient({
      name: 'Feira demo client',
      redirectUris: [redirectUri],
      scopes: ['open:order-order:read'],
    });
    const browser = new PageClient(platform.url);
    const { callback } = await authorizeThroughPages(browser, {
      clientId: demo.clientId,
      redirectUri,
      scope: 'open:order-order:read',
      state: 'demo',
      login: seller.login,
      password: seller.password,
    });
    const code = callback.searchParams.get('code') as string;
    const page = await browser.request('GET', callback.toString());
    expect(page.status).toBe(200);
    expect(page.body).toContain(code);
    expect(page.body).toContain(`value="${demo.clientId}"`); // the client is known from the code; the secret is not
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const wrong = await browser.request('POST', '/demo/callback', {
      ...formFields(page.body, '/demo/callback'),
      client_id: demo.clientId,
      client_secret: 'not the secret',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('Client ID or secret is wrong.');

    const exchanged = await browser.request('POST', '/demo/callback', {
      ...formFields(page.body, '/demo/callback'),
      client_id: demo.clientId,
      client_secret: demo.clientSecret,
    });
    expect(exchanged.status).toBe(303);
    const result = await browser.request('GET', exchanged.location as string);
    expect(result.status).toBe(200);
    expect(result.body).toContain('&#34;token_type&#34;: &#34;Bearer&#34;');
    expect(result.body).toContain('&#34;scope&#34;: &#34;open:order-order:read&#34;');
    // Shown once: a reload does not show (or re-exchange) anything.
    expect((await browser.request('GET', exchanged.location as string)).status).toBe(404);
  });

  it('the demo page exchanges only codes that were issued for a demo callback', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const other = await platform.createClient({
      redirectUris: ['https://integrator.example/callback'],
      scopes: ['open:ticket:read'],
    });
    const browser = new PageClient(platform.url);
    const { callback } = await authorizeThroughPages(browser, {
      clientId: other.clientId,
      redirectUri: 'https://integrator.example/callback',
      scope: 'open:ticket:read',
      login: seller.login,
      password: seller.password,
    });
    const code = callback.searchParams.get('code') as string;
    const page = await browser.request('GET', `/demo/callback?code=${encodeURIComponent(code)}`);
    const res = await browser.request('POST', '/demo/callback', {
      ...formFields(page.body, '/demo/callback'),
      client_id: other.clientId,
      client_secret: other.clientSecret,
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('This code was not issued for the demo callback.');
  });

  it('the demo pages exist only in the sandbox', async () => {
    // Same database, second app with another config (one schema per test file keeps PostgreSQL runs independent).
    const strict = await platformOver(platform.database, { config: testConfig({ mode: 'strict' }), clock: platform.clock });
    try {
      expect((await strict.app.inject({ method: 'GET', url: '/demo/callback?code=abc' })).statusCode).toBe(404);
      expect((await platform.app.inject({ method: 'GET', url: '/demo/callback?code=abc' })).statusCode).toBe(200);
      expect((await strict.app.inject({ method: 'GET', url: '/demo/terms-of-use' })).statusCode).toBe(404);
    } finally {
      await strict.close();
    }
  });

  it("Authentication rule 2: the demo client's terms-of-use and privacy-policy links shown at consent lead to real pages", async () => {
    for (const [path, heading] of [
      ['/demo/terms-of-use', 'terms of use'],
      ['/demo/privacy-policy', 'privacy policy'],
    ] as const) {
      const res = await platform.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.body).toContain(heading);
    }
  });

  it('spec-notes I12: /consent.js is an ES module served as text/javascript, loadable cross-origin', async () => {
    const res = await fetch(`${platform.url}/consent.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const source = await res.text();
    expect(source).toContain(`const AUTH_URL = "${platform.url}"`);
    expect(source).toContain("'feira-consent-content'");
    expect(source).toMatch(/^export function upgrade\(/m);
  });
});
