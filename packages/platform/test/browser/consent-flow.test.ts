import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUrl } from '../../src/identity/test-support/page-client.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { platformInChromium } from './browser-kit.js';

/**
 * In a real Chromium: the pages, the consent
 * button on an integrator's page (another origin), and framing refused.
 * The integrator's site is a tiny local HTTP server on its own port.
 */
function integratorSite(platformUrl: () => string, clientId: () => string) {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><head><title>Integrator</title></head><body>${body}</body></html>`);
    };
    const self = `http://${req.headers.host}`;
    switch (url.pathname) {
      case '/button':
        return html(`<h1>Acme</h1>
<div id="good" class="feira-consent-content" client-id="${clientId()}" redirect-uri="${self}/callback" state="abc123" scope="open:order-order:read" data-color="red" unknown-attribute="ignored">Connect my store</div>
<div id="no-client" class="feira-consent-content" redirect-uri="${self}/callback">Connect</div>
<div id="no-redirect" class="feira-consent-content" client-id="${clientId()}">Connect</div>
<div id="bad-state" class="feira-consent-content" client-id="${clientId()}" redirect-uri="${self}/callback" state="not alnum!">Connect</div>
<script type="module" src="${platformUrl()}/consent.js"></script>`);
      case '/frame':
        return html(`<iframe id="login-frame" title="login" src="${url.searchParams.get('src')}"></iframe>
<iframe id="control-frame" title="control" src="/framable"></iframe>`);
      case '/framable':
        return html('<p id="control">a page that allows framing</p>');
      case '/callback':
        return html('<p id="callback">back at the integrator</p>');
      default:
        res.writeHead(404).end();
    }
  });
}

describe.each(testDatabaseTargets())('identity pages in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let site: Server;
  let siteUrl: string;
  let browser: Browser;
  let client: { clientId: string; clientSecret: string };
  let seller: { login: string; password: string; tenantIds: string[] };

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });
  beforeAll(async () => {
    site = integratorSite(
      () => platform.url,
      () => client.clientId,
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    site.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  async function newSellerAndClient() {
    seller = await platform.createSeller({ tenants: 2 });
    client = await platform.createClient({
      name: 'Acme Integrations',
      redirectUris: [`${siteUrl}/callback`],
      scopes: ['open:portfolio:read', 'open:order-order:read', 'open:ticket:read'],
      defaultScopes: ['open:portfolio:read'],
      termsOfUseUrl: 'https://acme.example/terms',
      privacyPolicyUrl: 'https://acme.example/privacy',
    });
  }

  async function exchange(code: string) {
    const res = await fetch(`${platform.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: `${siteUrl}/callback`,
        code,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function logIn(page: Page) {
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill(seller.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('spec "Consent by redirect": log in, pick stores, consent, arrive at the redirect with code and state; a second flow skips consent', async () => {
    await newSellerAndClient();
    const context = await browser.newContext();
    const page = await context.newPage();
    const url = loginUrl(platform.url, {
      clientId: client.clientId,
      redirectUri: `${siteUrl}/callback`,
      scope: 'open:order-order:read',
      state: 'first',
    });
    await page.goto(url);
    // Focus starts in the login field (autofocus); labels name every input.
    expect(await page.locator(':focus').getAttribute('id')).toBe('login');
    await logIn(page);
    await page.getByLabel('Store 2').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { name: 'Allow Acme Integrations to access your data?' }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${siteUrl}/callback?**`);
    const first = new URL(page.url());
    expect(first.searchParams.get('state')).toBe('first');
    const tokens = await exchange(first.searchParams.get('code') as string);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('open:portfolio:read open:order-order:read');

    // Second flow in the same browser: still logged in, everything granted for Store 2 → no consent screen.
    await page.goto(url.replace('state=first', 'state=second'));
    await page.getByLabel('Store 2').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${siteUrl}/callback?**`);
    const second = new URL(page.url());
    expect(second.searchParams.get('state')).toBe('second');
    expect((await exchange(second.searchParams.get('code') as string)).status).toBe(200);
    await context.close();
  });

  it('spec-notes I12: the consent button on an integrator page starts the flow with the merged scopes; bad elements show an inline error', async () => {
    await newSellerAndClient();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteUrl}/button`);
    const button = page.locator('#good button');
    await button.waitFor();
    expect(await button.textContent()).toBe('Connect my store');
    expect(await page.locator('#no-client [role=alert]').textContent()).toContain('client-id attribute is required');
    expect(await page.locator('#no-redirect [role=alert]').textContent()).toContain('redirect-uri attribute is required');
    expect(await page.locator('#bad-state [role=alert]').textContent()).toContain('state attribute must be alphanumeric');
    expect(await page.locator('#bad-state button').count()).toBe(0);

    await button.click();
    await page.waitForURL(`${platform.url}/login?**`);
    await logIn(page);
    await page.getByLabel('Store 1').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    // The seller sees the client's default scope plus the button's extra scope.
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const consent = await page.locator('main').textContent();
    expect(consent).toContain('Read your orders');
    expect(consent).toContain('Read your products (portfolio)');
    expect(consent).not.toContain('Read your customer-service tickets');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${siteUrl}/callback?**`);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('abc123');
    const tokens = await exchange(callback.searchParams.get('code') as string);
    expect(tokens.body.scope).toBe('open:portfolio:read open:order-order:read');
    await context.close();
  });

  it('the login page refuses to be framed (frame-ancestors none, X-Frame-Options DENY)', async () => {
    await newSellerAndClient();
    const context = await browser.newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options|Refused to (display|frame)/i.test(message.text())) blocked.push(message.text());
    });
    const src = loginUrl(platform.url, {
      clientId: client.clientId,
      redirectUri: `${siteUrl}/callback`,
      scope: 'open:order-order:read',
    });
    await page.goto(`${siteUrl}/frame?src=${encodeURIComponent(src)}`);
    // The control frame (a page that allows framing) loads, so frames work on this page...
    await page.frameLocator('#control-frame').locator('#control').waitFor();
    // ...but the login frame never shows the form.
    await expect.poll(() => blocked.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(await page.frameLocator('#login-frame').locator('input[name=password]').count()).toBe(0);
    await context.close();
  });
});
