import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform, type TestPlatform } from '../testing.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import { revokeGrant } from './grant-revocation.js';
import { REFRESH_GRACE_MAX_USES, REFRESH_GRACE_SECONDS } from './refresh-token-grace.js';
import { signHs256 } from './refresh-token-jwt.js';
import { refreshTokenKeys } from './refresh-token-key.js';
import { guardProbe } from './test-support/guard-probe.js';
import { ACCESS_TOKEN_TYP } from './token-signer.js';

const REDIRECT = 'https://integrator.example/callback';

describe.each(testDatabaseTargets())('POST /oauth/revoke and /oauth/introspect on $dialect', (target) => {
  let platform: TestPlatform;
  let probe: Awaited<ReturnType<typeof guardProbe>>;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    probe = await guardProbe(platform.app.identity, 'open:order-order:read');
  });
  afterAll(async () => {
    await probe.app.close();
    await platform.close();
  });

  type Client = { clientId: string; clientSecret: string };

  async function grant(client?: Client) {
    const seller = await platform.createSeller({ tenants: 2 });
    const owner = client ?? (await platform.createClient({ redirectUris: [REDIRECT] }));
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: owner.clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: undefined,
    });
    const res = await post('/oauth/token', owner, { grant_type: 'authorization_code', redirect_uri: REDIRECT, code });
    expect(res.statusCode).toBe(200);
    const tokens = res.json() as { access_token: string; refresh_token: string };
    return { seller, client: owner, ...tokens };
  }

  function post(url: string, client: Client | null, body: Record<string, string>, basic = false) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const form = { ...body };
    if (client && basic) {
      headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    } else if (client) {
      form.client_id = client.clientId;
      form.client_secret = client.clientSecret;
    }
    return platform.app.inject({ method: 'POST', url, headers, payload: new URLSearchParams(form).toString() });
  }

  const apiCall = (accessToken: string, tenant: string) =>
    probe.app.inject({
      method: 'GET',
      url: '/probe',
      headers: { authorization: `Bearer ${accessToken}`, 'x-tenant-id': tenant },
    });

  it('RFC 7009 §2.1: revoking a refresh token revokes its family: the access token and the refresh token are refused', async () => {
    const { seller, client, access_token, refresh_token } = await grant();
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(200);
    const res = await post('/oauth/revoke', client, { token: refresh_token, token_type_hint: 'refresh_token' }, true);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(401);
    const refreshed = await post('/oauth/token', client, { grant_type: 'refresh_token', refresh_token });
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json().error).toBe('invalid_grant');
  });

  it('RFC 7009 §2.1: revoking an access token (hint or not, even a wrong hint) ends the grant it belongs to', async () => {
    const { seller, client, access_token, refresh_token } = await grant();
    const res = await post('/oauth/revoke', client, { token: access_token, token_type_hint: 'refresh_token' });
    expect(res.statusCode).toBe(200);
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(401);
    expect((await post('/oauth/token', client, { grant_type: 'refresh_token', refresh_token })).statusCode).toBe(400);
  });

  it('RFC 7009 §2.2: an unknown, malformed or another client’s token answers 200 and revokes nothing', async () => {
    const { seller, access_token } = await grant();
    const other = await platform.createClient({ redirectUris: [REDIRECT] });
    for (const token of ['not-a-token', 'a.b.c', access_token]) {
      const res = await post('/oauth/revoke', other, { token });
      expect(res.statusCode, token).toBe(200);
    }
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(200);
  });

  it('RFC 7009 §2.1: the client authenticates as at the token endpoint; a wrong secret is 401 invalid_client, no token is 400 invalid_request', async () => {
    const { seller, client, access_token } = await grant();
    const wrong = await post('/oauth/revoke', { clientId: client.clientId, clientSecret: 'nope' }, { token: access_token });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    const anonymous = await post('/oauth/revoke', null, { token: access_token });
    expect(anonymous.statusCode).toBe(401);
    const noToken = await post('/oauth/revoke', client, {});
    expect(noToken.statusCode).toBe(400);
    expect(noToken.json()).toEqual({ error: 'invalid_request', error_description: 'token is required' });
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(200);
  });

  it('RFC 7662 §2.2: an active token introspects with active, scope, client_id, sub, exp, iat and tenants; both kinds', async () => {
    const { seller, client, access_token, refresh_token } = await grant();
    const res = await post('/oauth/introspect', client, { token: access_token }, true);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({
      active: true,
      scope: 'open:order-order:read',
      client_id: client.clientId,
      sub: seller.sellerId,
      token_type: 'Bearer',
      tenants: seller.tenantIds,
    });
    expect(body.exp - body.iat).toBe(7200);
    const refresh = await post('/oauth/introspect', client, { token: refresh_token, token_type_hint: 'refresh_token' });
    expect(refresh.json()).toMatchObject({ active: true, token_type: 'refresh_token', sub: seller.sellerId });
  });

  it('spec-notes I4 amended: introspection never reads an HS256 token as an access token: a refresh token hinted access_token introspects as a refresh token, and an at+jwt forged HS256 with the refresh-token key is { active: false } and revokes nothing', async () => {
    const { seller, client, access_token, refresh_token } = await grant();
    // RFC 7662 §2.1: the hint is only a hint; the token is still what it is.
    const hinted = await post('/oauth/introspect', client, { token: refresh_token, token_type_hint: 'access_token' });
    expect(hinted.json()).toMatchObject({ active: true, token_type: 'refresh_token', sub: seller.sellerId });
    const forged = signHs256(
      refreshTokenKeys([platform.app.platform.config.secretKey]),
      ACCESS_TOKEN_TYP,
      decodeJwt(access_token),
    );
    for (const hint of ['access_token', 'refresh_token', undefined]) {
      const res = await post('/oauth/introspect', client, { token: forged, ...(hint ? { token_type_hint: hint } : {}) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ active: false });
      expect(
        (await post('/oauth/revoke', client, { token: forged, ...(hint ? { token_type_hint: hint } : {}) })).statusCode,
      ).toBe(200);
    }
    // The grant stands: revoking the forgery ended nothing.
    expect((await apiCall(access_token, seller.tenantIds[0] as string)).statusCode).toBe(200);
  });

  it('RFC 7662 §2.2: revoked, expired, superseded, unknown and other clients’ tokens are { active: false } and nothing more', async () => {
    const other = await platform.createClient({ redirectUris: [REDIRECT] });
    const a = await grant();
    expect((await post('/oauth/introspect', other, { token: a.access_token })).json()).toEqual({ active: false });
    expect((await post('/oauth/introspect', a.client, { token: 'garbage' })).json()).toEqual({ active: false });

    // Superseded by rotation (spec-notes I5): once the child is used, the parent is no longer in force.
    const child = (await post('/oauth/token', a.client, { grant_type: 'refresh_token', refresh_token: a.refresh_token })).json();
    await post('/oauth/token', a.client, { grant_type: 'refresh_token', refresh_token: child.refresh_token });
    expect((await post('/oauth/introspect', a.client, { token: a.refresh_token })).json()).toEqual({ active: false });

    const b = await grant();
    await post('/oauth/revoke', b.client, { token: b.refresh_token });
    expect((await post('/oauth/introspect', b.client, { token: b.access_token })).json()).toEqual({ active: false });

    const c = await grant();
    platform.clock.advanceSeconds(7201);
    expect((await post('/oauth/introspect', c.client, { token: c.access_token })).json()).toEqual({ active: false });
    expect((await post('/oauth/introspect', c.client, { token: c.refresh_token })).json()).toMatchObject({ active: true });
  });

  /** Introspects a refresh token, then presents it to the token endpoint: whether each called it usable. */
  async function introspectThenRefresh(client: Client, refreshToken: string) {
    const introspection = (await post('/oauth/introspect', client, { token: refreshToken })).json() as { active: boolean };
    const refresh = await post('/oauth/token', client, { grant_type: 'refresh_token', refresh_token: refreshToken });
    if (refresh.statusCode !== 200) expect(refresh.json().error).toBe('invalid_grant');
    return { active: introspection.active, refreshed: refresh.statusCode === 200 };
  }

  it('RFC 7662 §2.2 / spec-notes I5: a used refresh token reads active within its grace and { active: false } from the moment the token endpoint refuses it (60 s after first use)', async () => {
    const { client, refresh_token } = await grant();
    // First use: its successor's response may be lost, so it stays usable for the grace.
    expect(await introspectThenRefresh(client, refresh_token)).toEqual({ active: true, refreshed: true });
    platform.clock.advanceSeconds(REFRESH_GRACE_SECONDS - 1);
    expect(await introspectThenRefresh(client, refresh_token)).toEqual({ active: true, refreshed: true });
    platform.clock.advanceSeconds(1);
    expect(await introspectThenRefresh(client, refresh_token)).toEqual({ active: false, refreshed: false });
    expect((await post('/oauth/introspect', client, { token: refresh_token })).json()).toEqual({ active: false });
  });

  it('RFC 7662 §2.2 / spec-notes I5: a refresh token presented its 5 times within the grace reads { active: false }, as the token endpoint refuses a sixth', async () => {
    const { client, refresh_token } = await grant();
    const answers = [];
    for (let i = 0; i <= REFRESH_GRACE_MAX_USES; i++) answers.push(await introspectThenRefresh(client, refresh_token));
    expect(answers).toEqual([
      ...Array.from({ length: REFRESH_GRACE_MAX_USES }, () => ({ active: true, refreshed: true })),
      { active: false, refreshed: false },
    ]);
  });

  it('RFC 7009: revokeGrant by client and seller (the seller disconnecting an app) ends every grant of that pair only', async () => {
    const first = await grant();
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: first.client.clientId,
      sellerId: first.seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      tenants: first.seller.tenantIds,
      codeChallenge: undefined,
    });
    const second = (
      await post('/oauth/token', first.client, { grant_type: 'authorization_code', redirect_uri: REDIRECT, code })
    ).json();
    const unrelated = await grant(first.client);
    const ended = await revokeGrant(
      platform.app.identity,
      { clientId: first.client.clientId, sellerId: first.seller.sellerId },
      'disconnected_by_seller',
    );
    expect(ended).toBe(2);
    const tenant = first.seller.tenantIds[0] as string;
    expect((await apiCall(first.access_token, tenant)).statusCode).toBe(401);
    expect((await apiCall(second.access_token, tenant)).statusCode).toBe(401);
    expect((await apiCall(unrelated.access_token, unrelated.seller.tenantIds[0] as string)).statusCode).toBe(200);
  });
});
