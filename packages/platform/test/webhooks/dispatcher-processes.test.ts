import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { appendEvent } from '../../src/records/outbox.js';
import { inTransaction } from '../../src/records/record-write.js';
import type { Database } from '../../src/storage/database.js';
import {
  createTestPlatform,
  pollUntil,
  sharedDatabaseUrl,
  type TestPlatform,
  testDatabaseTargets,
  testTls,
} from '../../src/testing.js';
import { DEFAULT_LEASE_MS } from '../../src/webhooks/webhook-dispatcher.js';
import { type LoopbackReceiver, startReceiver } from './loopback-receiver.js';
import { exited, sellerWithToken, signup, spawnDispatcher } from './webhook-kit.js';

/** Where a child process finds the same database. */
async function databaseEnv(database: Database): Promise<Record<string, string>> {
  return { FEIRA_DATABASE_URL: (await sharedDatabaseUrl(database)).url };
}

async function writeEvents(platform: TestPlatform, tenantId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    // As a record write does: committed, then signalled (storage/outbox-signal.ts).
    await inTransaction(platform.database.db, platform.app.platform, async (trx) => {
      for (let i = start; i < Math.min(count, start + 100); i++) {
        const recordId = `ticket-${i}`;
        ids.push(
          await appendEvent(
            trx,
            { tenantId, topic: 'sac_ticket', status: 'CREATION', recordId, resource: `/seller/v0/tickets/${recordId}` },
            platform.app.platform,
          ),
        );
      }
    });
  }
  return ids;
}

