import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { authorizeThroughPages, PageClient } from './test-support/page-client.js';

const REDIRECT = 'https://integrator.example/callback';

/**
 * A third-party OAuth library (oauth4webapi)
 * as an integrator would use it, against the real server on a socket. It
 * discovers the metadata, the pages are driven by a fetch-with-cookie-jar
 * helper, and oauth4webapi does the code exchange (with PKCE) and the refresh.
 */
describe.each(testDatabaseTargets())('oauth4webapi against the real server on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform.close());

  it('spec Authentication §1 / RFC 8414 + RFC 6749 §4.1 + RFC 7636: discovery, code exchange with PKCE and client_secret_basic, then refresh (I5)', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const registered = await platform.createClient({
      redirectUris: [REDIRECT],
      scopes: ['open:portfolio:read', 'open:order-order:read'],
      defaultScopes: ['open:portfolio:read'],
    });
    const issuer = new URL(platform.url);
    const as = await oauth
      .discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true })
      .then((response) => oauth.processDiscoveryResponse(issuer, response));
    expect(as.token_endpoint).toBe(`${platform.url}/oauth/token`);

    const client: oauth.Client = { client_id: registered.clientId };
    const clientAuth = oauth.ClientSecretBasic(registered.clientSecret);
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = 'integratorState42';

    const { callback } = await authorizeThroughPages(new PageClient(platform.url), {
      clientId: registered.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state,
      codeChallenge: challenge,
      chooseTenants: null,
      login: seller.login,
      password: seller.password,
    });
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(7200);
    expect(tokens.scope).toBe('open:portfolio:read open:order-order:read');
    expect(typeof tokens.refresh_token).toBe('string');

    const refreshed = await oauth
      .refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token as string, { [oauth.allowInsecureRequests]: true })
      .then((r) => oauth.processRefreshTokenResponse(as, client, r));
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // A replayed code is an RFC 6749 error that the library surfaces as invalid_grant.
    const replay = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    await expect(oauth.processAuthorizationCodeResponse(as, client, replay)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('spec-notes I2: client_secret_post (credentials in the form body) works the same way', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const registered = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:ticket:read'] });
    const as = await oauth
      .discoveryRequest(new URL(platform.url), { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true })
      .then((r) => oauth.processDiscoveryResponse(new URL(platform.url), r));
    const client: oauth.Client = { client_id: registered.clientId };
    const { callback } = await authorizeThroughPages(new PageClient(platform.url), {
      clientId: registered.clientId,
      redirectUri: REDIRECT,
      scope: 'open:ticket:read',
      login: seller.login,
      password: seller.password,
    });
    const params = oauth.validateAuthResponse(as, client, callback, oauth.expectNoState);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(registered.clientSecret),
      params,
      REDIRECT,
      oauth.nopkce,
      { [oauth.allowInsecureRequests]: true },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.scope).toBe('open:ticket:read');
  });
});
