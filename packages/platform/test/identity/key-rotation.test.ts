import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { guardProbe } from '../../src/identity/test-support/guard-probe.js';
import { createPlatform, type Platform } from '../../src/platform.js';
import type { Database } from '../../src/storage/database.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { pollUntil, TEST_ADMIN_TOKEN, testConfig, testKit } from '../../src/testing.js';

// Signing keys rotated while running (docs/deploy.md "Rotating keys", D110, D111): two
// platforms on one database, each with its own key ring, reloading it on its own. The
// rotation is asked of one; the other must publish the key before anything is signed
// with it, and neither may refuse a token at any moment. Time moves on the sandbox
// clock (shared through the database), never by waiting.

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const PUBLISH_DELAY_S = 600;
const ACCESS_TTL_S = 7200;

describe.each(testDatabaseTargets())('signing keys rotated across two processes ($dialect)', (target) => {
  let database: Database;
  let a: Platform;
  let b: Platform;
  const start = async () =>
    createPlatform({
      config: testConfig({ signingKeys: { publishDelaySeconds: PUBLISH_DELAY_S, refreshSeconds: 60 } }),
      database,
      clock: new ManualClock(),
      roles: { api: true, dispatcher: false },
      sandboxClockRefreshMs: 20,
    });

  beforeAll(async () => {
    database = await target.open();
    a = await start();
    b = await start();
    // The test's refresh: the settings' minimum is a second; these processes read every 20 ms.
    for (const p of [a, b]) p.app?.identity.keyRing.startRefresh(20);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.close();
  });

  const appOf = (p: Platform) => p.app as NonNullable<Platform['app']>;
  const jwksOf = async (p: Platform) => (await appOf(p).inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
  const kidsOf = async (p: Platform) => (await jwksOf(p)).keys.map((k: { kid: string }) => k.kid) as string[];
  const advance = async (duration: string) => {
    const res = await appOf(a).inject({ method: 'POST', url: '/admin/v1/clock/advance', headers: admin, payload: { duration } });
    expect(res.statusCode, res.body).toBe(200);
    // Both processes on the moved time before anything else happens.
    const target = a.context.clock.now().getTime();
    await pollUntil('the other process to read the moved clock', () =>
      b.context.clock.now().getTime() === target ? true : undefined,
    );
  };

  it('D110/D111: published before it signs, signing on both once due, the old key kept until its tokens expired; no token refused', async () => {
    const kit = testKit(a, a.context.clock as unknown as ManualClock);
    const seller = await kit.createSeller();
    const mint = (p: Platform) =>
      testKit(p, p.context.clock as unknown as ManualClock).mintAccessToken({
        tenants: seller.tenantIds,
        scopes: ['open:order-order:read'],
        sellerId: seller.sellerId,
      });
    const probes = [await guardProbe(appOf(a).identity), await guardProbe(appOf(b).identity)];
    const accepted: string[] = [];
    // Every token minted so far and not yet expired must be accepted by both processes, and verify with both JWKS.
    const everyTokenAccepted = async () => {
      const nowS = Math.floor(a.context.clock.now().getTime() / 1000);
      const live = accepted.filter((token) => (decodeJwt(token).exp as number) > nowS);
      expect(live.length).toBeGreaterThan(0);
      for (const token of live) {
        for (const probe of probes) expect(await probe.status(token)).toBe(200);
        for (const p of [a, b]) {
          const jwks = createLocalJWKSet(await jwksOf(p));
          await jwtVerify(token, jwks, { currentDate: p.context.clock.now(), typ: 'at+jwt' });
        }
      }
    };
    try {
      const oldToken = await mint(b);
      const oldKid = decodeProtectedHeader(oldToken).kid as string;
      accepted.push(oldToken);

      const rotated = await appOf(a).inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers: admin });
      expect(rotated.statusCode, rotated.body).toBe(201);
      const newKid = rotated.json().kid as string;
      expect(rotated.json()).toMatchObject({ state: 'next', signs_until: null, retires_at: null });
      expect(Date.parse(rotated.json().signs_from) - Date.parse(rotated.json().published_at)).toBe(PUBLISH_DELAY_S * 1000);
      // The process asked publishes it at once; the other within its refresh, before the key signs anywhere.
      expect(await kidsOf(a)).toEqual([oldKid, newKid]);
      await pollUntil('the other process to publish the new key', async () =>
        (await kidsOf(b)).includes(newKid) ? true : undefined,
      );
      // A second rotation while this key waits is refused.
      const again = await appOf(b).inject({ method: 'POST', url: '/admin/v1/signing-keys/rotate', headers: admin });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ slug: 'CONFLICT' });

      // Before the delay, both still sign with the old key.
      await advance('9m');
      for (const p of [a, b]) {
        const token = await mint(p);
        expect(decodeProtectedHeader(token).kid).toBe(oldKid);
        accepted.push(token);
      }
      await everyTokenAccepted();

      // Past it, both sign with the new key, which both already published; the old key stays published.
      await advance('1m');
      for (const p of [a, b]) {
        const token = await mint(p);
        expect(decodeProtectedHeader(token).kid).toBe(newKid);
        accepted.push(token);
        expect(await kidsOf(p)).toEqual([newKid, oldKid]);
      }
      await everyTokenAccepted();
      const listed = (await appOf(b).inject({ method: 'GET', url: '/admin/v1/signing-keys', headers: admin })).json();
      expect(listed.data.map((k: { kid: string; state: string }) => [k.kid, k.state])).toEqual([
        [newKid, 'current'],
        [oldKid, 'previous'],
      ]);
      const retiresAt = Date.parse(listed.data[1].retires_at);
      expect(retiresAt - Date.parse(listed.data[1].signs_until)).toBe((ACCESS_TTL_S + 60) * 1000);

      // The last token the old key signed (9 min in) lives 2 h; until it expired, the old key stays published.
      await advance('1h50m');
      expect(await kidsOf(b)).toContain(oldKid);
      for (const p of [a, b]) accepted.push(await mint(p));
      await everyTokenAccepted();
      await advance('10m');
      // Every token of the old key has now expired; one minute's skew later the key leaves the JWKS on both.
      expect(await kidsOf(a)).toEqual([newKid, oldKid]);
      await advance('1m');
      for (const p of [a, b]) expect(await kidsOf(p)).toEqual([newKid]);
      await everyTokenAccepted();
    } finally {
      for (const probe of probes) await probe.app.close();
    }
  });
});
