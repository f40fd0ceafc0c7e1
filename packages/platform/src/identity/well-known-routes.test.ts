import { SCOPE_NAMES } from '@feira/contract';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { cryptoRandom } from '../core/random.js';
import { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import { testDatabaseTargets } from '../test-databases.js';
import { createTestPlatform, ManualClock, type TestPlatform, testConfig } from '../testing.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import { loadKeyRing } from './signing-keys.js';
import { guardProbe } from './test-support/guard-probe.js';
import { ACCESS_TOKEN_TYP } from './token-signer.js';

describe.each(testDatabaseTargets())('well-known documents and signing keys on $dialect', (target) => {
  let database: Database;
  const clock = new ManualClock();
  const config = testConfig({ authUrl: 'https://auth.feira.example', publicUrl: 'https://api.feira.example' });
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(() => database.close());

  /** A seller and a client on `platform`, a code issued to them, and the token set of its exchange at POST /oauth/token. */
  async function exchangeNewCode(platform: TestPlatform) {
    const seller = await platform.createSeller({ tenants: 2 });
    const client = await platform.createClient({ redirectUris: ['https://integrator.example/callback'] });
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: client.clientId,
      sellerId: seller.sellerId,
      redirectUri: 'https://integrator.example/callback',
      scope: 'open:order-order:read open:ticket:read',
      tenants: seller.tenantIds,
      codeChallenge: undefined,
    });
    const res = await platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: 'https://integrator.example/callback',
        code,
      }).toString(),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { access_token: string; refresh_token: string };
    return { ...body, seller, client };
  }

  it('spec-notes I4 / RFC 8414: /.well-known/oauth-authorization-server describes the endpoints, grants, auth methods and S256', async () => {
    const app = await buildApp({ config, database, clock });
    try {
      const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        issuer: 'https://auth.feira.example',
        authorization_endpoint: 'https://auth.feira.example/login',
        token_endpoint: 'https://auth.feira.example/oauth/token',
        jwks_uri: 'https://auth.feira.example/.well-known/jwks.json',
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        // spec-notes I13: `none` is a public client.
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256'],
        // spec-notes I14: `openid` beside the API scopes.
        scopes_supported: ['openid', ...SCOPE_NAMES],
      });
    } finally {
      await app.close();
    }
  });

  it('RFC 8414 §2 / RFC 7009 §5 / RFC 7662 §4 / RFC 9207 §3: the metadata names the revocation and introspection endpoints with their client authentication, and iss on authorization responses', async () => {
    const app = await buildApp({ config, database, clock });
    try {
      const res = await app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(res.json()).toMatchObject({
        revocation_endpoint: 'https://auth.feira.example/oauth/revoke',
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        introspection_endpoint: 'https://auth.feira.example/oauth/introspect',
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        authorization_response_iss_parameter_supported: true,
      });
    } finally {
      await app.close();
    }
  });

  it('spec-notes I1: with {auth_url} and {base_url} split, tokens carry iss = auth URL and aud = API URL; an API at another URL refuses them', async () => {
    const split = await createTestPlatform(target, { config });
    // Another deployment of the API on the same keys and database, but at another public URL.
    const elsewhere = await buildApp({
      config: testConfig({ authUrl: 'https://auth.feira.example', publicUrl: 'https://other-api.feira.example' }),
      database: split.database,
      clock: split.clock,
    });
    await elsewhere.ready();
    const here = await guardProbe(split.app.identity);
    const there = await guardProbe(elsewhere.identity);
    try {
      const { access_token, refresh_token } = await exchangeNewCode(split);
      expect(decodeJwt(access_token)).toMatchObject({ iss: 'https://auth.feira.example', aud: 'https://api.feira.example' });
      expect(decodeJwt(refresh_token)).toMatchObject({
        iss: 'https://auth.feira.example',
        aud: 'https://auth.feira.example/oauth/token',
      });
      expect(await here.status(access_token)).toBe(200);
      expect(await there.status(access_token)).toBe(401);
    } finally {
      await here.app.close();
      await there.app.close();
      await elsewhere.close();
      await split.close();
    }
  });

  it('spec-notes I4: an issued access token carries exactly iss, sub (the seller), aud, client_id, scope, tenants, iat, exp, jti, and fid', async () => {
    const split = await createTestPlatform(target, { config, clock });
    try {
      const { access_token, refresh_token, seller, client } = await exchangeNewCode(split);
      const claims = decodeJwt(access_token);
      expect(Object.keys(claims).sort()).toEqual([
        'aud',
        'client_id',
        'exp',
        'fid',
        'iat',
        'iss',
        'jti',
        'scope',
        'sub',
        'tenants',
      ]);
      expect(claims).toMatchObject({
        sub: seller.sellerId,
        client_id: client.clientId,
        scope: 'open:order-order:read open:ticket:read',
        tenants: seller.tenantIds,
        iat: Math.floor(clock.now().getTime() / 1000),
        exp: Math.floor(clock.now().getTime() / 1000) + 7200,
      });
      // The refresh token belongs to the same grant ("token family") but has its own id.
      const refreshClaims = decodeJwt(refresh_token);
      expect(refreshClaims.fid).toBe(claims.fid);
      expect(refreshClaims.jti).not.toBe(claims.jti);
    } finally {
      await split.close();
    }
  });

  it('spec-notes I4: the JWKS publishes only public ES256 keys, and the key survives a restart (kept in the database, sealed)', async () => {
    const first = await buildApp({ config, database, clock });
    const jwks = (await first.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    await first.close();
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.d).toBeUndefined();
    }
    const row = await database.db.selectFrom('signing_keys').selectAll().executeTakeFirstOrThrow();
    expect(row.private_jwk_sealed).not.toContain('"d"');
    const restarted = await buildApp({ config, database, clock });
    expect((await restarted.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json()).toEqual(jwks);
    await restarted.close();
  });

  it('spec-notes I4: after a signing-key rotation, tokens signed with the previous key still verify; new ones use the new kid', async () => {
    const before = await buildApp({ config, database, clock });
    await before.ready();
    const { token: oldToken } = await before.identity.signer.sign(ACCESS_TOKEN_TYP, {
      sellerId: 's',
      clientId: 'c',
      scope: 'open:order-order:read',
      tenants: ['t1'],
      familyId: 'family-rotation',
      ttlSeconds: 7200,
    });
    await database.db
      .insertInto('token_families')
      .values({
        id: 'family-rotation',
        client_id: 'c',
        seller_id: 's',
        created_at: clock.now().toISOString(),
        revoked_at: null,
        revoked_reason: null,
      })
      .execute();
    const oldKid = decodeProtectedHeader(oldToken).kid;
    await before.close();

    const keyRing = await loadKeyRing(
      database,
      { clock, random: cryptoRandom, box: new SecretBox(config.secretKey) },
      { rotate: true },
    );
    // The new key signs once its publish delay is over (D110); the old one stays published.
    clock.advance(keyRing.timings.publishDelayMs);
    const after = await buildApp({ config, database, clock, keyRing });
    await after.ready();
    try {
      expect(keyRing.current.kid).not.toBe(oldKid);
      const jwks = (await after.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
      expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, keyRing.current.kid]));
      // A third party verifying with the published JWKS accepts the old token.
      const verified = await jwtVerify(oldToken, createLocalJWKSet(jwks), { currentDate: clock.now(), typ: 'at+jwt' });
      expect(verified.protectedHeader.kid).toBe(oldKid);
      // And so does the platform's own guard.
      const probe = await guardProbe(after.identity);
      expect(await probe.status(oldToken)).toBe(200);
      await probe.app.close();
      const { token: newToken } = await after.identity.signer.sign(ACCESS_TOKEN_TYP, {
        sellerId: 's',
        clientId: 'c',
        scope: '',
        tenants: [],
        familyId: 'family-rotation',
        ttlSeconds: 60,
      });
      expect(decodeProtectedHeader(newToken).kid).toBe(keyRing.current.kid);
    } finally {
      await after.close();
    }
  });
});
