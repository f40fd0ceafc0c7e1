import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { issueAuthorizationCode } from '../../src/identity/authorization-codes.js';
import { guardProbe } from '../../src/identity/test-support/guard-probe.js';
import { createPlatform, type Platform } from '../../src/platform.js';
import { RetentionSweeper } from '../../src/storage/retention-sweeper.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, pollUntil, TEST_ADMIN_TOKEN, type TestPlatform, testConfig, testTls } from '../../src/testing.js';
import { claimDueDeliveries } from '../../src/webhooks/claim-queries.js';
import { rotateSecret, signingSecrets } from '../../src/webhooks/webhook-secret.js';
import { retentionRules } from '../../src/workers.js';
import { startReceiver } from '../webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, sellerWithToken, signup } from '../webhooks/webhook-kit.js';

// The sandbox clock (docs/sandbox.md "Moving time forward"): in sandbox mode the
// operator moves the platform's time forward through the admin API, and
// everything that waits on time follows at once. The host's clock (the test's
// ManualClock under it) never moves in these tests: only the admin API does.

const REDIRECT = 'https://integrator.example/callback';
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe.each(testDatabaseTargets())('sandbox clock ($dialect)', (target) => {
  let platform: TestPlatform;
  let probe: Awaited<ReturnType<typeof guardProbe>>;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    probe = await guardProbe(platform.app.identity);
  });
  afterAll(async () => {
    await probe?.app.close();
    await platform?.close();
  });

  const advance = (duration: unknown) =>
    platform.app.inject({ method: 'POST', url: '/admin/v1/clock/advance', headers: admin, payload: { duration } });
  const now = () => platform.app.platform.clock.now();

  async function moved(duration: string) {
    const res = await advance(duration);
    expect(res.statusCode, res.body).toBe(200);
  }

  async function tokenSet() {
    const seller = await platform.createSeller();
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: client.clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: undefined,
    });
    const token = (body: Record<string, string>) =>
      platform.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret, ...body }).toString(),
      });
    return {
      code,
      exchange: () => token({ grant_type: 'authorization_code', redirect_uri: REDIRECT, code }),
      refresh: (refreshToken: string) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    };
  }

  it('GET /admin/v1/clock shows the platform time; an advance moves it forward for every later read, the host clock untouched', async () => {
    const before = await platform.app.inject({ method: 'GET', url: '/admin/v1/clock', headers: admin });
    expect(before.statusCode).toBe(200);
    const start = before.json();
    await moved('1d2h30m');
    const after = (await platform.app.inject({ method: 'GET', url: '/admin/v1/clock', headers: admin })).json();
    expect(after.offset_seconds - start.offset_seconds).toBe(26.5 * 3600);
    expect(Date.parse(after.now) - Date.parse(start.now)).toBe(26.5 * 3600 * 1000);
    expect(after.system_now).toBe(start.system_now);
    expect(now().toISOString()).toBe(after.now);
  });

  it.each([['2x'], ['-1h'], ['0s'], ['367d'], [7200]])(
    'an advance of %j is a 422 naming duration, in the platform error shape, and moves nothing',
    async (duration) => {
      const before = now().getTime();
      const res = await advance(duration);
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body).toMatchObject({ slug: 'UNPROCESSABLE_ENTITY' });
      expect(body.details.map((d: { field: string }) => d.field)).toContain('duration');
      expect(typeof body.request_id).toBe('string');
      expect(now().getTime()).toBe(before);
    },
  );

  it('the clock needs the admin token', async () => {
    const res = await platform.app.inject({ method: 'POST', url: '/admin/v1/clock/advance', payload: { duration: '1h' } });
    expect(res.statusCode).toBe(401);
  });

  it('an access token is refused once the clock passes its lifetime (2 h)', async () => {
    const seller = await platform.createSeller();
    const access = await platform.mintAccessToken({ tenants: seller.tenantIds, scopes: ['open:order-order:read'] });
    await moved('1h59m');
    expect(await probe.status(access)).toBe(200);
    await moved('2m');
    expect(await probe.status(access)).toBe(401);
  });

  it('RFC 6749 §4.1.2: an authorization code is refused once the clock passes its 10 minutes', async () => {
    const set = await tokenSet();
    await moved('11m');
    const res = await set.exchange();
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_grant');
  });

  it('spec-notes I5: the refresh grace ends 60 s after first use on the moved clock', async () => {
    const set = await tokenSet();
    const r1 = (await set.exchange()).json().refresh_token;
    expect((await set.refresh(r1)).statusCode).toBe(200);
    await moved('30s');
    expect((await set.refresh(r1)).statusCode).toBe(200);
    await moved('31s');
    const late = await set.refresh(r1);
    expect(late.statusCode).toBe(400);
    expect(late.json().error).toBe('invalid_grant');
  });

  it('webhook rotation: a rotated secret stops signing when the clock passes its grace hour', async () => {
    const box = platform.app.platform.box;
    const first = { secret_sealed: box.seal('whsec-old'), previous_secret_sealed: null, previous_secret_grace_until: null };
    const rotated = rotateSecret(first, box.seal('whsec-new'), now());
    expect(signingSecrets(rotated, box, now())).toEqual(['whsec-new', 'whsec-old']);
    await moved('59m');
    expect(signingSecrets(rotated, box, now())).toHaveLength(2);
    await moved('1m1s');
    expect(signingSecrets(rotated, box, now())).toEqual(['whsec-new']);
  });

  it('spec-notes W4: a retry scheduled an hour ahead falls due when the clock is moved an hour', async () => {
    const { db } = platform.database;
    const tenant = (await platform.createSeller()).tenantIds[0] as string;
    const subscription = randomUUID();
    const at = now().toISOString();
    await db
      .insertInto('webhook_subscriptions')
      .values({
        id: subscription,
        client_id: subscription,
        tenant_id: tenant,
        topic: 'orders',
        version: 'v0',
        url: 'https://receiver.example/hook',
        secret_sealed: null,
        previous_secret_sealed: null,
        previous_secret_grace_until: null,
        state: 'active',
        failing_since: null,
        disabled_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const id = randomUUID();
    await db
      .insertInto('webhook_deliveries')
      .values({
        id,
        event_id: randomUUID(),
        subscription_id: subscription,
        tenant_id: tenant,
        topic: 'orders',
        state: 'pending',
        attempts: 3,
        next_attempt_at: new Date(now().getTime() + 3_600_000).toISOString(),
        lease_owner: null,
        lease_until: null,
        last_status_code: 500,
        last_error: null,
        event_created_at: at,
        created_at: at,
        updated_at: at,
        delivered_at: null,
      })
      .execute();
    // What the dispatcher's claim finds at the platform's time.
    const due = () =>
      claimDueDeliveries(db, platform.database.dialect, {
        worker: 'w',
        limit: 10,
        nowIso: now().toISOString(),
        leaseUntilIso: new Date(now().getTime() + 10_000).toISOString(),
        skipSubscriptions: [],
        which: 'unleased',
      });
    expect((await due()).map((d) => d.id)).not.toContain(id);
    await moved('1h');
    expect((await due()).map((d) => d.id)).toContain(id);
  });

  it('retention sweeps as that much later: a login session expired a day ago on the moved clock goes', async () => {
    const { db } = platform.database;
    await db
      .insertInto('login_sessions')
      .values({
        id_hash: `sandbox-${randomUUID()}`,
        seller_id: 's',
        created_at: now().toISOString(),
        expires_at: new Date(now().getTime() + 3_600_000).toISOString(),
        ended_at: null,
        ended_reason: null,
      })
      .execute();
    const context = platform.app.platform;
    const sweeper = new RetentionSweeper(
      { database: platform.database, clock: context.clock },
      {
        rules: retentionRules(context, platform.app.shipping.quoteLog.store),
        holder: 'h',
        batchRows: 100,
        intervalMs: 3_600_000,
      },
    );
    expect((await sweeper.sweepOnce())?.login_sessions).toBe(0);
    await moved('1d1h1m');
    expect((await sweeper.sweepOnce())?.login_sessions).toBe(1);
    await sweeper.stop();
  });

  it('every process on the database shares the moved time: another platform reads it within its refresh', async () => {
    const other: Platform = await createPlatform({
      config: testConfig(),
      database: platform.database,
      clock: new ManualClock(),
      roles: { api: true, dispatcher: false },
      sandboxClockRefreshMs: 20,
    });
    try {
      const offset = () => (other.context.sandboxClock?.offsetMs ?? 0) - (platform.app.platform.sandboxClock?.offsetMs ?? 0);
      expect(offset()).toBe(0);
      await moved('3h');
      await pollUntil('the other process to read the moved clock', () => (offset() === 0 ? true : undefined), {
        deadlineMs: 10_000,
      });
      expect(other.context.clock.now().toISOString()).toBe(now().toISOString());
    } finally {
      await other.close();
    }
  });
});