describe.each(testDatabaseTargets())('dispatcher processes on $dialect', (target) => {
  const children: ChildProcess[] = [];
  let platform: TestPlatform | undefined;
  let receiver: LoopbackReceiver | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await receiver?.close();
    await platform?.close();
  });

  it('W6 crash safety: SIGKILL mid-burst of 1,000 events, restart: every event delivered at least once, duplicates share X-Webhook-Id', async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
    const test = platform;
    receiver = await startReceiver({ tls: true, answer: () => ({ status: 200, delayMs: 2 }) });
    const hooks = receiver;
    const seller = await sellerWithToken(test);
    const secret = (await signup(test, seller, 'v1', hooks.url)).json().subscriptions[0].parameters.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const eventIds = await writeEvents(test, seller.tenantId, 1000);
    const env = {
      ...(await databaseEnv(test.database)),
      FEIRA_LEASE_MS: '18000',
      FEIRA_REQUEST_TIMEOUT_MS: '6000',
      FEIRA_BATCH_SIZE: '32',
    };

    const first = await spawnDispatcher(env);
    children.push(first);
    await hooks.waitFor(150, 120_000);
    first.kill('SIGKILL');
    await exited(first);
    const atCrash = hooks.received.length;
    expect(atCrash).toBeLessThan(1000);

    children.push(await spawnDispatcher({ ...env, FEIRA_WORKER_NAME: 'restarted' }));
    const distinct = () => new Set(hooks.received.map((r) => r.headers['x-webhook-id'] as string));
    // The dead dispatcher held most of the burst under its leases (room for 1,000): once they run out, the
    // restarted one takes them all over, not one claim's worth (32) per lease-renewal period (~100 s here).
    await pollUntil('1,000 distinct deliveries', () => distinct().size >= 1000 || undefined, {
      deadlineMs: Number(env.FEIRA_LEASE_MS) + 30_000,
    });

    // Every event reached the receiver: map each received body back to its event.
    const bodies = await test.database.db
      .selectFrom('outbox_events')
      .select(['id', 'body'])
      .where('id', 'in', eventIds)
      .execute();
    const byBody = new Map(bodies.map((b) => [b.body, b.id]));
    const delivered = new Set(hooks.received.map((r) => byBody.get(r.raw.toString('utf8'))));
    expect(eventIds.every((id) => delivered.has(id))).toBe(true);
    // Duplicates (sent before the crash, recorded by nobody) carry the same X-Webhook-Id and the same bytes.
    const bodyById = new Map<string, string>();
    for (const r of hooks.received) {
      const id = r.headers['x-webhook-id'] as string;
      const body = r.raw.toString('utf8');
      expect(bodyById.get(id) ?? body).toBe(body);
      bodyById.set(id, body);
    }
    expect(bodyById.size).toBe(1000);
    await pollUntil(
      'every delivery recorded as succeeded',
      async () => {
        const row = await test.database.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(row.n) === 1000 || undefined;
      },
      { deadlineMs: 30_000 },
    );
    console.info(
      `crash test (${target.dialect}): ${atCrash} received before SIGKILL, ${hooks.received.length - 1000} duplicates`,
    );
  }, 240_000);

  it('W6: after a SIGKILL, the deliveries the dead dispatcher held are sent by another within one lease (renewed while it lived), not after a minute', async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
    const test = platform;
    let hang = true;
    receiver = await startReceiver({ tls: true, answer: () => (hang ? 'hang' : { status: 200 }) });
    const hooks = receiver;
    const seller = await sellerWithToken(test);
    await signup(test, seller, 'v1', hooks.url);
    await writeEvents(test, seller.tenantId, 8);
    const env = { ...(await databaseEnv(test.database)), FEIRA_REQUEST_TIMEOUT_MS: '60000', FEIRA_PER_ENDPOINT: '8' };

    const first = await spawnDispatcher({ ...env, FEIRA_WORKER_NAME: 'first' });
    children.push(first);
    await pollUntil('the first dispatcher holding 8 requests open', () => (hooks.hanging === 8 ? true : undefined), {
      deadlineMs: 60_000,
    });
    // The second is up before the crash; while the first lives (and renews) it gets nothing.
    children.push(await spawnDispatcher({ ...env, FEIRA_WORKER_NAME: 'second' }));
    first.kill('SIGKILL');
    const killedAt = performance.now();
    await exited(first);
    hang = false;
    hooks.release();
    const before = hooks.received.length;
    await pollUntil('8 redeliveries', () => (hooks.received.length >= before + 8 ? true : undefined), {
      deadlineMs: DEFAULT_LEASE_MS + 30_000,
    });
    const recoveredMs = performance.now() - killedAt;
    const redelivered = new Set(hooks.received.slice(before).map((r) => r.headers['x-webhook-id']));
    expect(redelivered).toEqual(new Set(hooks.received.slice(0, 8).map((r) => r.headers['x-webhook-id'])));
    // Not before the lease could have run out (last renewal ≤ a quarter lease before the kill), and within one lease
    // plus the second dispatcher's idle back-off and a loaded machine's scheduling.
    expect(recoveredMs).toBeGreaterThan(DEFAULT_LEASE_MS * 0.75 - 500);
    expect(recoveredMs).toBeLessThan(DEFAULT_LEASE_MS + 5_000);
    console.info(`crash recovery (${target.dialect}): ${Math.round(recoveredMs)} ms from SIGKILL to redelivery`);
  }, 180_000);

  it.skipIf(target.dialect !== 'postgres')(
    'W6: three dispatcher processes share the outbox with FOR UPDATE SKIP LOCKED and never double-claim a lease',
    async () => {
      platform = await createTestPlatform(target, { outboundCa: testTls.ca });
      const test = platform;
      receiver = await startReceiver({ tls: true, answer: () => ({ status: 200, delayMs: 1 }) });
      const hooks = receiver;
      const seller = await sellerWithToken(test);
      await signup(test, seller, 'v1', hooks.url);
      const env = await databaseEnv(test.database);
      const started = await Promise.all(
        ['a', 'b', 'c'].map((name) =>
          spawnDispatcher({
            ...env,
            FEIRA_WORKER_NAME: `worker-${name}`,
            FEIRA_BATCH_SIZE: '20',
            FEIRA_REQUEST_TIMEOUT_MS: '10000',
          }),
        ),
      );
      children.push(...started);
      await writeEvents(test, seller.tenantId, 1000);
      await pollUntil(
        '1,000 deliveries recorded as succeeded',
        async () => {
          const row = await test.database.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('state', '=', 'succeeded')
            .executeTakeFirstOrThrow();
          return Number(row.n) === 1000 || undefined;
        },
        { deadlineMs: 120_000 },
      );
      // Every request the receiver saw is accounted for by exactly one lease holder's attempt record,
      // and no two attempts of a delivery share a fencing token: no lease was ever held twice.
      // (Retries after a timeout on a loaded machine are allowed; they run under a new token.)
      await pollUntil(
        'an attempt record for every request',
        async () => {
          const row = await test.database.db
            .selectFrom('webhook_delivery_attempts')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow();
          return Number(row.n) >= 1000 || undefined;
        },
        { deadlineMs: 30_000 },
      );
      const all = await test.database.db.selectFrom('webhook_delivery_attempts').selectAll().orderBy('seq').execute();
      const receivedPerId = new Map<string, number>();
      for (const r of hooks.received) {
        const id = String(r.headers['x-webhook-id']);
        receivedPerId.set(id, (receivedPerId.get(id) ?? 0) + 1);
      }
      expect(new Set(all.map((a) => `${a.delivery_id}/${a.fence}`)).size).toBe(all.length);
      expect(new Set(hooks.received.map((r) => r.headers['x-webhook-id'])).size).toBe(1000);
      const byDelivery = new Map<string, typeof all>();
      for (const a of all) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
      expect(byDelivery.size).toBe(1000);
      for (const [id, attempts] of byDelivery) {
        expect(attempts.filter((a) => a.outcome === 'succeeded' && a.error === null)).toHaveLength(1);
        // Attempts that timed out before reaching the receiver are logged too, so ≥ rather than =.
        expect(attempts.length).toBeGreaterThanOrEqual(receivedPerId.get(id) ?? 0);
      }
      const workers = new Set(all.map((a) => a.worker));
      expect(workers.size).toBeGreaterThanOrEqual(2);
      console.info(
        `scale-out test: retries ${all.length - 1000}, attempts per worker ${JSON.stringify(Object.fromEntries([...workers].map((w) => [w, all.filter((a) => a.worker === w).length])))}`,
      );
    },
    240_000,
  );
});
