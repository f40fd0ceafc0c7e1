import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { chromiumLaunchOptions, type ListeningPlatform, listenPlatform } from '../../src/testing.js';

/**
 * Two standard OAuth client libraries drive the whole flow
 * against the real server, as an integrator would, with nothing Feira-specific in
 * the authorization URL (no choose_tenants: spec-notes I9 makes its absence mean
 * "the seller picks stores"). The seller's part happens in Chromium on the real pages.
 */

/** What the flow needs from a library; each adapter below uses only that library's public API. */
interface LibraryClient {
  /** Discovery (RFC 8414) and the authorization URL with PKCE S256 and state. */
  start(): Promise<{ url: string; finish(callback: URL): Promise<Tokens> }>;
  refresh(refreshToken: string): Promise<Tokens>;
  introspect(token: string): Promise<Record<string, unknown>>;
  revoke(token: string): Promise<void>;
  /** GET on a platform API with the access token and X-Tenant-Id. */
  get(url: string, accessToken: string, tenantId: string): Promise<Response>;
  jwksUri: () => string;
}
interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

const SCOPE = 'open:order-order:read';

async function openidClient(issuer: string, redirectUri: string, clientId: string, secret: string): Promise<LibraryClient> {
  const config = await openid.discovery(new URL(issuer), clientId, secret, openid.ClientSecretBasic(secret), {
    algorithm: 'oauth2',
    execute: [openid.allowInsecureRequests],
  });
  return {
    jwksUri: () => config.serverMetadata().jwks_uri as string,
    async start() {
      const verifier = openid.randomPKCECodeVerifier();
      const state = openid.randomState();
      const url = openid.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        state,
        code_challenge: await openid.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return {
        url: url.href,
        finish: async (callback) =>
          (await openid.authorizationCodeGrant(config, callback, {
            pkceCodeVerifier: verifier,
            expectedState: state,
          })) as unknown as Tokens,
      };
    },
    refresh: async (refreshToken) => (await openid.refreshTokenGrant(config, refreshToken)) as unknown as Tokens,
    introspect: async (token) => ({ ...(await openid.tokenIntrospection(config, token)) }),
    revoke: (token) => openid.tokenRevocation(config, token),
    get: (url, accessToken, tenantId) =>
      openid.fetchProtectedResource(
        config,
        accessToken,
        new URL(url),
        'GET',
        undefined,
        new Headers({ 'x-tenant-id': tenantId }),
      ),
  };
}

async function oauth4webapiClient(issuer: string, redirectUri: string, clientId: string, secret: string): Promise<LibraryClient> {
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth
    .discoveryRequest(new URL(issuer), { algorithm: 'oauth2', ...insecure })
    .then((response) => oauth.processDiscoveryResponse(new URL(issuer), response));
  const client: oauth.Client = { client_id: clientId };
  const auth = oauth.ClientSecretPost(secret);
  return {
    jwksUri: () => as.jwks_uri as string,
    async start() {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint as string);
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', SCOPE);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return {
        url: url.href,
        async finish(callback) {
          // Checks state and, since the metadata advertises RFC 9207, that iss is the discovered issuer.
          const params = oauth.validateAuthResponse(as, client, callback, state);
          const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure);
          return (await oauth.processAuthorizationCodeResponse(as, client, response)) as unknown as Tokens;
        },
      };
    },
    refresh: async (refreshToken) =>
      (await oauth
        .refreshTokenGrantRequest(as, client, auth, refreshToken, insecure)
        .then((r) => oauth.processRefreshTokenResponse(as, client, r))) as unknown as Tokens,
    introspect: async (token) =>
      ({
        ...(await oauth
          .introspectionRequest(as, client, auth, token, insecure)
          .then((r) => oauth.processIntrospectionResponse(as, client, r))),
      }) as Record<string, unknown>,
    revoke: async (token) => {
      await oauth.revocationRequest(as, client, auth, token, insecure).then((r) => oauth.processRevocationResponse(r));
    },
    get: (url, accessToken, tenantId) =>
      oauth.protectedResourceRequest(accessToken, 'GET', new URL(url), new Headers({ 'x-tenant-id': tenantId }), null, insecure),
  };
}

describe.each(testDatabaseTargets())('standard OAuth client libraries, full flow in Chromium, on $dialect', (target) => {
  let platform: ListeningPlatform;
  let site: Server;
  let redirectUri: string;
  let browser: Browser;

  beforeAll(async () => {
    platform = await listenPlatform(target);
    // The integrator's callback: the library reads the code from the URL the browser lands on.
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('back at the integrator'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(site.address() as AddressInfo).port}/callback`;
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    site?.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
    await platform?.close();
  });

  it.each([
    ['openid-client', openidClient],
    ['oauth4webapi', oauth4webapiClient],
  ] as const)(
    'RFC 8414 + RFC 7636 + RFC 9207 + RFC 7662 + RFC 7009 / spec-notes I9: %s discovers, authorizes with PKCE in Chromium without choose_tenants, exchanges, refreshes, introspects, revokes; the revoked refresh token is refused',
    async (_name, make) => {
      const seller = await platform.createSeller({ tenants: 2 });
      const registered = await platform.createClient({ redirectUris: [redirectUri], scopes: [SCOPE] });
      const library = await make(platform.url, redirectUri, registered.clientId, registered.clientSecret);

      const { url, finish } = await library.start();
      expect(new URL(url).searchParams.has('choose_tenants')).toBe(false);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.getByLabel('Login').fill(seller.login);
      await page.getByLabel('Password').fill(seller.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // spec-notes I9: no choose_tenants, so the seller picks stores.
      await page.getByLabel('Store 1').check();
      await page.getByLabel('Store 2').check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${redirectUri}?**`);
      const callback = new URL(page.url());
      await context.close();
      expect(callback.searchParams.get('iss')).toBe(platform.url);

      const tokens = await finish(callback);
      expect(tokens.scope).toBe(SCOPE);

      // Access tokens verify with jose against the discovered JWKS (RFC 9068 claims, kid).
      const jwks = createRemoteJWKSet(new URL(library.jwksUri()));
      const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
        issuer: platform.url,
        audience: platform.url,
        typ: 'at+jwt',
        currentDate: platform.clock.now(),
      });
      expect(protectedHeader.kid).toBeTruthy();
      expect(payload).toMatchObject({ sub: seller.sellerId, client_id: registered.clientId, tenants: seller.tenantIds });

      // The token carries both stores, so a call names one in X-Tenant-Id.
      const [store1, store2] = seller.tenantIds as [string, string];
      expect((await library.get(`${platform.url}/v1/orders?_limit=1`, tokens.access_token, store2)).status).toBe(200);

      const refreshed = await library.refresh(tokens.refresh_token);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      await jwtVerify(refreshed.access_token, jwks, { issuer: platform.url, typ: 'at+jwt', currentDate: platform.clock.now() });

      const info = await library.introspect(refreshed.access_token);
      expect(info).toMatchObject({ active: true, scope: SCOPE, client_id: registered.clientId, sub: seller.sellerId });
      expect(info.tenants).toEqual([store1, store2]);

      await library.revoke(refreshed.refresh_token);
      expect(await library.introspect(refreshed.access_token)).toMatchObject({ active: false });
      // Both libraries surface the RFC 6750 challenge of a refused token as an error naming invalid_token.
      await expect(library.get(`${platform.url}/v1/orders?_limit=1`, refreshed.access_token, store1)).rejects.toMatchObject({
        status: 401,
        cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }],
      });
      await expect(library.refresh(refreshed.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    },
  );
});