describe.each(testDatabaseTargets())('sandbox clock outside sandbox mode ($dialect)', (target) => {
  it('strict mode: reading or moving the clock is a 403 in the platform error shape that says why, and time is the host clock', async () => {
    const platform = await createTestPlatform(target, { config: testConfig({ mode: 'strict' }) });
    try {
      expect(platform.app.platform.sandboxClock).toBeUndefined();
      for (const request of [
        { method: 'GET' as const, url: '/admin/v1/clock' },
        { method: 'POST' as const, url: '/admin/v1/clock/advance', payload: { duration: '2h' } },
      ]) {
        const res = await platform.app.inject({ ...request, headers: admin });
        expect(res.statusCode).toBe(403);
        const body = res.json();
        expect(body).toMatchObject({ slug: 'FORBIDDEN', details: [] });
        expect(body.message).toMatch(/only in sandbox mode/);
        expect(typeof body.request_id).toBe('string');
      }
      expect(platform.app.platform.clock.now().toISOString()).toBe(platform.clock.now().toISOString());
    } finally {
      await platform.close();
    }
  });
});

describe.each(testDatabaseTargets())('sandbox clock and webhook retries ($dialect)', (target) => {
  it('W4: a subscription failing for 5 days of the moved clock is disabled, with no wait on the host clock', async () => {
    const platform = await createTestPlatform(target, { outboundCa: testTls.ca });
    const hooks = await startReceiver({ tls: true, answer: () => ({ status: 500 }) });
    try {
      const seller = await sellerWithToken(platform);
      expect((await signup(platform, seller, 'v1', hooks.url)).statusCode).toBe(200);
      const dispatcher = dispatcherOf(platform);
      const subscription = async () =>
        (
          await platform.app.inject({
            method: 'GET',
            url: `/admin/webhooks/subscriptions?tenant_id=${seller.tenantId}`,
            headers: admin,
          })
        ).json().results[0];
      // A new failing event every 12 hours of the moved clock, so the failures run continuously.
      for (let step = 0; step < 10; step++) {
        await recordChange(platform, { tenantId: seller.tenantId });
        await dispatcher.drain();
        const res = await platform.app.inject({
          method: 'POST',
          url: '/admin/v1/clock/advance',
          headers: admin,
          payload: { duration: '12h' },
        });
        expect(res.statusCode).toBe(200);
      }
      expect(await subscription()).toMatchObject({ state: 'active' });
      await recordChange(platform, { tenantId: seller.tenantId });
      await dispatcher.drain();
      expect(await subscription()).toMatchObject({ state: 'disabled' });
      // The host clock never moved.
      expect(platform.clock.now().toISOString()).toBe('2026-01-15T12:00:00.000Z');
    } finally {
      await hooks.close();
      await platform.close();
    }
  }, 120_000);
});
