import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import type { ListeningPlatform } from '../../src/testing.js';
import { ADMIN, createOrders } from '../lists/list-fixtures.js';
import { platformInChromium } from './browser-kit.js';

/**
 * A single-page app as an integrator writes one: a public client (no secret) served from
 * its own origin, a second loopback server. In Chromium it runs the whole flow itself:
 * PKCE S256 with WebCrypto, the seller's sign-in on the platform, the code exchange and a
 * refresh by fetch across origins, the seller API with the bearer token (a preflighted
 * request) and /userinfo. The same code on an origin the app did not register is blocked.
 */

/** The app's one page: starts the flow on /start, finishes it on /callback, writes what it saw into #result. */
function spaPage(api: string, clientId: string, origin: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop app</title></head>
<body><main><h1>Shop app</h1><pre id="result">working</pre></main>
<script type="module">
const api = ${JSON.stringify(api)};
const clientId = ${JSON.stringify(clientId)};
const redirectUri = ${JSON.stringify(`${origin}/callback`)};
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const show = (value) => { document.getElementById('result').textContent = JSON.stringify(value); };
const form = (fields) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
async function start() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const url = new URL(api + '/login');
  for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code',
    scope: 'openid open:order-order:read', state, code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v);
  location.assign(url);
}
async function finish() {
  const params = new URLSearchParams(location.search);
  const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce'));
  if (params.get('state') !== state || params.get('iss') !== api) return show({ error: 'state or iss mismatch' });
  const exchanged = await fetch(api + '/oauth/token', form({ grant_type: 'authorization_code', code: params.get('code'),
    redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }));
  const tokens = await exchanged.json();
  const orders = await fetch(api + '/v1/orders?_limit=2', { headers: { authorization: 'Bearer ' + tokens.access_token } });
  const page = await orders.json();
  const refreshed = await fetch(api + '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }));
  const rotated = await refreshed.json();
  const userinfo = await fetch(api + '/userinfo', { headers: { authorization: 'Bearer ' + rotated.access_token } });
  show({
    exchangeStatus: exchanged.status, hasIdToken: typeof tokens.id_token === 'string', accessToken: tokens.access_token,
    ordersStatus: orders.status, orders: page.results.length, requestId: orders.headers.get('x-request-id'),
    refreshStatus: refreshed.status, rotated: rotated.refresh_token !== tokens.refresh_token,
    userinfo: await userinfo.json(),
  });
}
(location.pathname === '/callback' ? finish() : start()).catch((error) => show({ error: String(error) }));
</script></body></html>`;
}

async function serve(handler: (origin: string) => string): Promise<{ server: Server; origin: string }> {
  let origin = '';
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(handler(origin)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin };
}

async function close(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe.each(testDatabaseTargets())('a public client single-page app in Chromium on $dialect', (target) => {
  let platform: ListeningPlatform;
  let browser: Browser;
  let spa: { server: Server; origin: string };
  let stranger: { server: Server; origin: string };
  let clientId = '';

  platformInChromium(target, (opened) => {
    ({ platform, browser } = opened);
  });
  beforeAll(async () => {
    spa = await serve((origin) => spaPage(platform.url, clientId, origin));
    stranger = await serve(
      () => '<!doctype html><html lang="en"><head><title>Elsewhere</title></head><body>elsewhere</body></html>',
    );
    const registered = await fetch(`${platform.url}/admin/v1/clients`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Shop app',
        redirect_uris: [`${spa.origin}/callback`],
        scopes: ['open:order-order:read'],
        default_scopes: [],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.status).toBe(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  afterAll(async () => {
    await close(spa?.server);
    await close(stranger?.server);
  });

  it('spec-notes I13 / I14 / I16: the app on its own origin completes PKCE as a public client, calls the seller API across origins, refreshes (rotated) and reads /userinfo', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    await createOrders(platform, seller.tenantIds[0] as string, 3);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${spa.origin}/start`);
    await page.waitForURL(`${platform.url}/login?**`);
    await page.getByLabel('Login').fill(seller.login);
    await page.getByLabel('Password').fill(seller.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Store 1').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${spa.origin}/callback?**`);
    const result = page.locator('#result');
    await expect.poll(async () => result.textContent(), { timeout: 30_000 }).not.toBe('working');
    const seen = JSON.parse((await result.textContent()) as string);
    expect(seen).toMatchObject({
      exchangeStatus: 200,
      hasIdToken: true,
      ordersStatus: 200,
      orders: 2,
      // An exposed header the page may read across origins.
      requestId: expect.any(String),
      refreshStatus: 200,
      rotated: true,
      userinfo: { sub: seller.sellerId },
    });

    // The same token, from a page on an origin the app never registered: the browser blocks the answer.
    const elsewhere = await context.newPage();
    await elsewhere.goto(`${stranger.origin}/`);
    const blocked = await elsewhere.evaluate(
      async ([url, token]) => {
        try {
          await fetch(url as string, { headers: { authorization: `Bearer ${token}` } });
          return 'read';
        } catch (error) {
          return (error as Error).name;
        }
      },
      [`${platform.url}/v1/orders?_limit=1`, seen.accessToken],
    );
    expect(blocked).toBe('TypeError');
    await context.close();
  });
});
