import { type ListeningPlatform, listenPlatform, testDatabaseTargets } from '@feira/platform/testing';
import { authorizationUrl, createPkce, exchangeCode, introspect, OAuthError, refresh, revoke } from '@feira/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentAsSeller } from './support/seller-browser.js';

const REDIRECT_URI = 'https://integrator.example/callback';

describe.each(testDatabaseTargets())('OAuth client against the real platform on loopback ($dialect)', (target) => {
  let platform: ListeningPlatform;
  let credentials: { authUrl: string; clientId: string; clientSecret: string };
  let seller: { login: string; password: string; tenantIds: string[] };

  beforeAll(async () => {
    platform = await listenPlatform(target);
    const client = await platform.createClient({ redirectUris: [REDIRECT_URI] });
    credentials = { authUrl: platform.url, ...client };
    seller = await platform.createSeller({ tenants: 2 });
  });
  afterAll(async () => {
    await platform?.close();
  });

  const connect = async (input: { state?: string; pkce?: boolean; tenants?: string[] } = {}) => {
    const pkce = input.pkce ? createPkce() : undefined;
    const url = authorizationUrl({
      authUrl: credentials.authUrl,
      clientId: credentials.clientId,
      redirectUri: REDIRECT_URI,
      scopes: ['open:ticket:read', 'open:order-order:read'],
      ...(input.state ? { state: input.state } : {}),
      ...(pkce ? { pkce } : {}),
    });
    const callback = await consentAsSeller(url, { ...seller, ...(input.tenants ? { tenants: input.tenants } : {}) });
    return { callback, code: callback.searchParams.get('code') ?? '', pkce };
  };

  it('spec "Consent by redirect": authorizationUrl leads through login and consent back to redirect_uri with a code and the state', async () => {
    const { callback, code } = await connect({ state: 'seller42' });
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe('seller42');
    expect(code.length).toBeGreaterThan(10);
  });

  it('spec "Code exchange" (JSON body) / Authentication §4: exchangeCode returns the six-field token set, scope space-separated; spec-notes I6: a second exchange is invalid_grant', async () => {
    const { code } = await connect();
    const tokens = await exchangeCode({ ...credentials, code, redirectUri: REDIRECT_URI });
    expect(Object.keys(tokens).sort()).toEqual([
      'access_token',
      'created_at',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope.split(' ')).toEqual(expect.arrayContaining(['open:ticket:read', 'open:order-order:read']));
    const again = await exchangeCode({ ...credentials, code, redirectUri: REDIRECT_URI }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OAuthError);
    expect((again as OAuthError).code).toBe('invalid_grant');
    expect((again as OAuthError).status).toBe(400);
  });

  it('spec "Authentication" rule 5: a redirect_uri different from the one used at consent is refused', async () => {
    const { code } = await connect();
    const error = await exchangeCode({ ...credentials, code, redirectUri: 'https://integrator.example/other' }).catch(
      (e: unknown) => e,
    );
    expect((error as OAuthError).code).toBe('invalid_grant');
  });

  it('spec-notes I8: PKCE round trip with createPkce; a wrong verifier is refused', async () => {
    const first = await connect({ pkce: true });
    const wrong = await exchangeCode({
      ...credentials,
      code: first.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: createPkce().codeVerifier,
    }).catch((e: unknown) => e);
    expect((wrong as OAuthError).code).toBe('invalid_grant');
    const second = await connect({ pkce: true });
    const tokens = await exchangeCode({
      ...credentials,
      code: second.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: second.pkce!.codeVerifier,
    });
    expect(tokens.access_token).toBeTruthy();
  });

  it('spec "Token refresh" (form body) / spec-notes I5: refresh returns a new refresh token', async () => {
    const { code } = await connect();
    const tokens = await exchangeCode({ ...credentials, code, redirectUri: REDIRECT_URI });
    const next = await refresh({ ...credentials, refreshToken: tokens.refresh_token });
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    const third = await refresh({ ...credentials, refreshToken: next.refresh_token });
    expect(third.token_type).toBe('Bearer');
  });

  it('RFC 6749 §5.2: a wrong client secret is an OAuthError invalid_client (401) whose message holds no secret', async () => {
    const { code } = await connect();
    const error = (await exchangeCode({ ...credentials, clientSecret: 'not-the-secret', code, redirectUri: REDIRECT_URI }).catch(
      (e: unknown) => e,
    )) as OAuthError;
    expect(error.code).toBe('invalid_client');
    expect(error.status).toBe(401);
    expect(error.message).not.toContain('not-the-secret');
    expect(error.message).not.toContain(code);
  });

  it('RFC 7009 / RFC 7662: introspect reads a token in force; revoke ends the grant, after which introspect says inactive and refresh is invalid_grant', async () => {
    const { code } = await connect();
    const tokens = await exchangeCode({ ...credentials, code, redirectUri: REDIRECT_URI });
    const info = await introspect({ ...credentials, token: tokens.access_token });
    expect(info).toMatchObject({ active: true, client_id: credentials.clientId, tenants: seller.tenantIds });
    await revoke({ ...credentials, token: tokens.refresh_token, tokenTypeHint: 'refresh_token' });
    expect(await introspect({ ...credentials, token: tokens.access_token })).toEqual({ active: false });
    const error = (await refresh({ ...credentials, refreshToken: tokens.refresh_token }).catch((e: unknown) => e)) as OAuthError;
    expect(error.code).toBe('invalid_grant');
    // RFC 7009 §2.2: revoking again (or any unknown token) still succeeds.
    await expect(revoke({ ...credentials, token: tokens.refresh_token })).resolves.toBeUndefined();
    const bad = (await revoke({ ...credentials, clientSecret: 'wrong', token: tokens.access_token }).catch(
      (e: unknown) => e,
    )) as OAuthError;
    expect(bad.code).toBe('invalid_client');
  });
});
