import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { Agent, type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import {
  chromiumLaunchOptions,
  createTestPlatform,
  ManualClock,
  type TestPlatform,
  testConfig,
  testTls,
} from '../../src/testing.js';

/**
 * openid-client and oauth4webapi as an integrator calls them first: default discovery
 * (OpenID Connect Discovery, `/.well-known/openid-configuration`), no option at all,
 * over HTTPS as both demand. The platform answers on a TLS socket with the test CA,
 * which this process trusts for its own fetch (the libraries are not told); the seller
 * signs in in Chromium. Both validate the ID token's claims (iss, aud, exp, iat, nonce)
 * and read /userinfo for the same subject; its ES256 signature is checked here against
 * the discovered JWKS (Core §3.1.3.7 lets a client that got it over TLS skip that).
 */

const SCOPE = 'openid open:order-order:read';

interface SignedIn {
  idToken: string;
  jwksUri: string;
  idTokenClaims: Record<string, unknown>;
  accessToken: string;
  userinfoSub: string;
}

/** Drives one library: authorization URL (PKCE, state, nonce), the seller in Chromium, exchange, ID token, userinfo. */
type Flow = (
  issuer: string,
  client: { id: string; secret: string; redirectUri: string },
  signIn: (url: string) => Promise<URL>,
) => Promise<SignedIn>;

const openidClientFlow: Flow = async (issuer, client, signIn) => {
  const config = await openid.discovery(new URL(issuer), client.id, client.secret);
  const verifier = openid.randomPKCECodeVerifier();
  const state = openid.randomState();
  const nonce = openid.randomNonce();
  const url = openid.buildAuthorizationUrl(config, {
    redirect_uri: client.redirectUri,
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await openid.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await signIn(url.href);
  const tokens = await openid.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('no ID token claims');
  const info = await openid.fetchUserInfo(config, tokens.access_token, claims.sub);
  return {
    idToken: tokens.id_token as string,
    jwksUri: config.serverMetadata().jwks_uri as string,
    idTokenClaims: { ...claims, expectedNonce: nonce },
    accessToken: tokens.access_token,
    userinfoSub: info.sub,
  };
};

const oauth4webapiFlow: Flow = async (issuer, client, signIn) => {
  const issuerUrl = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl));
  const registered: oauth.Client = { client_id: client.id };
  const auth = oauth.ClientSecretBasic(client.secret);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('client_id', client.id);
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', SCOPE);
  url.searchParams.set('state', state);
  url.searchParams.set('nonce', nonce);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const callback = await signIn(url.href);
  const params = oauth.validateAuthResponse(as, registered, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, registered, auth, params, client.redirectUri, verifier);
  const result = await oauth.processAuthorizationCodeResponse(as, registered, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(result);
  if (!claims) throw new Error('no ID token claims');
  const info = await oauth.processUserInfoResponse(
    as,
    registered,
    claims.sub,
    await oauth.userInfoRequest(as, registered, result.access_token),
  );
  return {
    idToken: result.id_token as string,
    jwksUri: as.jwks_uri as string,
    idTokenClaims: { ...claims, expectedNonce: nonce },
    accessToken: result.access_token,
    userinfoSub: info.sub,
  };
};

describe.each(testDatabaseTargets())('OpenID Connect default discovery on $dialect', (target) => {
  let platform: TestPlatform;
  let tls: HttpsServer;
  let site: Server;
  let issuer: string;
  let redirectUri: string;
  let browser: Browser;
  let previousDispatcher: Dispatcher;

  beforeAll(async () => {
    // The provider's HTTPS address is known before the platform is built, so its issuer is that address.
    let app: TestPlatform['app'] | undefined;
    tls = createHttpsServer({ key: testTls.key, cert: testTls.cert }, (req, res) => {
      if (app) app.routing(req, res);
      else res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    issuer = `https://localhost:${(tls.address() as AddressInfo).port}`;
    // openid-client checks iat and exp against the real time: the platform's clock starts at it.
    platform = await createTestPlatform(target, {
      config: testConfig({ publicUrl: issuer, authUrl: issuer }),
      clock: new ManualClock(new Date()),
    });
    await platform.app.ready();
    app = platform.app;

    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: testTls.ca } }));

    site = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('back at the integrator'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(site.address() as AddressInfo).port}/callback`;
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    if (previousDispatcher) setGlobalDispatcher(previousDispatcher);
    await browser?.close();
    // Each closed only if beforeAll got that far, so a failure there is the one reported.
    for (const server of [site, tls]) {
      if (!server) continue;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await platform?.close();
  });

  it.each([
    ['openid-client', openidClientFlow],
    ['oauth4webapi', oauth4webapiFlow],
  ] as const)(
    'spec-notes I14 / OpenID Connect Discovery 1.0 / Core §3.1.3.7: %s discovers with no option, signs the seller in with PKCE and nonce, validates the ID token and reads /userinfo',
    async (_name, flow) => {
      const seller = await platform.createSeller({ tenants: 1 });
      const registered = await platform.createClient({ redirectUris: [redirectUri], scopes: ['open:order-order:read'] });
      const signIn = async (url: string) => {
        // The browser is the seller's; it is told to accept the test CA, the libraries are not told anything.
        const context = await browser.newContext({ ignoreHTTPSErrors: true });
        const page = await context.newPage();
        await page.goto(url);
        await page.getByLabel('Login').fill(seller.login);
        await page.getByLabel('Password').fill(seller.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByLabel('Store 1').check();
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(`${redirectUri}?**`);
        const callback = new URL(page.url());
        await context.close();
        return callback;
      };

      const signedIn = await flow(issuer, { id: registered.clientId, secret: registered.clientSecret, redirectUri }, signIn);
      const claims = signedIn.idTokenClaims;
      expect(claims).toMatchObject({ iss: issuer, sub: seller.sellerId, aud: registered.clientId });
      expect(claims.nonce).toBe(claims.expectedNonce);
      expect(claims.auth_time).toEqual(expect.any(Number));
      expect(claims.at_hash).toEqual(expect.any(String));
      expect(signedIn.userinfoSub).toBe(seller.sellerId);
      const verified = await jwtVerify(signedIn.idToken, createRemoteJWKSet(new URL(signedIn.jwksUri)), {
        issuer,
        audience: registered.clientId,
        algorithms: ['ES256'],
        currentDate: platform.clock.now(),
      });
      expect(verified.payload.sub).toBe(seller.sellerId);

      // The access token of the same grant still reads the seller API.
      const orders = await fetch(`${issuer}/v1/orders?_limit=1`, {
        headers: { authorization: `Bearer ${signedIn.accessToken}` },
      });
      expect(orders.status).toBe(200);
    },
  );
});
