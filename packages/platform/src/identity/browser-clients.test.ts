import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../test/lists/list-fixtures.js';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import { loginUrl } from './test-support/page-client.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const APP_ORIGIN = 'https://spa.example';
const REDIRECT = `${APP_ORIGIN}/callback`;
const SCOPE = 'open:order-order:read';

/**
 * Public clients (spec-notes I13), OpenID Connect (I14) and CORS (I16) over HTTP on
 * loopback; the browser itself is in test/browser/public-client-spa.test.ts.
 */
describe.each(testDatabaseTargets())('browser apps and OpenID Connect on $dialect', (target) => {
  let platform: ListeningPlatform;

  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform?.close());

  async function call(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; form?: Record<string, string> } = {},
  ) {
    const response = await request(`${platform.url}${path}`, {
      method: method as 'GET',
      headers: { ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...options.headers },
      ...(options.form ? { body: new URLSearchParams(options.form).toString() } : {}),
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
  }

  async function publicClient(redirectUris = [REDIRECT]) {
    const response = await request(`${platform.url}/admin/v1/clients`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Single-page app',
        redirect_uris: redirectUris,
        scopes: [SCOPE],
        default_scopes: [],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(response.statusCode).toBe(201);
    return (await response.body.json()) as { client_id: string; client_secret: string | null; allowed_origins: string[] };
  }

  async function code(
    clientId: string,
    options: { challenge?: string | undefined; scope?: string; nonce?: string; authTime?: string } = {},
  ) {
    const seller = await platform.createSeller({ tenants: 1 });
    const issued = await issueAuthorizationCode(platform.app.identity, {
      clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: options.scope ?? SCOPE,
      tenants: seller.tenantIds,
      codeChallenge: 'challenge' in options ? options.challenge : CHALLENGE,
      nonce: options.nonce,
      authTime: options.authTime,
    });
    return { code: issued, seller };
  }

  const exchange = (clientId: string, issued: string, extra: Record<string, string> = {}) =>
    call('POST', '/oauth/token', {
      form: {
        grant_type: 'authorization_code',
        code: issued,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: VERIFIER,
        ...extra,
      },
    });

  describe('public clients', () => {
    it('spec-notes I13: the admin API registers a public client (token_endpoint_auth_method none): no secret, its redirect URIs’ origins as allowed origins', async () => {
      const created = await publicClient([REDIRECT, 'https://spa.example/other', 'http://127.0.0.1:5173/cb']);
      expect(created).toMatchObject({
        client_secret: null,
        token_endpoint_auth_method: 'none',
        allowed_origins: [APP_ORIGIN, 'http://127.0.0.1:5173'],
      });
      const read = await call('GET', `/admin/v1/clients/${created.client_id}`, { headers: ADMIN });
      expect(read.json()).toMatchObject({
        token_endpoint_auth_method: 'none',
        allowed_origins: [APP_ORIGIN, 'http://127.0.0.1:5173'],
      });
    });

    it('spec-notes I13: a public client’s authorization request without PKCE goes back with invalid_request; with S256 it reaches the login page', async () => {
      const { client_id } = await publicClient();
      const pathOf = (url: string) => url.slice(platform.url.length);
      const without = await call(
        'GET',
        pathOf(loginUrl(platform.url, { clientId: client_id, redirectUri: REDIRECT, scope: SCOPE, state: 's1' })),
      );
      expect(without.status).toBe(303);
      const back = new URL(without.headers.location as string);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('s1');
      const withPkce = loginUrl(platform.url, {
        clientId: client_id,
        redirectUri: REDIRECT,
        scope: SCOPE,
        codeChallenge: CHALLENGE,
      });
      expect((await call('GET', pathOf(withPkce))).status).toBe(200);
    });

    it('spec-notes I13 / I5: a public client exchanges its code by client_id and code_verifier alone, and every refresh rotates: reuse revokes the grant', async () => {
      const { client_id } = await publicClient();
      const { code: issued, seller } = await code(client_id);
      const tokens = await exchange(client_id, issued);
      expect(tokens.status).toBe(200);
      const set = tokens.json() as { access_token: string; refresh_token: string };
      const refresh = (refreshToken: string) =>
        call('POST', '/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id } });
      const first = await refresh(set.refresh_token);
      expect(first.status).toBe(200);
      const rotated = first.json() as { access_token: string; refresh_token: string };
      expect(rotated.refresh_token).not.toBe(set.refresh_token);
      // The child's use supersedes the parent; presenting the parent then is reuse and ends the grant.
      expect((await refresh(rotated.refresh_token)).status).toBe(200);
      expect((await refresh(set.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
      const api = await call('GET', '/v1/orders', {
        headers: { authorization: `Bearer ${rotated.access_token}`, 'x-tenant-id': seller.tenantIds[0] as string },
      });
      expect(api.status).toBe(401);
    });

    it('spec-notes I13: a public client’s code issued without a challenge is never exchanged; its code without code_verifier neither', async () => {
      const { client_id } = await publicClient();
      const { code: noChallenge } = await code(client_id, { challenge: undefined });
      const refused = await call('POST', '/oauth/token', {
        form: { grant_type: 'authorization_code', code: noChallenge, redirect_uri: REDIRECT, client_id },
      });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
      const { code: issued } = await code(client_id);
      const noVerifier = await call('POST', '/oauth/token', {
        form: { grant_type: 'authorization_code', code: issued, redirect_uri: REDIRECT, client_id },
      });
      expect(noVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('spec-notes I13: a public client sending a secret, a confidential client without one, and a public client at introspection are invalid_client', async () => {
      const { client_id } = await publicClient();
      const { code: issued } = await code(client_id);
      const withSecret = await exchange(client_id, issued, { client_secret: 'anything' });
      expect(withSecret.status).toBe(401);
      expect(withSecret.json()).toMatchObject({ error: 'invalid_client' });

      const confidential = await platform.createClient({ redirectUris: [REDIRECT], scopes: [SCOPE] });
      const { code: confidentialCode } = await code(confidential.clientId);
      const noSecret = await exchange(confidential.clientId, confidentialCode);
      expect(noSecret.status).toBe(401);
      expect(noSecret.json()).toMatchObject({ error: 'invalid_client' });

      const introspect = await call('POST', '/oauth/introspect', { form: { token: 'x', client_id } });
      expect(introspect.status).toBe(401);
      expect(introspect.json()).toMatchObject({ error: 'invalid_client' });
    });

    it('spec-notes I13 / RFC 7009 §2.1: a public client revokes its own token by client_id; the grant ends', async () => {
      const { client_id } = await publicClient();
      const { code: issued, seller } = await code(client_id);
      const set = (await exchange(client_id, issued)).json() as { access_token: string; refresh_token: string };
      const revoked = await call('POST', '/oauth/revoke', { form: { token: set.refresh_token, client_id } });
      expect(revoked.status).toBe(200);
      expect(revoked.json()).toEqual({});
      const api = await call('GET', '/v1/orders', {
        headers: { authorization: `Bearer ${set.access_token}`, 'x-tenant-id': seller.tenantIds[0] as string },
      });
      expect(api.status).toBe(401);
    });
  });

  describe('CORS', () => {
    it('spec-notes I16: a preflight from a registered origin is answered: that origin, the methods, the asked headers, a max age; from another origin, no CORS header', async () => {
      await publicClient();
      const preflight = await call('OPTIONS', '/v1/orders', {
        headers: {
          origin: APP_ORIGIN,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization, x-tenant-id',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject({
        'access-control-allow-origin': APP_ORIGIN,
        'access-control-allow-headers': 'authorization, x-tenant-id',
        'access-control-max-age': '600',
      });
      expect(String(preflight.headers['access-control-allow-methods'])).toContain('GET');
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      expect(String(preflight.headers.vary)).toMatch(/origin/i);

      const stranger = await call('OPTIONS', '/v1/orders', {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('spec-notes I16: the API answers the token’s own app’s origin with CORS headers; another app’s token from that origin is refused', async () => {
      const { client_id } = await publicClient();
      const { code: issued, seller } = await code(client_id);
      const set = (await exchange(client_id, issued, {})).json() as { access_token: string };
      const tenant = seller.tenantIds[0] as string;
      const own = await call('GET', '/v1/orders?_limit=1', {
        headers: { origin: APP_ORIGIN, authorization: `Bearer ${set.access_token}`, 'x-tenant-id': tenant },
      });
      expect(own.status).toBe(200);
      expect(own.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(String(own.headers['access-control-expose-headers'])).toContain('www-authenticate');

      const other = await platform.createClient({ redirectUris: ['https://other.example/cb'], scopes: [SCOPE] });
      const foreign = await platform.mintAccessToken({ tenants: [tenant], scopes: [SCOPE], clientId: other.clientId });
      const refused = await call('GET', '/v1/orders?_limit=1', {
        headers: { origin: APP_ORIGIN, authorization: `Bearer ${foreign}` },
      });
      expect(refused.status).toBe(403);
      expect(refused.json()).toMatchObject({ slug: 'FORBIDDEN', details: [{ field: 'Origin' }] });
      // The same token from a server (no Origin) is fine.
      expect((await call('GET', '/v1/orders?_limit=1', { headers: { authorization: `Bearer ${foreign}` } })).status).toBe(200);
    });

    it('spec-notes I16: the token endpoint refuses a code exchange from an origin the app did not register', async () => {
      const { client_id } = await publicClient();
      const { code: issued } = await code(client_id);
      const refused = await call('POST', '/oauth/token', {
        headers: { origin: 'https://other.example' },
        form: { grant_type: 'authorization_code', code: issued, redirect_uri: REDIRECT, client_id, code_verifier: VERIFIER },
      });
      expect(refused.status).toBe(401);
      expect(refused.json()).toMatchObject({ error: 'invalid_client' });
    });

    it('spec-notes I16: the discovery documents are readable from any origin; the admin API, the login pages and the console never answer with CORS', async () => {
      await publicClient();
      for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
        const response = await call('GET', path, { headers: { origin: 'https://anyone.example' } });
        expect(response.headers['access-control-allow-origin']).toBe('*');
      }
      for (const path of ['/admin/v1/sellers', '/login', '/console']) {
        const response = await call('OPTIONS', path, {
          headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
        });
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  describe('OpenID Connect', () => {
    it('spec-notes I14: an openid code exchange returns an ES256 ID token: iss, aud = client_id, sub, nonce, auth_time, at_hash of the access token; a refresh returns none', async () => {
      const { client_id } = await publicClient();
      const authTime = new Date(platform.clock.now().getTime() - 90_000).toISOString();
      const { code: issued, seller } = await code(client_id, { scope: `openid ${SCOPE}`, nonce: 'n-0S6_WzA2Mj', authTime });
      const response = await exchange(client_id, issued);
      expect(response.status).toBe(200);
      const set = response.json() as { id_token: string; access_token: string; refresh_token: string; scope: string };
      expect(set.scope).toBe(`openid ${SCOPE}`);
      expect(decodeProtectedHeader(set.id_token)).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });
      const { payload } = await jwtVerify(set.id_token, createRemoteJWKSet(new URL(`${platform.url}/.well-known/jwks.json`)), {
        issuer: platform.url,
        audience: client_id,
        currentDate: platform.clock.now(),
      });
      const digest = createHash('sha256').update(set.access_token).digest();
      expect(payload).toMatchObject({
        sub: seller.sellerId,
        nonce: 'n-0S6_WzA2Mj',
        auth_time: Math.floor(Date.parse(authTime) / 1000),
        at_hash: digest.subarray(0, 16).toString('base64url'),
        iat: Math.floor(platform.clock.now().getTime() / 1000),
      });
      expect(payload.exp).toBeGreaterThan(payload.iat as number);

      const refreshed = await call('POST', '/oauth/token', {
        form: { grant_type: 'refresh_token', refresh_token: set.refresh_token, client_id },
      });
      expect(refreshed.json()).not.toHaveProperty('id_token');
      // The ID token is not an access token (typ JWT, not at+jwt).
      const asAccess = await call('GET', '/userinfo', { headers: { authorization: `Bearer ${set.id_token}` } });
      expect(asAccess.status).toBe(401);
    });

    it('spec-notes I14: /userinfo answers sub for a token granted openid (GET and POST); a token without openid is 403 insufficient_scope; none is 401', async () => {
      const { client_id } = await publicClient();
      const { code: issued, seller } = await code(client_id, { scope: `openid ${SCOPE}` });
      const set = (await exchange(client_id, issued)).json() as { access_token: string };
      for (const method of ['GET', 'POST']) {
        const info = await call(method, '/userinfo', { headers: { authorization: `Bearer ${set.access_token}` } });
        expect(info.status).toBe(200);
        expect(info.json()).toEqual({ sub: seller.sellerId });
        expect(info.headers['cache-control']).toBe('no-store');
      }
      const plain = await platform.mintAccessToken({ tenants: seller.tenantIds, scopes: [SCOPE] });
      const forbidden = await call('GET', '/userinfo', { headers: { authorization: `Bearer ${plain}` } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers['www-authenticate']).toContain('insufficient_scope');
      const none = await call('GET', '/userinfo');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toContain('Bearer');
    });

    it('spec-notes I14: a code without openid carries no ID token; openid alone is a sign-in whose token reads /userinfo', async () => {
      const { client_id } = await publicClient();
      const { code: plainCode } = await code(client_id);
      expect((await exchange(client_id, plainCode)).json()).not.toHaveProperty('id_token');
      const { code: signIn, seller } = await code(client_id, { scope: 'openid' });
      const set = (await exchange(client_id, signIn)).json() as { access_token: string; id_token: string; scope: string };
      expect(set.scope).toBe('openid');
      expect(set.id_token).toEqual(expect.any(String));
      const info = await call('GET', '/userinfo', { headers: { authorization: `Bearer ${set.access_token}` } });
      expect(info.json()).toEqual({ sub: seller.sellerId });
    });

    it('spec-notes I14 / OpenID Connect Discovery §4: /.well-known/openid-configuration is the RFC 8414 document with the OpenID fields', async () => {
      const oidc = (await call('GET', '/.well-known/openid-configuration')).json();
      const oauth = (await call('GET', '/.well-known/oauth-authorization-server')).json();
      expect(oidc).toEqual(oauth);
      expect(oidc).toMatchObject({
        issuer: platform.url,
        userinfo_endpoint: `${platform.url}/userinfo`,
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        response_types_supported: ['code'],
      });
      expect(oidc.scopes_supported).toContain('openid');
      expect(oidc.token_endpoint_auth_methods_supported).toContain('none');
    });
  });
});
