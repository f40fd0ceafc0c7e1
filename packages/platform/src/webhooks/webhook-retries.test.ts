import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stalledHandshakePeer } from '../../test/outbound/stalling-peers.js';
import {
  closedPort,
  type LoopbackReceiver,
  type ReceivedRequest,
  type ReceiverAnswer,
  startReceiver,
} from '../../test/webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, renewToken, type Seller, sellerWithToken, signup } from '../../test/webhooks/webhook-kit.js';
import { cryptoRandom } from '../core/random.js';
import { createTestPlatform, pollUntil, TEST_ADMIN_TOKEN, type TestPlatform, testDatabaseTargets, testTls } from '../testing.js';
import { RETRY_DELAYS_MS } from './retry-schedule.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

describe.each(testDatabaseTargets())('webhook retries on $dialect', (target) => {
  let platform: TestPlatform;
  const receivers: LoopbackReceiver[] = [];
  const receiver = async (answer: (request: ReceivedRequest, index: number) => ReceiverAnswer) => {
    const r = await startReceiver({ tls: true, answer });
    receivers.push(r);
    return r;
  };
  // Jitter fraction 0.5 = no jitter, so the schedule is exact; one test below varies it.
  let fraction = 0.5;
  beforeAll(async () => {
    platform = await createTestPlatform(target, {
      outboundCa: testTls.ca,
      random: { ...cryptoRandom, fraction: () => fraction },
    });
  });
  afterEach(async () => {
    fraction = 0.5;
    for (const r of receivers.splice(0)) await r.close();
  });
  afterAll(() => platform.close());

  const admin = (method: 'GET' | 'POST', url: string) =>
    platform.app.inject({ method, url, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const onlyDelivery = async (seller: Seller) =>
    platform.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', seller.tenantId)
      .executeTakeFirstOrThrow();

  it('W4: a 500 is retried after 5 s with the same X-Webhook-Id; every attempt is in the delivery log', async () => {
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 500, body: 'x'.repeat(5000) } : { status: 204 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    const dispatcher = dispatcherOf(platform);
    const sentAt = platform.clock.now().getTime();
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(1);
    const failed = await onlyDelivery(seller);
    expect(failed).toMatchObject({ state: 'pending', attempts: 1, last_status_code: 500 });
    expect(Date.parse(failed.next_attempt_at!)).toBe(sentAt + 5 * SECOND);

    platform.clock.advance(4 * SECOND);
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(1);
    platform.clock.advance(SECOND);
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(2);
    expect(hooks.received[1]?.headers['x-webhook-id']).toBe(hooks.received[0]?.headers['x-webhook-id']);
    // W3: each attempt is signed afresh with the current time.
    expect(Number(hooks.received[1]?.headers['x-timestamp'])).toBe(Number(hooks.received[0]?.headers['x-timestamp']) + 5);

    const log = await admin('GET', `/admin/webhooks/deliveries/${failed.id}`);
    expect(log.statusCode).toBe(200);
    expect(log.json()).toMatchObject({ status: 'succeeded', attempts: 2 });
    const [first, second] = log.json().attempt_log;
    expect(first).toMatchObject({ attempt: 1, outcome: 'failed', status_code: 500, error: 'HTTP 500' });
    expect(first.response_body).toHaveLength(1024);
    expect(first.next_attempt_at).toBe(failed.next_attempt_at);
    expect(typeof first.duration_ms).toBe('number');
    expect(second).toMatchObject({ attempt: 2, outcome: 'succeeded', status_code: 204, next_attempt_at: null });
    // Every column of the log lands where it belongs (the batched insert binds them by position).
    for (const [entry, request, fence] of [
      [first, hooks.received[0], 1],
      [second, hooks.received[1], 2],
    ] as const) {
      expect(entry).toMatchObject({ worker: dispatcher.worker, fence });
      expect(entry.request_headers['x-webhook-id']).toBe(failed.id);
      expect(entry.request_headers['x-signature-256']).toBe(request?.headers['x-signature-256']);
      expect(Date.parse(entry.started_at) / 1000).toBe(Number(request?.headers['x-timestamp']));
    }
  });

  it('W4: a 2xx whose answer runs past the 64 KiB drain limit is a success; the log keeps its first 1 KiB', async () => {
    const hooks = await receiver(() => ({ status: 200, body: 'y'.repeat(200 * 1024) }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    const delivery = await onlyDelivery(seller);
    expect(delivery).toMatchObject({ state: 'succeeded', attempts: 1, last_status_code: 200 });
    const log = await admin('GET', `/admin/webhooks/deliveries/${delivery.id}`);
    expect(log.json().attempt_log[0]).toMatchObject({ outcome: 'succeeded', response_body: 'y'.repeat(1024) });
  });

  it('W4 / W6: an answer holding NUL bytes is logged with U+FFFD in their place, and the other deliveries recorded in the same batch are not held back by it', async () => {
    // PostgreSQL's text cannot hold U+0000: kept as received, it failed the whole result batch, so every
    // delivery in it stayed leased and was sent again, to every receiver, at each lease expiry.
    const nul = await receiver(() => ({ status: 200, body: 'ok\u0000\u0000done' }));
    const plain = await receiver(() => ({ status: 200, body: 'fine' }));
    const [first, second] = [await sellerWithToken(platform), await sellerWithToken(platform)] as [Seller, Seller];
    await signup(platform, first, 'v1', nul.url);
    await signup(platform, second, 'v1', plain.url);
    await recordChange(platform, { tenantId: first.tenantId });
    await recordChange(platform, { tenantId: second.tenantId });
    const dispatcher = dispatcherOf(platform);
    await dispatcher.runOnce();
    expect([nul.received.length, plain.received.length]).toEqual([1, 1]);
    const [a, b] = [await onlyDelivery(first), await onlyDelivery(second)];
    expect(a).toMatchObject({ state: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(b).toMatchObject({ state: 'succeeded', attempts: 1, last_status_code: 200 });
    const log = await admin('GET', `/admin/webhooks/deliveries/${a.id}`);
    expect(log.json().attempt_log[0]).toMatchObject({ outcome: 'succeeded', response_body: 'ok\ufffd\ufffddone' });
    // Nothing is sent again once the leases would have run out.
    platform.clock.advance(HOUR);
    await dispatcher.drain();
    expect([nul.received.length, plain.received.length]).toEqual([1, 1]);
  });

  /**
   * Makes the database refuse attempt rows for which `condition` (SQL over the row, `new`) holds: with
   * SQLSTATE `errcode` on PostgreSQL, where `calls()` counts the refusals (a sequence, which a rollback
   * does not undo); on SQLite always as a constraint error (a trigger's RAISE).
   */
  async function refuseAttempts(condition: string, errcode = '23514') {
    const { db } = platform.database;
    if (target.dialect === 'postgres') {
      await sql`create sequence refuse_attempt_calls`.execute(db);
      await sql`create function refuse_attempt() returns trigger language plpgsql as $$
        begin
          if ${sql.raw(condition)} then
            perform nextval('refuse_attempt_calls');
            raise exception 'refused for the test' using errcode = ${sql.lit(errcode)};
          end if;
          return new;
        end $$`.execute(db);
      await sql`create trigger refuse_attempt before insert on webhook_delivery_attempts for each row execute function refuse_attempt()`.execute(
        db,
      );
    } else {
      await sql`create trigger refuse_attempt before insert on webhook_delivery_attempts when ${sql.raw(condition)}
        begin select raise(abort, 'refused for the test'); end`.execute(db);
    }
    return {
      calls: async () => {
        const { rows } = await sql<{
          n: number;
        }>`select case when is_called then last_value else 0 end as n from refuse_attempt_calls`.execute(db);
        return Number(rows[0]?.n);
      },
      drop: async () => {
        if (target.dialect === 'sqlite') return void (await sql`drop trigger refuse_attempt`.execute(db));
        await sql`drop trigger refuse_attempt on webhook_delivery_attempts`.execute(db);
        await sql`drop function refuse_attempt()`.execute(db);
        await sql`drop sequence refuse_attempt_calls`.execute(db);
      },
    };
  }

  /** A dispatcher whose results are written two at a time, and only then (two deliveries make one batch), and what it logs. */
  function dispatcherLogging() {
    const logged: Array<Record<string, unknown>> = [];
    const log = { error: (obj: object) => logged.push(obj as Record<string, unknown>) };
    return { dispatcher: dispatcherOf(platform, { flushBatch: 2, flushDelayMs: 600_000 }, { log }), logged };
  }

  /** A value of /metrics, as a scraper reads it (undefined while the series has none). */
  const metric = async (series: string) => {
    const text = (await platform.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.split(' ').at(-1)) : undefined;
  };
  const unrecorded = async () => (await metric('feira_webhook_results_unrecorded_total')) ?? 0;
  const stale = async () => (await metric('feira_webhook_deliveries_total{outcome="stale"}')) ?? 0;

  it('W6: a result the database refuses holds back only its own delivery; the rest of its batch is recorded, and the refused one is sent again once its lease runs out', async () => {
    const poisoned = await receiver(() => ({ status: 200 }));
    const plain = await receiver(() => ({ status: 200 }));
    const [first, second] = [await sellerWithToken(platform), await sellerWithToken(platform)] as [Seller, Seller];
    await signup(platform, first, 'v1', poisoned.url);
    await signup(platform, second, 'v1', plain.url);
    const { id: refusedSubscription } = await platform.database.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('tenant_id', '=', first.tenantId)
      .executeTakeFirstOrThrow();
    // Every attempt row of one subscription is refused, whatever it holds.
    const refusal = await refuseAttempts(
      `new.delivery_id in (select id from webhook_deliveries where subscription_id = '${refusedSubscription}')`,
    );
    const { dispatcher, logged } = dispatcherLogging();
    const unrecordedBefore = await unrecorded();
    try {
      await recordChange(platform, { tenantId: first.tenantId });
      await recordChange(platform, { tenantId: second.tenantId });
      await dispatcher.runOnce();
      expect([poisoned.received.length, plain.received.length]).toEqual([1, 1]);
      const [refused, recorded] = [await onlyDelivery(first), await onlyDelivery(second)];
      expect(recorded).toMatchObject({ state: 'succeeded', attempts: 1 });
      expect(refused).toMatchObject({ state: 'pending', attempts: 0, lease_owner: 'test-worker' });
      expect(logged).toEqual([expect.objectContaining({ unrecorded: 1, deliveries: [refused.id] })]);
      expect((await unrecorded()) - unrecordedBefore).toBe(1);
    } finally {
      await refusal.drop();
    }
    // At least once (W6): the unrecorded delivery is sent again after its lease, under the same id, and recorded.
    platform.clock.advance(HOUR);
    await dispatcher.drain();
    expect([poisoned.received.length, plain.received.length]).toEqual([2, 1]);
    expect(poisoned.received[1]?.headers['x-webhook-id']).toBe(poisoned.received[0]?.headers['x-webhook-id']);
    expect(await onlyDelivery(first)).toMatchObject({ state: 'succeeded', attempts: 1 });
  });

  it('W6: an attempt refused for what the receiver answered is recorded without the answer, so its delivery is not sent again', async () => {
    const hooks = await receiver(() => ({ status: 200, body: 'poison pill' }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    const refusal = await refuseAttempts(`new.response_body like '%poison%'`);
    const { dispatcher, logged } = dispatcherLogging();
    const unrecordedBefore = await unrecorded();
    try {
      await recordChange(platform, { tenantId: seller.tenantId });
      await dispatcher.runOnce();
    } finally {
      await refusal.drop();
    }
    const delivery = await onlyDelivery(seller);
    expect(delivery).toMatchObject({ state: 'succeeded', attempts: 1, last_status_code: 200 });
    const log = await admin('GET', `/admin/webhooks/deliveries/${delivery.id}`);
    expect(log.json().attempt_log).toEqual([
      expect.objectContaining({ outcome: 'succeeded', status_code: 200, response_body: null }),
    ]);
    expect(logged).toEqual([]);
    expect((await unrecorded()) - unrecordedBefore).toBe(0);
    platform.clock.advance(HOUR);
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(1);
  });

  it.runIf(target.dialect === 'postgres')(
    'W6: a result whose delivery is gone when it is written (a foreign-key refusal) is dropped as stale: not counted as unrecorded, not logged',
    async () => {
      const hooks = await receiver(() => ({ status: 200 }));
      const seller = await sellerWithToken(platform);
      await signup(platform, seller, 'v1', hooks.url);
      // What a delivery deleted between the recorder's check and its insert looks like to it.
      const refusal = await refuseAttempts('true', '23503');
      const { dispatcher, logged } = dispatcherLogging();
      const [unrecordedBefore, staleBefore] = [await unrecorded(), await stale()];
      try {
        await recordChange(platform, { tenantId: seller.tenantId });
        await dispatcher.runOnce();
        expect(hooks.received).toHaveLength(1);
      } finally {
        await refusal.drop();
      }
      expect(logged).toEqual([]);
      expect((await unrecorded()) - unrecordedBefore).toBe(0);
      expect((await stale()) - staleBefore).toBe(1);
    },
  );

  it.runIf(target.dialect === 'postgres')(
    'W6: a batch the database fails for another reason (a full disk, here) is not split: one transaction, one log line, every delivery sent again later',
    async () => {
      const hooks = await receiver(() => ({ status: 200 }));
      const seller = await sellerWithToken(platform);
      await signup(platform, seller, 'v1', hooks.url);
      const refusal = await refuseAttempts('true', '53100');
      const { dispatcher, logged } = dispatcherLogging();
      const unrecordedBefore = await unrecorded();
      try {
        await recordChange(platform, { tenantId: seller.tenantId });
        await recordChange(platform, { tenantId: seller.tenantId });
        await dispatcher.runOnce();
        expect(hooks.received).toHaveLength(2);
        expect(await refusal.calls()).toBe(1);
        expect(logged).toEqual([expect.objectContaining({ unrecorded: 2, err: expect.objectContaining({ code: '53100' }) })]);
        expect((await unrecorded()) - unrecordedBefore).toBe(2);
      } finally {
        await refusal.drop();
      }
      platform.clock.advance(HOUR);
      await dispatcher.drain();
      expect(hooks.received).toHaveLength(4);
      const states = await platform.database.db
        .selectFrom('webhook_deliveries')
        .select('state')
        .where('tenant_id', '=', seller.tenantId)
        .execute();
      expect(states.map((row) => row.state)).toEqual(['succeeded', 'succeeded']);
    },
  );

  it('W6: with the loop running, results are written in batches without waiting for the dispatcher to go idle', async () => {
    const hooks = await receiver(() => ({ status: 204 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    for (let i = 0; i < 3; i++) await recordChange(platform, { tenantId: seller.tenantId });
    const dispatcher = dispatcherOf(platform, { pollIntervalMs: 5 });
    dispatcher.start();
    try {
      await hooks.waitFor(3);
      // The batch is written by its timer (flushDelayMs), not by stop() or idle().
      await pollUntil(
        'the three results to be written',
        async () => {
          const rows = await platform.database.db
            .selectFrom('webhook_deliveries')
            .select('state')
            .where('tenant_id', '=', seller.tenantId)
            .execute();
          return rows.length === 3 && rows.every((r) => r.state === 'succeeded') ? true : undefined;
        },
        { deadlineMs: 10_000 },
      );
    } finally {
      await dispatcher.stop();
    }
  });

  it('W4: a receiver that does not answer in time is a failed attempt (timeout)', async () => {
    const hooks = await receiver(() => 'hang');
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform, { requestTimeoutMs: 300 }).drain();
    const delivery = await onlyDelivery(seller);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, last_status_code: null });
    expect(delivery.last_error).toMatch(/^timeout/);
  });

  it('W4 (10 s for the whole exchange, connect included): a receiver stuck in its TLS handshake is a failed attempt at the delivery timeout', async () => {
    const peer = await stalledHandshakePeer();
    try {
      const seller = await sellerWithToken(platform);
      await signup(platform, seller, 'v1', `${peer.origin}/hook`);
      await recordChange(platform, { tenantId: seller.tenantId });
      const started = performance.now();
      await dispatcherOf(platform, { requestTimeoutMs: 300 }).drain();
      const drainMs = performance.now() - started;
      expect(peer.connections()).toBe(1);
      const delivery = await onlyDelivery(seller);
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, last_status_code: null });
      expect(delivery.last_error).toMatch(/^timeout/);
      // Ended by the delivery's own timeout, not by the connect timeout of the HTTP client (10 s).
      expect(drainMs).toBeLessThan(3_000);
    } finally {
      await peer.close();
    }
  });

  it('W4: connection refused is a failed attempt, retried on schedule', async () => {
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', `https://127.0.0.1:${await closedPort()}/hook`);
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcherOf(platform).drain();
    const delivery = await onlyDelivery(seller);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1 });
    expect(delivery.last_error).toContain('ECONNREFUSED');
  });

  it('W4: Retry-After is honoured within bounds (seconds and HTTP-date; clamped to 5 s … 10 h)', async () => {
    const answers = ['120', '1', '999999', new Date(platform.clock.now().getTime() + 3 * 60 * SECOND).toUTCString()];
    for (const retryAfter of answers) {
      const hooks = await receiver(() => ({ status: 503, headers: { 'retry-after': retryAfter } }));
      const seller = await sellerWithToken(platform);
      await signup(platform, seller, 'v1', hooks.url);
      await recordChange(platform, { tenantId: seller.tenantId });
      const at = platform.clock.now().getTime();
      await dispatcherOf(platform).drain();
      const wait = Date.parse((await onlyDelivery(seller)).next_attempt_at!) - at;
      const expected = { '120': 120 * SECOND, '1': 5 * SECOND, '999999': 10 * HOUR }[retryAfter] ?? 3 * 60 * SECOND;
      expect(wait, retryAfter).toBe(expected);
    }
  });

  it('W4: retry waits carry ±20 % jitter from the injected randomness', async () => {
    const hooks = await receiver(() => ({ status: 500 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    fraction = 1 - 1e-9;
    const at = platform.clock.now().getTime();
    await dispatcherOf(platform).drain();
    expect(Date.parse((await onlyDelivery(seller)).next_attempt_at!) - at).toBe(6 * SECOND);
  });

  it('W4: after 8 failed attempts on the 5 s … 10 h schedule the delivery is dead; redelivery sends it again with the same id', async () => {
    let healthy = false;
    const hooks = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    await recordChange(platform, { tenantId: seller.tenantId });
    const dispatcher = dispatcherOf(platform);
    await dispatcher.drain();
    for (const delay of RETRY_DELAYS_MS) {
      platform.clock.advance(delay - 1);
      await dispatcher.drain();
      const before = hooks.received.length;
      platform.clock.advance(1);
      await dispatcher.drain();
      expect(hooks.received.length).toBe(before + 1);
    }
    expect(hooks.received).toHaveLength(8);
    const dead = await onlyDelivery(seller);
    expect(dead).toMatchObject({ state: 'dead', attempts: 8, next_attempt_at: null });
    platform.clock.advance(24 * HOUR);
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(8);

    const listed = await admin('GET', `/admin/webhooks/deliveries?status=dead&tenant_id=${seller.tenantId}`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().results.map((d: { id: string }) => d.id)).toEqual([dead.id]);

    healthy = true;
    const redelivered = await admin('POST', `/admin/webhooks/deliveries/${dead.id}/redeliver`);
    expect(redelivered.statusCode).toBe(202);
    // A resend starts a new retry cycle (`attempts`) and keeps counting every attempt (`attempts_total`).
    expect(redelivered.json()).toMatchObject({ status: 'pending', attempts: 0, attempts_total: 8 });
    await dispatcher.drain();
    expect(hooks.received).toHaveLength(9);
    expect(hooks.received[8]?.headers['x-webhook-id']).toBe(dead.id);
    expect(await onlyDelivery(seller)).toMatchObject({ state: 'succeeded' });
    const shown = (await admin('GET', `/admin/webhooks/deliveries?tenant_id=${seller.tenantId}`)).json().results[0];
    const logged = (await admin('GET', `/admin/webhooks/deliveries/${dead.id}`)).json().attempt_log;
    expect(shown).toMatchObject({ attempts: 1, attempts_total: 9 });
    expect(logged).toHaveLength(shown.attempts_total);
    expect((await admin('POST', '/admin/webhooks/deliveries/nope/redeliver')).statusCode).toBe(404);
  });

  it('W4: a subscription failing for 5 days is disabled; a new signup re-enables it', async () => {
    let healthy = false;
    const hooks = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    const dispatcher = dispatcherOf(platform);
    // A new failing event every 12 hours, so the failures run continuously.
    for (let hours = 0; hours < 5 * 24; hours += 12) {
      await recordChange(platform, { tenantId: seller.tenantId });
      await dispatcher.drain();
      platform.clock.advance(12 * HOUR);
    }
    const subscriptionOf = async () =>
      (await admin('GET', `/admin/webhooks/subscriptions?tenant_id=${seller.tenantId}`)).json().results[0];
    expect(await subscriptionOf()).toMatchObject({ state: 'active' });
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    const disabled = await subscriptionOf();
    expect(disabled.state).toBe('disabled');
    expect(disabled.failure_streak).toBeGreaterThan(10);

    // Disabled: new events make no deliveries, pending retries are parked as dead.
    const sent = hooks.received.length;
    healthy = true;
    await recordChange(platform, { tenantId: seller.tenantId });
    platform.clock.advance(11 * HOUR);
    await dispatcher.drain();
    expect(hooks.received.length).toBe(sent);

    expect((await signup(platform, await renewToken(platform, seller), 'v1', hooks.url)).statusCode).toBe(200);
    expect(await subscriptionOf()).toMatchObject({ state: 'active', failure_streak: 0, failing_since: null });
    await recordChange(platform, { tenantId: seller.tenantId });
    await dispatcher.drain();
    expect(hooks.received.length).toBe(sent + 1);
  });

  it('/metrics: deliveries by outcome, latency histogram, outbox backlog and oldest pending event age', async () => {
    const hooks = await receiver((_r, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url);
    const succeededBefore = (await metric('feira_webhook_deliveries_total{outcome="succeeded"}')) ?? 0;
    await recordChange(platform, { tenantId: seller.tenantId });
    await recordChange(platform, { tenantId: seller.tenantId });
    platform.clock.advance(30 * SECOND);
    expect(await metric('feira_webhook_outbox_backlog')).toBe(2);
    expect(await metric('feira_webhook_oldest_pending_event_age_seconds')).toBe(30);
    await dispatcherOf(platform).drain();
    expect(await metric('feira_webhook_outbox_backlog')).toBe(0);
    expect(await metric('feira_webhook_deliveries_total{outcome="succeeded"}')).toBe(succeededBefore + 1);
    expect(await metric('feira_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
    expect(await metric('feira_webhook_delivery_duration_seconds_count{outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
    expect(await metric('feira_webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
  });
});
