import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { SecretBox } from '../../src/core/secret-box.js';
import { issueAuthorizationCode } from '../../src/identity/authorization-codes.js';
import { refreshTokenKeys } from '../../src/identity/refresh-token-key.js';
import { createPlatform, type Platform } from '../../src/platform.js';
import type { Database } from '../../src/storage/database.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { pollUntil, TEST_ADMIN_TOKEN, testConfig, testKit } from '../../src/testing.js';
import { sealedColumns } from '../../src/workers.js';
import { sellerWithToken, signup } from '../webhooks/webhook-kit.js';

// The server secret changed (docs/deploy.md "Rotating keys", D112): restarted with a new
// FEIRA_SECRET_KEY and the old one in FEIRA_SECRET_KEY_PREVIOUS, the platform opens what the
// old one sealed and verifies the refresh tokens it signed; a dispatcher process re-seals every
// sealed value in the background; then a platform given the new secret alone still opens every
// webhook secret, signing key and gateway credential.

const OLD = 'the-old-server-secret-0123456789';
const NEW = 'the-new-server-secret-9876543210';
const REDIRECT = 'https://integrator.example/callback';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe.each(testDatabaseTargets())('server secret rotation ($dialect)', (target) => {
  let database: Database;
  beforeAll(async () => {
    database = await target.open();
  });
  afterAll(() => database?.close());

  const start = (secretKey: string, previousSecretKeys: string[], roles = { api: true, dispatcher: false }, log?: string[]) =>
    createPlatform({
      config: testConfig({ secretKey, previousSecretKeys, retention: { batchRows: 3 } }),
      database,
      clock: new ManualClock(),
      roles,
      ...(log
        ? {
            workerLog: {
              error: (obj: object, message: string) => log.push(`error ${message} ${JSON.stringify(obj)}`),
              info: (obj: object, message: string) => log.push(`${message} ${JSON.stringify(obj)}`),
            },
          }
        : {}),
    });
  const appOf = (p: Platform) => p.app as NonNullable<Platform['app']>;
  const kitOf = (p: Platform) => testKit(p, p.context.clock as ManualClock);

  /** Every sealed value in the database, opened with `box` (throws if one does not open). */
  async function openEverything(box: SecretBox): Promise<string[]> {
    const opened: string[] = [];
    for (const { table, column } of sealedColumns()) {
      const rows = await database.db
        .selectFrom(table as 'signing_keys')
        .select(`${column} as sealed` as 'private_jwk_sealed')
        .execute();
      for (const row of rows as unknown as Array<{ sealed: string | null }>) {
        if (row.sealed !== null) opened.push(box.open(row.sealed));
      }
    }
    return opened.sort();
  }

  it('D112: sealed values re-sealed in the background under the new secret, refresh tokens of the old one verifying meanwhile; then the old secret is not needed', async () => {
    // Under the old secret: a signing key, two webhook secrets (one rotated: the previous kept for its grace),
    // a gateway credential, and a refresh token.
    const before = await start(OLD, []);
    const kit = kitOf(before);
    const seller = await sellerWithToken(kit);
    for (let i = 0; i < 2; i++) expect((await signup(kit, seller, 'v1', 'https://127.0.0.1:9/feira')).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) {
      const other = await sellerWithToken(kit);
      expect((await signup(kit, other, 'v1', `https://127.0.0.1:9/feira/${i}`)).statusCode).toBe(200);
    }
    await database.db
      .insertInto('shipping_settings')
      .values({
        tenant_id: seller.tenantId,
        method: 'gateway',
        url: '',
        distribution_center_ids: '[]',
        gateway_credential: before.context.box.seal('gateway-credential-of-the-store'),
        created_at: before.context.clock.now().toISOString(),
        updated_at: before.context.clock.now().toISOString(),
      })
      .execute();
    const client = await kit.createClient({ redirectUris: [REDIRECT] });
    const code = await issueAuthorizationCode(appOf(before).identity, {
      clientId: client.clientId,
      sellerId: (await kit.createSeller()).sellerId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      tenants: [],
      codeChallenge: undefined,
    });
    const tokenCall = (p: Platform, body: Record<string, string>) =>
      appOf(p).inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, ...body }).toString(),
      });
    const exchanged = await tokenCall(before, { grant_type: 'authorization_code', redirect_uri: REDIRECT, code });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const oldRefresh = exchanged.json().refresh_token as string;
    expect(decodeProtectedHeader(oldRefresh).kid).toBe(refreshTokenKeys([OLD]).current.kid);
    const plaintexts = await openEverything(new SecretBox(OLD));
    expect(plaintexts.length).toBe(1 + 5 + 1 + 1);
    await before.close();

    // The new secret alone cannot open what the old one sealed: that is why the old one is kept for reading.
    await expect(openEverything(new SecretBox(NEW))).rejects.toThrow();

    // Restarted with the new secret and the old one kept: the API reads everything, nothing re-sealed yet.
    const api = await start(NEW, [OLD]);
    const status = async () => (await appOf(api).inject({ method: 'GET', url: '/admin/v1/secret-key', headers: admin })).json();
    expect(await status()).toMatchObject({
      kid: new SecretBox(NEW).kid,
      previous_kids: [new SecretBox(OLD).kid],
      remaining: plaintexts.length,
    });
    // A refresh token the old secret's key signed is accepted; its successor is signed under the new one.
    const refreshed = await tokenCall(api, { grant_type: 'refresh_token', refresh_token: oldRefresh });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const newRefresh = refreshed.json().refresh_token as string;
    expect(decodeProtectedHeader(newRefresh).kid).toBe(refreshTokenKeys([NEW]).current.kid);

    // A dispatcher process with both secrets re-seals everything in the background, in batches of 3, and says so.
    const log: string[] = [];
    const dispatcher = await start(NEW, [OLD], { api: false, dispatcher: true }, log);
    await pollUntil('the background re-seal to finish', async () => ((await status()).remaining === 0 ? true : undefined));
    await pollUntil('the re-seal to log its end', () => (log.some((l) => l.includes('may be dropped')) ? true : undefined));
    expect(log.join('\n')).not.toContain('error');
    expect(log.join('\n')).not.toContain('gateway-credential-of-the-store');
    await dispatcher.close();
    await api.close();

    // The old secret is no longer needed: everything opens under the new one alone, to what it was.
    expect(await openEverything(new SecretBox(NEW))).toEqual(plaintexts);
    const after = await start(NEW, []);
    try {
      // The signing key opened (the platform started and signs), and its old tokens' key is the same.
      const token = await kitOf(after).mintAccessToken({ tenants: [seller.tenantId], scopes: ['open:webhook:write'] });
      expect(decodeProtectedHeader(token).kid).toBe(decodeProtectedHeader(seller.token).kid);
      // The refresh token issued during the transition is signed under the new secret: it keeps working.
      const again = await tokenCall(after, { grant_type: 'refresh_token', refresh_token: newRefresh });
      expect(again.statusCode, again.body).toBe(200);
      expect((await appOf(after).inject({ method: 'GET', url: '/admin/v1/secret-key', headers: admin })).json()).toMatchObject({
        previous_kids: [],
        remaining: 0,
      });
    } finally {
      await after.close();
    }
  });
  it('D112: a list cursor signed under the old secret pages on while the old one is kept for reading, and is refused once it is dropped', async () => {
    // A database of its own: the test above leaves everything sealed under the new secret.
    const own = await target.open();
    const startOn = (secretKey: string, previousSecretKeys: string[], roles = { api: true, dispatcher: false }) =>
      createPlatform({
        config: testConfig({ secretKey, previousSecretKeys, retention: { batchRows: 3 } }),
        database: own,
        clock: new ManualClock(),
        roles,
      });
    const get = (p: Platform, url: string) => appOf(p).inject({ method: 'GET', url, headers: admin });
    try {
      const before = await startOn(OLD, []);
      for (let i = 0; i < 3; i++) await kitOf(before).createClient({ name: `Cursor ${i}` });
      const first = await get(before, '/admin/v1/clients?_paginate=cursor&_limit=1');
      const nextUrl = new URL(first.json().meta.links.next as string);
      const next = `${nextUrl.pathname}${nextUrl.search}`;
      const secondPage = (await get(before, next)).json().results;
      await before.close();

      // Restarted with the new secret and the old one kept: the client's next page is the page it would have had.
      const during = await startOn(NEW, [OLD], { api: true, dispatcher: true });
      const page = await get(during, next);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.json().results).toEqual(secondPage);
      // The background re-seal ends, so that the old secret may be dropped.
      await pollUntil('the background re-seal to finish', async () =>
        (await get(during, '/admin/v1/secret-key')).json().remaining === 0 ? true : undefined,
      );
      await during.close();

      // The old secret dropped: the cursor is refused as any other it did not sign, and page one starts again.
      const after = await startOn(NEW, []);
      try {
        const refused = await get(after, next);
        expect(refused.statusCode).toBe(422);
        expect(refused.body).toContain('is not a valid token');
        expect((await get(after, '/admin/v1/clients?_paginate=cursor&_limit=1')).statusCode).toBe(200);
      } finally {
        await after.close();
      }
    } finally {
      await own.close();
    }
  }, 180_000);
});
