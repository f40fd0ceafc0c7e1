import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, type ReceivedRequest, startReceiver } from '../../test/webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, sellerWithToken, signup } from '../../test/webhooks/webhook-kit.js';
import { epochSeconds } from '../core/clock.js';
import { withOwnPool } from '../storage/database.js';
import { namedStatementsRefused } from '../storage/named-statement.js';
import { createTestPlatform, platformOver, type TestPlatform, testConfig, testDatabaseTargets, testTls } from '../testing.js';
import { deliveryId } from './delivery-id.js';
import { fanOutEvents } from './fan-out.js';
import { signUp } from './subscription-store.js';

/** The receiver's check, written independently of the platform's signer: HMAC-SHA256 over `<ts>.<raw bytes>`. */
function expectedDigest(secret: string, request: ReceivedRequest): string {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${request.headers['x-timestamp']}.`), request.raw]))
    .digest('hex');
}

function signatureEntries(request: ReceivedRequest): string[] {
  return String(request.headers['x-signature-256']).split(',');
}

function verifies(secret: string, request: ReceivedRequest): boolean {
  const expected = Buffer.from(`sha256=${expectedDigest(secret, request)}`);
  return signatureEntries(request).some((entry) => {
    const candidate = Buffer.from(entry);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

describe.each(testDatabaseTargets())('webhook delivery on $dialect', (target) => {
  let platform: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  const receiver = async (options: Parameters<typeof startReceiver>[0] = { tls: true }) => {
    const r = await startReceiver(options);
    receivers.push(r);
    return r;
  };
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => platform.close());

  it('spec "Signature (v1 only)" / "Webhook message" / Authentication §11 / W2-W3: a record change reaches an HTTPS receiver signed over the raw bytes with the signup secret', async () => {
    const hooks = await receiver();
    const seller = await sellerWithToken(platform);
    const res = await signup(platform, seller, 'v1', hooks.url);
    expect(res.statusCode).toBe(200);
    const secret = res.json().subscriptions[0].parameters.secret as string;
    const recordId = platform.app.platform.random.uuid();
    await recordChange(platform, { tenantId: seller.tenantId, recordId });

    await dispatcherOf(platform).drain();
    const [request] = await hooks.waitFor(1);
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-timestamp']).toBe(String(epochSeconds(platform.clock.now())));
    expect(request?.headers['x-webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(signatureEntries(request!)).toEqual([`sha256=${expectedDigest(secret, request!)}`]);
    expect(verifies(secret, request!)).toBe(true);
    // Spec "Webhook message": exactly these fields.
    expect(JSON.parse(request!.raw.toString('utf8'))).toEqual({
      data: { status: 'CREATION', params: { id: recordId }, resource: `/seller/v0/tickets/${recordId}` },
      tenant_id: seller.tenantId,
      topic: 'sac_ticket',
    });
    // The bytes sent are the bytes serialized into the outbox, once.
    const event = await platform.database.db
      .selectFrom('outbox_events')
      .select('body')
      .where('record_id', '=', recordId)
      .executeTakeFirstOrThrow();
    expect(request!.raw.toString('utf8')).toBe(event.body);
  });

  it('spec "Differences between v0 and v1" / Versioning 1: v0 delivers to an http URL with no signature headers', async () => {
    const hooks = await receiver({ tls: false });
    const seller = await sellerWithToken(platform);
    expect((await signup(platform, seller, 'v0', hooks.url)).statusCode).toBe(200);
    await recordChange(platform, { tenantId: seller.tenantId, status: 'DELETION' });
    await dispatcherOf(platform).drain();
    const [request] = await hooks.waitFor(1);
    expect(request?.headers['x-signature-256']).toBeUndefined();
    expect(request?.headers['x-timestamp']).toBeUndefined();
    expect(request?.headers['x-webhook-id']).toBeDefined();
    expect(JSON.parse(request!.raw.toString()).data.status).toBe('DELETION');
  });

  it('spec Versioning 1: a v0 subscription moves to v1 by a v1 signup (same id, now signed) and back by a v0 signup (v1 secrets dropped, unsigned)', async () => {
    const hooks = await receiver();
    const seller = await sellerWithToken(platform);
    const dispatcher = dispatcherOf(platform);
    const v0 = (await signup(platform, seller, 'v0', hooks.url)).json().subscriptions[0];
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    await hooks.waitFor(1);
    expect(hooks.received[0]?.headers['x-signature-256']).toBeUndefined();

    const v1 = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0];
    expect(v1.id).toBe(v0.id);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const signed = (await hooks.waitFor(2))[1]!;
    expect(signatureEntries(signed)).toEqual([`sha256=${expectedDigest(v1.parameters.secret, signed)}`]);

    const back = (await signup(platform, seller, 'v0', hooks.url)).json().subscriptions[0];
    expect(back).toEqual({ id: v0.id, topic: 'sac_ticket', parameters: { url: hooks.url } });
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const unsigned = (await hooks.waitFor(3))[2];
    expect(unsigned?.headers['x-signature-256']).toBeUndefined();
    expect(unsigned?.headers['x-timestamp']).toBeUndefined();
    expect(verifies(v1.parameters.secret, signed)).toBe(true);
  });

  it('W1: only subscriptions of the event tenant and topic receive it', async () => {
    const hooks = await receiver();
    const seller = await sellerWithToken(platform);
    const other = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url, ['order']);
    await signup(platform, other, 'v1', hooks.url, ['sac_ticket']);
    await recordChange(platform, { tenantId: seller.tenantId, topic: 'sac_ticket' });
    await recordChange(platform, { tenantId: seller.tenantId, topic: 'order', resource: '/v1/orders/1' });
    await dispatcherOf(platform).drain();
    expect(hooks.received.map((r) => JSON.parse(r.raw.toString()).topic)).toEqual(['order']);
  });

  it('spec "States and transitions" (webhook secret) / Signature rules 3–4 / Limits (grace period): before, during and after the grace hour of a rotation', async () => {
    const hooks = await receiver();
    const seller = await sellerWithToken(platform);
    const dispatcher = dispatcherOf(platform);
    const oldSecret = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret;

    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const before = hooks.received[0]!;
    expect(signatureEntries(before)).toHaveLength(1);
    expect(verifies(oldSecret, before)).toBe(true);

    const newSecret = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret;
    platform.clock.advance(59 * 60 * 1000);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const during = hooks.received[1]!;
    // Spec "Signature" rule 3: two entries, the new secret first, each verifying with its own secret.
    expect(signatureEntries(during)).toEqual([
      `sha256=${expectedDigest(newSecret, during)}`,
      `sha256=${expectedDigest(oldSecret, during)}`,
    ]);

    platform.clock.advance(60 * 1000 + 1);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const after = hooks.received[2]!;
    // Rule 4: after the grace hour only the new secret signs.
    expect(signatureEntries(after)).toEqual([`sha256=${expectedDigest(newSecret, after)}`]);
    expect(verifies(oldSecret, after)).toBe(false);
  });

  it('spec "States and transitions": a third signup during the grace hour keeps only the newest two secrets', async () => {
    const hooks = await receiver();
    const seller = await sellerWithToken(platform);
    const first = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret;
    const second = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret;
    platform.clock.advance(10 * 60 * 1000);
    const third = (await signup(platform, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret;
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    const request = hooks.received[0]!;
    expect(signatureEntries(request)).toEqual([
      `sha256=${expectedDigest(third, request)}`,
      `sha256=${expectedDigest(second, request)}`,
    ]);
    expect(verifies(first, request)).toBe(false);
    // The second secret's grace hour restarted at the third signup.
    platform.clock.advance(59 * 60 * 1000);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    expect(signatureEntries(hooks.received[1]!)).toHaveLength(2);
  });

  it('W9: in strict mode the address actually connected to is checked at delivery (SSRF guard on)', async () => {
    // The same database served in strict mode.
    const strict = await platformOver(platform.database, {
      config: testConfig({ mode: 'strict' }),
      clock: platform.clock,
      outboundCa: testTls.ca,
    });
    try {
      const hooks = await receiver();
      const seller = await sellerWithToken(platform);
      // As if the name had resolved to a public address at signup and to loopback later (DNS rebinding).
      await signUp(
        platform.database.db,
        { clientId: seller.clientId, tenantId: seller.tenantId, topics: ['sac_ticket'], url: hooks.url, version: 'v1' },
        strict.app.platform,
      );
      await recordChange(platform, { tenantId: seller.tenantId });
      await dispatcherOf(strict, { worker: 'strict-worker' }).drain();
      expect(hooks.received).toHaveLength(0);
      const delivery = await platform.database.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', seller.tenantId)
        .executeTakeFirstOrThrow();
      expect(delivery.state).toBe('pending');
      expect(delivery.last_error).toContain('refused by the outbound address policy');
    } finally {
      await strict.close();
    }
  });

  it('a slow receiver holds at most its per-endpoint share; other endpoints keep being served', async () => {
    const slow = await receiver({ tls: true, answer: () => 'hang' });
    const fast = await receiver();
    const slowSeller = await sellerWithToken(platform);
    const fastSeller = await sellerWithToken(platform);
    await signup(platform, slowSeller, 'v1', slow.url);
    await signup(platform, fastSeller, 'v1', fast.url);
    for (let i = 0; i < 20; i++) {
      await recordChange(platform, { tenantId: slowSeller.tenantId });
      await recordChange(platform, { tenantId: fastSeller.tenantId });
    }
    const dispatcher = dispatcherOf(platform, { perEndpointInFlight: 3, requestTimeoutMs: 20_000, pollIntervalMs: 5 });
    dispatcher.start();
    try {
      await fast.waitFor(20);
      expect(slow.hanging).toBe(3);
      expect(slow.received).toHaveLength(3);
    } finally {
      slow.release();
      await dispatcher.stop();
    }
  });
});

describe.each(testDatabaseTargets())('fan-out on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterAll(() => platform.close());

  /** A store with two apps subscribed to its orders (their receivers never answer: nothing is sent here). */
  async function storeWithTwoApps() {
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', 'https://127.0.0.1:9/hooks', ['order']);
    await signUp(
      platform.database.db,
      { clientId: 'second-app', tenantId: seller.tenantId, topics: ['order'], url: 'https://127.0.0.1:9/other', version: 'v1' },
      platform.app.platform,
    );
    return seller;
  }

  it('spec-notes W6: the fan-out hands back the subscriptions of the deliveries it leased, each once and as stored, so the dispatcher need not read them again', async () => {
    const seller = await storeWithTwoApps();
    const stored = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('tenant_id', '=', seller.tenantId)
      .orderBy('id')
      .execute();
    expect(stored).toHaveLength(2);
    const deps = { clock: platform.clock, random: platform.app.platform.random };
    const lease = (max: number) => ({
      worker: 'w1',
      leaseUntilIso: new Date(platform.clock.now().getTime() + 10_000).toISOString(),
      max,
    });
    const write = (n: number) =>
      recordChange(platform, { tenantId: seller.tenantId, topic: 'order', resource: `/v1/orders/${n}` });
    const byId = (rows: Array<{ id: string }>) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

    // Three events × two subscriptions: six deliveries leased, each subscription's row once.
    for (let i = 0; i < 3; i++) await write(i);
    const all = await fanOutEvents(platform.database, deps, 10, lease(10));
    expect(all.leased).toHaveLength(6);
    expect(byId(all.subscriptions)).toEqual(stored);

    // Room for one delivery: only that delivery's subscription comes back.
    await write(3);
    const one = await fanOutEvents(platform.database, deps, 10, lease(1));
    expect(one.leased).toHaveLength(1);
    expect(one.subscriptions.map((s) => s.id)).toEqual([one.leased[0]?.claim.subscription_id]);

    // Without a lease nothing is sent by this worker, so no subscription comes back.
    await write(4);
    expect(await fanOutEvents(platform.database, deps, 10)).toMatchObject({ events: 1, leased: [], subscriptions: [] });
  });

  it('spec-notes W6: an event fanned out a second time while its deliveries stand (its outbox mark undone) makes no second delivery, and leases and sends none', async () => {
    const seller = await storeWithTwoApps();
    const deps = { clock: platform.clock, random: platform.app.platform.random };
    const lease = { worker: 'w1', leaseUntilIso: new Date(platform.clock.now().getTime() + 10_000).toISOString(), max: 10 };
    const { db } = platform.database;
    const eventId = await recordChange(platform, { tenantId: seller.tenantId, topic: 'order' });
    const deliveries = () =>
      db
        .selectFrom('webhook_deliveries')
        .select(['id', 'subscription_id', 'fence'])
        .where('event_id', '=', eventId)
        .orderBy('id')
        .execute();

    const first = await fanOutEvents(platform.database, deps, 10, lease);
    expect(first.leased).toHaveLength(2);
    const made = await deliveries();
    expect(made).toHaveLength(2);

    await db.updateTable('outbox_events').set({ dispatched_at: null }).where('id', '=', eventId).execute();
    const again = await fanOutEvents(platform.database, deps, 10, { ...lease, worker: 'w2' });
    expect(again).toMatchObject({ events: 1, leased: [], subscriptions: [] });
    // The same two rows, still under the first worker's lease (fence 1): nothing for w2 to send.
    expect(await deliveries()).toEqual(made);
  });

  it.skipIf(target.dialect !== 'postgres')(
    'on PostgreSQL the fan-out is a statement each connection prepares once; a connection that refuses it by name (PgBouncer before 1.21) gets it unnamed, and no event waits',
    async () => {
      const seller = await sellerWithToken(platform);
      await signup(platform, seller, 'v1', 'https://127.0.0.1:9/hooks', ['order']);
      // One connection, so every statement below meets the same server session.
      const single = withOwnPool(platform.database, { poolSize: 1, applicationName: 'fan-out-statement-test' });
      const pool = single.pgPool as NonNullable<typeof single.pgPool>;
      try {
        const fanOut = async () => {
          await recordChange(platform, { tenantId: seller.tenantId, topic: 'order' });
          return (await fanOutEvents(single, { clock: platform.clock }, 100)).events;
        };
        const prepared = async () =>
          (await pool.query<{ name: string }>('select name from pg_prepared_statements')).rows.map((r) => r.name);

        expect(await fanOut()).toBeGreaterThanOrEqual(1);
        expect(await fanOut()).toBe(1);
        expect(await prepared()).toEqual(['feira_fan_out']);
        expect(namedStatementsRefused(pool)).toBe(false);

        // What a transaction-mode PgBouncer before 1.21 does: the next statement lands on a server
        // connection that never saw the name. The client still believes it prepared, so it only binds.
        await pool.query('deallocate feira_fan_out');
        expect(await fanOut()).toBe(1);
        expect(namedStatementsRefused(pool)).toBe(true);
        expect(await fanOut()).toBe(1);
        expect(await prepared()).toEqual([]);
      } finally {
        await single.close();
      }
    },
  );

  it('spec-notes W5 / W6: a fan-out that a database crash undid after its deliveries went out is done again under the same X-Webhook-Id, so the receiver can drop the copy', async () => {
    const hooks = await startReceiver({ tls: true });
    try {
      const seller = await sellerWithToken(platform);
      const res = await signup(platform, seller, 'v1', hooks.url, ['order']);
      const subscriptionId = res.json().subscriptions[0].id as string;
      const eventId = await recordChange(platform, { tenantId: seller.tenantId, topic: 'order' });
      await dispatcherOf(platform).drain();
      const [first] = await hooks.waitFor(1);

      // The crash undoes the fan-out's commit as a whole (PostgreSQL: it does not wait for the WAL
      // flush; SQLite: no commit does): the deliveries are gone and the event is back in the outbox.
      const { db } = platform.database;
      const deliveries = db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId);
      await db.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', deliveries).execute();
      await db.deleteFrom('webhook_deliveries').where('event_id', '=', eventId).execute();
      await db.updateTable('outbox_events').set({ dispatched_at: null }).where('id', '=', eventId).execute();
      await dispatcherOf(platform).drain();
      const [, again] = await hooks.waitFor(2);

      expect(again?.headers['x-webhook-id']).toBe(first?.headers['x-webhook-id']);
      // The id is a function of the event and the subscription, computed alike by SQLite's fan-out
      // (in JavaScript) and PostgreSQL's (in SQL).
      const event = await db.selectFrom('outbox_events').select('created_at').where('id', '=', eventId).executeTakeFirstOrThrow();
      expect(first?.headers['x-webhook-id']).toBe(deliveryId(eventId, subscriptionId, event.created_at));
    } finally {
      await hooks.close();
    }
  });
});
