import { createHash } from 'node:crypto';
import { TokenSet } from '@feira/contract';
import { Value } from '@sinclair/typebox/value';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform, platformOver, type TestPlatform, testConfig } from '../testing.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import { REFRESH_GRACE_MAX_USES, REFRESH_GRACE_SECONDS } from './refresh-token-grace.js';
import { signHs256 } from './refresh-token-jwt.js';
import { refreshTokenKeys } from './refresh-token-key.js';
import { guardProbe } from './test-support/guard-probe.js';
import { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP } from './token-signer.js';

const REDIRECT = 'https://integrator.example/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

describe.each(testDatabaseTargets())('POST /oauth/token on $dialect', (target) => {
  let platform: TestPlatform;
  let probe: Awaited<ReturnType<typeof guardProbe>>;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    probe = await guardProbe(platform.app.identity);
  });
  afterAll(async () => {
    await probe.app.close();
    await platform.close();
  });

  async function setup(options: { codeChallenge?: string } = {}) {
    const seller = await platform.createSeller({ tenants: 2 });
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: client.clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'open:portfolio:read open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: options.codeChallenge,
    });
    return { seller, client, code };
  }

  function token(body: Record<string, unknown> | string, options: { json?: boolean; headers?: Record<string, string> } = {}) {
    const json = options.json ?? false;
    return platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        ...options.headers,
      },
      payload:
        typeof body === 'string'
          ? body
          : json
            ? JSON.stringify(body)
            : new URLSearchParams(body as Record<string, string>).toString(),
    });
  }

  function exchange(client: { clientId: string; clientSecret: string }, code: string, extra: Record<string, string> = {}) {
    return token({
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: REDIRECT,
      code,
      ...extra,
    });
  }

  function refresh(client: { clientId: string; clientSecret: string }, refreshToken: string, extra: Record<string, string> = {}) {
    return token({
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      refresh_token: refreshToken,
      ...extra,
    });
  }

  /** What an API would answer with this access token: the access-token guard on a platform route. */
  function apiStatus(accessToken: string): Promise<number> {
    return probe.status(accessToken);
  }

  it('spec "Token set" / spec-notes I4 amended: the code exchange answers exactly the six fields, no-store, with an ES256 at+jwt and an HS256 rt+jwt', async () => {
    const { client, code } = await setup();
    const res = await token(
      {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: REDIRECT,
        code,
      },
      { json: true },
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'created_at',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(Value.Check(TokenSet, body)).toBe(true);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'open:portfolio:read open:order-order:read' });
    expect(body.created_at).toBe(Math.floor(platform.clock.now().getTime() / 1000));
    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ alg: 'ES256', typ: ACCESS_TOKEN_TYP });
    expect(decodeProtectedHeader(body.refresh_token)).toEqual({
      alg: 'HS256',
      typ: REFRESH_TOKEN_TYP,
      kid: refreshTokenKeys([platform.app.platform.config.secretKey]).current.kid,
    });
  });

  /** The refresh-token key of this platform's server secret (refresh-token-key.ts), as an attacker who had it would hold it. */
  const derivedKeys = () => refreshTokenKeys([platform.app.platform.config.secretKey]);

  it('spec-notes I4 amended: the JWKS publishes the ES256 keys only, never the HS256 refresh-token key or its kid', async () => {
    const { client, code } = await setup();
    const set = (await exchange(client, code)).json();
    const jwks = (await platform.app.inject({ url: '/.well-known/jwks.json' })).json() as {
      keys: Array<Record<string, unknown>>;
    };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key).not.toHaveProperty('k');
      expect(key).not.toHaveProperty('d');
    }
    const kids = jwks.keys.map((key) => key.kid);
    expect(kids).toContain(decodeProtectedHeader(set.access_token).kid);
    expect(kids).not.toContain(decodeProtectedHeader(set.refresh_token).kid);
    expect(JSON.stringify(jwks)).not.toContain(derivedKeys().current.key.toString('base64url'));
  });

  it('spec-notes I4 amended: an HS256 rt+jwt is refused as a bearer token (401), and so is an at+jwt forged HS256 with the refresh-token key: access tokens are ES256 only', async () => {
    const { client, code } = await setup();
    const set = (await exchange(client, code)).json();
    expect(await apiStatus(set.access_token)).toBe(200);
    expect(await apiStatus(set.refresh_token)).toBe(401);
    // The access token's own claims, header typ at+jwt, signed with the key that signs refresh tokens.
    const forged = signHs256(derivedKeys(), ACCESS_TOKEN_TYP, decodeJwt(set.access_token));
    expect(decodeProtectedHeader(forged)).toMatchObject({ alg: 'HS256', typ: ACCESS_TOKEN_TYP });
    expect(await apiStatus(forged)).toBe(401);
    // The same through a real platform route: the uniform error shape with the RFC 6750 challenge.
    const api = await platform.app.inject({ url: '/v1/orders', headers: { authorization: `Bearer ${forged}` } });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ slug: 'UNAUTHORIZED', request_id: expect.any(String) });
    expect(api.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('spec-notes I4 amended: a refresh token signed with another server secret, altered, or with alg none is invalid_grant', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token as string;
    const claims = decodeJwt(r1);
    const otherSecret = signHs256(refreshTokenKeys(['another-server-secret-of-32-chars!']), REFRESH_TOKEN_TYP, claims);
    const [header, payload, signature] = r1.split('.') as [string, string, string];
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: `${claims.scope} open:ticket:read` })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: REFRESH_TOKEN_TYP })).toString('base64url')}.${payload}.`;
    for (const bad of [
      otherSecret,
      `${header}.${widened}.${signature}`,
      none,
      `${header}.${payload}.${signature.slice(0, -2)}`,
    ]) {
      const res = await refresh(client, bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_grant');
    }
    // The genuine token is untouched by those attempts.
    expect((await refresh(client, r1)).statusCode).toBe(200);
  });

  /** A refresh token as the build before I4 amended signed it: ES256 with the signing key, same claims and row. */
  async function es256Twin(refreshToken: string): Promise<string> {
    const { keyRing } = platform.app.identity;
    return new SignJWT(decodeJwt(refreshToken))
      .setProtectedHeader({ alg: 'ES256', typ: REFRESH_TOKEN_TYP, kid: keyRing.current.kid })
      .sign(keyRing.current.privateKey);
  }

  it('spec-notes I4 amended: an ES256 refresh token issued before the change (as a stored sandbox login holds) still refreshes, into an HS256 one; its reuse still revokes the family', async () => {
    const { client, code } = await setup();
    const legacy = await es256Twin((await exchange(client, code)).json().refresh_token);
    expect(decodeProtectedHeader(legacy)).toMatchObject({ alg: 'ES256', typ: REFRESH_TOKEN_TYP });
    const rotated = await refresh(client, legacy);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const set = rotated.json();
    expect(decodeProtectedHeader(set.refresh_token)).toMatchObject({ alg: 'HS256', typ: REFRESH_TOKEN_TYP });
    expect(await apiStatus(set.access_token)).toBe(200);
    // Its successor's first use supersedes it; presenting it again is reuse (spec-notes I5), as for any refresh token.
    const next = await refresh(client, set.refresh_token);
    expect(next.statusCode).toBe(200);
    const reused = await refresh(client, legacy);
    expect(reused.json().error).toBe('invalid_grant');
    expect(await apiStatus(next.json().access_token)).toBe(401);
  });

  it('spec-notes I4 amended: an ES256 refresh token issued before the change is refused once its 30 days are over', async () => {
    const { client, code } = await setup();
    const legacy = await es256Twin((await exchange(client, code)).json().refresh_token);
    platform.clock.advanceSeconds(30 * 24 * 3600 + 1);
    expect((await refresh(client, legacy)).json().error).toBe('invalid_grant');
  });

  it('spec-notes I4 amended: a refresh token signed under the previous server secret refreshes while that secret is kept for reading (FEIRA_SECRET_KEY_PREVIOUS), into one under the current secret; where it is not kept, invalid_grant', async () => {
    const previous = 'the-previous-server-secret-0123456789';
    // The same deployment restarted with a new secret and the old one kept: here, the test secret with `previous` kept.
    const keeping = await platformOver(platform.database, {
      config: testConfig({ previousSecretKeys: [previous] }),
      clock: platform.clock,
    });
    try {
      const { client, code } = await setup();
      const issued = (await exchange(client, code)).json().refresh_token as string;
      // The token as the previous secret's key signed it: same claims and row, that key's kid.
      const underPrevious = signHs256(refreshTokenKeys([previous]), REFRESH_TOKEN_TYP, decodeJwt(issued));
      expect(decodeProtectedHeader(underPrevious).kid).toBe(refreshTokenKeys([previous]).current.kid);
      expect(decodeProtectedHeader(underPrevious).kid).not.toBe(derivedKeys().current.kid);
      // Not kept: refused, and the refusal changes nothing (the genuine token still refreshes below).
      const dropped = await refresh(client, underPrevious);
      expect(dropped.statusCode).toBe(400);
      expect(dropped.json().error).toBe('invalid_grant');
      const kept = await keeping.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'refresh_token',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          refresh_token: underPrevious,
        },
      });
      expect(kept.statusCode, kept.body).toBe(200);
      const next = kept.json().refresh_token as string;
      expect(decodeProtectedHeader(next)).toMatchObject({ alg: 'HS256', kid: derivedKeys().current.kid });
      // Signed under the current secret: read by a process that keeps no previous secret.
      expect((await refresh(client, next)).statusCode).toBe(200);
    } finally {
      await keeping.close();
    }
  });

  it('spec-notes I4 amended: /userinfo takes access tokens only: the HS256 refresh token of an openid grant and an at+jwt forged HS256 with the refresh-token key are 401 invalid_token', async () => {
    const seller = await platform.createSeller();
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: client.clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'openid open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: undefined,
    });
    const set = (await exchange(client, code)).json();
    const userinfo = (bearer: string) =>
      platform.app.inject({ url: '/userinfo', headers: { authorization: `Bearer ${bearer}` } });
    const granted = await userinfo(set.access_token);
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json()).toEqual({ sub: seller.sellerId });
    const forged = signHs256(derivedKeys(), ACCESS_TOKEN_TYP, decodeJwt(set.access_token));
    for (const bearer of [set.refresh_token, forged]) {
      const refused = await userinfo(bearer);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ slug: 'UNAUTHORIZED' });
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('spec-notes I2: client credentials by HTTP Basic with a form body are accepted too', async () => {
    const { client, code } = await setup();
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString(
      'base64',
    );
    const res = await token(
      { grant_type: 'authorization_code', redirect_uri: REDIRECT, code },
      { headers: { authorization: `Basic ${basic}` } },
    );
    expect(res.statusCode).toBe(200);
  });

  it('spec-notes I2 / I7: Basic credentials whose form-encoded id or secret decodes to a NUL byte are a malformed header: 401 invalid_client, never a server error', async () => {
    // The form body's fields are refused for U+0000 before any handler runs; the Basic header is decoded here.
    const { client, code } = await setup();
    for (const [id, secret] of [
      [`${client.clientId}%00`, encodeURIComponent(client.clientSecret)],
      [encodeURIComponent(client.clientId), `${encodeURIComponent(client.clientSecret)}%00`],
    ]) {
      const res = await token(
        { grant_type: 'authorization_code', redirect_uri: REDIRECT, code },
        { headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` } },
      );
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
      expect(res.json()).toEqual({
        error: 'invalid_client',
        error_description: 'Client authentication failed: malformed Authorization header',
      });
    }
  });

  it('spec-notes I2: both Basic and client_secret at once is invalid_request (RFC 6749 §2.3)', async () => {
    const { client, code } = await setup();
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const res = await exchange(client, code, {});
    expect(res.statusCode).toBe(200);
    const both = await token(
      { grant_type: 'authorization_code', client_secret: client.clientSecret, redirect_uri: REDIRECT, code },
      { headers: { authorization: `Basic ${basic}` } },
    );
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');
  });

  it('spec "States and transitions" / Limits: a code is refused once 10 minutes have passed (clock moved, not slept)', async () => {
    const early = await setup();
    const late = await setup();
    platform.clock.advanceSeconds(599);
    expect((await exchange(early.client, early.code)).statusCode).toBe(200);
    platform.clock.advanceSeconds(1);
    const res = await exchange(late.client, late.code);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('RFC 6749 §4.1.2 / spec-notes I6: a reused code is invalid_grant and revokes every token issued from it', async () => {
    const { client, code } = await setup();
    const first = await exchange(client, code);
    expect(first.statusCode).toBe(200);
    const { access_token, refresh_token } = first.json();
    expect(await apiStatus(access_token)).toBe(200);
    const second = await exchange(client, code);
    expect(second.statusCode).toBe(400);
    expect(second.json().error).toBe('invalid_grant');
    expect(await apiStatus(access_token)).toBe(401);
    const refreshed = await refresh(client, refresh_token);
    expect(refreshed.statusCode).toBe(400);
    expect(refreshed.json().error).toBe('invalid_grant');
  });

  it('spec-notes I6: two concurrent exchanges of one code: one wins, the other gets invalid_grant, the winner is revoked', async () => {
    const { client, code } = await setup();
    const results = await Promise.all([exchange(client, code), exchange(client, code)]);
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 400]);
    const winner = results.find((r) => r.statusCode === 200)!;
    const loser = results.find((r) => r.statusCode === 400)!;
    expect(loser.json().error).toBe('invalid_grant');
    expect(await apiStatus(winner.json().access_token)).toBe(401);
  });

  it('spec Authentication §5: a redirect_uri that differs from the one used at consent is invalid_grant', async () => {
    const { client, code } = await setup();
    const res = await exchange(client, code, { redirect_uri: `${REDIRECT}/` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
    const missing = await token({
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code,
    });
    expect(missing.json().error).toBe('invalid_request');
    // The code was not consumed by the failed attempts.
    expect((await exchange(client, code)).statusCode).toBe(200);
  });

  it('spec-notes I7: a wrong secret is 401 invalid_client with WWW-Authenticate: Basic (compared in constant time)', async () => {
    const { client, code } = await setup();
    const wrongLastChar = client.clientSecret.slice(0, -1) + (client.clientSecret.endsWith('A') ? 'B' : 'A');
    for (const secret of [wrongLastChar, 'short', `${client.clientSecret}x`]) {
      const res = await exchange({ clientId: client.clientId, clientSecret: secret }, code);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
      expect(res.body).not.toContain(secret);
    }
    const unknown = await exchange({ clientId: 'client_nope', clientSecret: client.clientSecret }, code);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
    const noSecret = await token({ grant_type: 'authorization_code', client_id: client.clientId, redirect_uri: REDIRECT, code });
    expect(noSecret.statusCode).toBe(401);
  });

  it('RFC 6749 §4.1.3: a code issued to another client is invalid_grant', async () => {
    const { code } = await setup();
    const other = await platform.createClient({ redirectUris: [REDIRECT] });
    const res = await exchange(other, code);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
  });

  it('RFC 6749 §5.2: an unsupported grant type is unsupported_grant_type', async () => {
    const { client } = await setup();
    for (const grant of ['client_credentials', 'password', 'implicit']) {
      const res = await token({ grant_type: grant, client_id: client.clientId, client_secret: client.clientSecret });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('unsupported_grant_type');
    }
  });

  it('spec-notes I7: malformed bodies, wrong content types, repeated or non-string parameters are invalid_request, never a 500', async () => {
    const { client, code } = await setup();
    const cases = [
      token('{"grant_type":', { json: true }),
      token('', { json: true }),
      token('[1,2]', { json: true }),
      token('"text"', { json: true }),
      token({ grant_type: 'authorization_code', code: { $ne: 1 }, client_id: client.clientId }, { json: true }),
      token(`grant_type=authorization_code&grant_type=refresh_token&code=${code}`),
      token('grant_type=authorization_code', { headers: { 'content-type': 'text/plain' } }),
      token('<xml/>', { headers: { 'content-type': 'application/xml' } }),
      token(''),
      token(`grant_type=authorization_code&code=${'x'.repeat(20_000)}`),
      platform.app.inject({ method: 'POST', url: '/oauth/token' }),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.statusCode).toBe(400);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json().error).toBe('invalid_request');
      expect(typeof res.json().error_description).toBe('string');
    }
  });

  it('spec "Token set" (refresh: the same six fields) / spec-notes I5: every refresh returns a new refresh token with the same scope; the new access token works', async () => {
    const { client, code } = await setup();
    const first = (await exchange(client, code)).json();
    platform.clock.advanceSeconds(3600);
    const res = await refresh(client, first.refresh_token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const second = res.json();
    expect(Object.keys(second).sort()).toEqual([
      'access_token',
      'created_at',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe(first.scope);
    expect(await apiStatus(second.access_token)).toBe(200);
    // JSON is accepted for the refresh grant too (I2).
    const viaJson = await token(
      {
        grant_type: 'refresh_token',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        refresh_token: second.refresh_token,
      },
      { json: true },
    );
    expect(viaJson.statusCode).toBe(200);
  });

  it('spec-notes I5: the lost-response case: the previous refresh token works until its successor is first used', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    const lost = await refresh(client, r1); // the client never saw this response
    expect(lost.statusCode).toBe(200);
    const retry = await refresh(client, r1);
    expect(retry.statusCode).toBe(200);
    const r3 = retry.json().refresh_token;
    const next = await refresh(client, r3); // the successor is used: r1 (and the lost r2) are now superseded
    expect(next.statusCode).toBe(200);
    const reuse = await refresh(client, r1);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error).toBe('invalid_grant');
    // Reuse revoked the whole family, including the newest tokens.
    expect(await apiStatus(next.json().access_token)).toBe(401);
    expect((await refresh(client, next.json().refresh_token)).statusCode).toBe(400);
  });

  it('spec-notes I5: the grace is bounded in time: 60 s after its first use the previous token is refused, the family stays', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    const lost = await refresh(client, r1);
    expect(lost.statusCode).toBe(200);
    platform.clock.advanceSeconds(REFRESH_GRACE_SECONDS - 1);
    const retry = await refresh(client, r1); // within the grace: the lost-response case still works
    expect(retry.statusCode).toBe(200);
    platform.clock.advanceSeconds(2);
    const late = await refresh(client, r1);
    expect(late.statusCode).toBe(400);
    expect(late.json().error).toBe('invalid_grant');
    // Not reuse: the successors still work.
    expect(await apiStatus(retry.json().access_token)).toBe(200);
    expect((await refresh(client, retry.json().refresh_token)).statusCode).toBe(200);
  });

  it('spec-notes I5: the grace is bounded in count: a token mints at most 5 successors', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    for (let i = 0; i < REFRESH_GRACE_MAX_USES; i++) expect((await refresh(client, r1)).statusCode).toBe(200);
    const more = await refresh(client, r1);
    expect(more.statusCode).toBe(400);
    expect(more.json().error).toBe('invalid_grant');
  });

  it('spec-notes I5: presenting a superseded refresh token is reuse and revokes the whole family', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    const r2 = (await refresh(client, r1)).json().refresh_token;
    const third = (await refresh(client, r2)).json();
    const lostR2Sibling = await refresh(client, r1);
    expect(lostR2Sibling.statusCode).toBe(400);
    expect(await apiStatus(third.access_token)).toBe(401);
    expect((await refresh(client, third.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('spec-notes I5: a refresh token expires after the configured lifetime (30 days)', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    platform.clock.advanceSeconds(30 * 24 * 3600 + 1);
    expect((await refresh(client, r1)).json().error).toBe('invalid_grant');
  });

  it('spec-notes I4: an at+jwt is refused as a refresh token and an rt+jwt as an access token', async () => {
    const { client, code } = await setup();
    const set = (await exchange(client, code)).json();
    const res = await refresh(client, set.access_token);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
    expect(await apiStatus(set.refresh_token)).toBe(401);
    expect(await apiStatus(set.access_token)).toBe(200);
  });

  it('RFC 6749 §6: a refresh may narrow the scope, never widen it (invalid_scope)', async () => {
    const { client, code } = await setup();
    const set = (await exchange(client, code)).json();
    const wider = await refresh(client, set.refresh_token, { scope: 'open:portfolio:read open:ticket:read' });
    expect(wider.statusCode).toBe(400);
    expect(wider.json().error).toBe('invalid_scope');
    const narrower = await refresh(client, set.refresh_token, { scope: 'open:order-order:read' });
    expect(narrower.statusCode).toBe(200);
    expect(narrower.json().scope).toBe('open:order-order:read');
  });

  it('a refresh token of another client is invalid_grant', async () => {
    const { code, client } = await setup();
    const set = (await exchange(client, code)).json();
    const other = await platform.createClient({ redirectUris: [REDIRECT] });
    expect((await refresh(other, set.refresh_token)).json().error).toBe('invalid_grant');
  });

  it('spec-notes I8: PKCE S256 with the right verifier succeeds', async () => {
    const { client, code } = await setup({ codeChallenge: CHALLENGE });
    expect((await exchange(client, code, { code_verifier: VERIFIER })).statusCode).toBe(200);
  });

  it('spec-notes I8: PKCE with a wrong verifier is invalid_grant', async () => {
    const { client, code } = await setup({ codeChallenge: CHALLENGE });
    const res = await exchange(client, code, { code_verifier: `${VERIFIER.slice(0, -1)}A` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
  });

  it('spec-notes I8: downgrade: no verifier for a code with a challenge, or a verifier for a code without one, is refused', async () => {
    const withChallenge = await setup({ codeChallenge: CHALLENGE });
    const noVerifier = await exchange(withChallenge.client, withChallenge.code);
    expect(noVerifier.statusCode).toBe(400);
    expect(noVerifier.json().error).toBe('invalid_grant');
    const without = await setup();
    const unexpected = await exchange(without.client, without.code, { code_verifier: VERIFIER });
    expect(unexpected.statusCode).toBe(400);
    expect(unexpected.json().error).toBe('invalid_grant');
  });

  it('spec-notes I8, I6, I5 / D168: refused exchanges of a PKCE code consume nothing and each says why; then the right one succeeds with its refresh token recorded as signed, and a second use revokes it', async () => {
    const { client, code } = await setup({ codeChallenge: CHALLENGE });
    const other = await platform.createClient({ redirectUris: [REDIRECT] });
    const refusals = [
      await exchange(other, code, { code_verifier: VERIFIER }),
      await exchange(client, code, { code_verifier: `${VERIFIER.slice(0, -1)}A` }),
      await exchange(client, code),
      await exchange(client, code, { code_verifier: 'short' }),
      await exchange(client, code, { code_verifier: VERIFIER, redirect_uri: `${REDIRECT}/` }),
    ];
    expect(refusals.map((r) => [r.statusCode, r.json().error, r.json().error_description])).toEqual([
      [400, 'invalid_grant', 'The authorization code is invalid, expired or already used'],
      [400, 'invalid_grant', 'code_verifier does not match the code_challenge'],
      [400, 'invalid_grant', 'code_verifier is required: a code_challenge was used at /login'],
      [400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters'],
      [400, 'invalid_grant', 'redirect_uri does not match the one used to obtain the code'],
    ]);
    const won = await exchange(client, code, { code_verifier: VERIFIER });
    expect(won.statusCode).toBe(200);
    const { access_token, refresh_token } = won.json();
    expect(await apiStatus(access_token)).toBe(200);
    // spec-notes I5: the row the statement recorded before signing is the token's own: its jti, iat and exp.
    const claims = decodeJwt(refresh_token) as { jti: string; iat: number; exp: number };
    const recorded = await platform.database.db
      .selectFrom('refresh_tokens')
      .select(['created_at', 'expires_at'])
      .where('jti', '=', claims.jti)
      .executeTakeFirstOrThrow();
    expect(Math.floor(Date.parse(recorded.created_at) / 1000)).toBe(claims.iat);
    expect(recorded.expires_at).toBe(new Date(claims.exp * 1000).toISOString());
    expect((await refresh(client, refresh_token)).statusCode).toBe(200);
    const again = await exchange(client, code, { code_verifier: VERIFIER });
    expect(again.json().error).toBe('invalid_grant');
    expect(await apiStatus(access_token)).toBe(401);
  });

  it('the access-token lifetime is configurable (expires_in and exp follow it)', async () => {
    // Same database, second app with a 15-minute access-token lifetime.
    const short = await platformOver(platform.database, {
      config: testConfig({ accessTokenTtlSeconds: 900 }),
      clock: platform.clock,
    });
    try {
      const seller = await platform.createSeller();
      const client = await platform.createClient({ redirectUris: [REDIRECT] });
      const code = await issueAuthorizationCode(short.app.identity, {
        clientId: client.clientId,
        sellerId: seller.sellerId,
        redirectUri: REDIRECT,
        scope: 'open:ticket:read',
        tenants: seller.tenantIds,
        codeChallenge: undefined,
      });
      const res = await short.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'authorization_code',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uri: REDIRECT,
          code,
        },
      });
      const body = res.json();
      expect(body.expires_in).toBe(900);
      const claims = decodeJwt(body.access_token);
      expect((claims.exp as number) - (claims.iat as number)).toBe(900);
    } finally {
      await short.close();
    }
  });

  it('spec-notes I5: two concurrent refreshes with one token both succeed (lost response); the first use of either child supersedes the other', async () => {
    const { client, code } = await setup();
    const r1 = (await exchange(client, code)).json().refresh_token;
    const [a, b] = await Promise.all([refresh(client, r1), refresh(client, r1)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const childA = a.json().refresh_token;
    const childB = b.json().refresh_token;
    expect(childA).not.toBe(childB);
    const next = await refresh(client, childA);
    expect(next.statusCode).toBe(200);
    // childB is now a superseded sibling: presenting it is reuse and revokes the family.
    expect((await refresh(client, childB)).json().error).toBe('invalid_grant');
    expect(await apiStatus(next.json().access_token)).toBe(401);
  });
});
