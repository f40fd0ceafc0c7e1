import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestPlatform,
  pollUntil,
  sharedDatabaseUrl,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  testConfig,
  testDatabaseTargets,
  testTls,
} from '../../platform/src/testing.js';
import { type LoopbackReceiver, startReceiver } from '../../platform/test/webhooks/loopback-receiver.js';
import { sellerWithToken, signup, spawnDispatcher } from '../../platform/test/webhooks/webhook-kit.js';
import { childPids, type FeiraProcess, runFeira, servingWorkerPids } from './feira-process.js';

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;

/** `count` orders written through the admin API on `base`, `parallel` at a time; calls `midway` once half are written. */
async function writeOrders(base: string, tenantId: string, count: number, parallel: number, midway?: () => void) {
  const ids: string[] = [];
  let next = 0;
  const one = async () => {
    while (next < count) {
      next += 1;
      if (next === Math.floor(count / 2)) midway?.();
      // A connection per write (`reset`): a kept-alive one the server is closing at that moment would
      // fail the POST on a loaded machine, and a POST cannot be retried blindly.
      const res = await request(`${base}/admin/v1/tenants/${tenantId}/orders`, {
        method: 'POST',
        reset: true,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          customer: { id: 'cust-scale', name: 'Ana Silva' },
          items: [{ sku: 'SKU-1', quantity: 1, price: 10 }],
        }),
      });
      expect(res.statusCode).toBe(201);
      ids.push(((await res.body.json()) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: parallel }, one));
  return ids;
}

const pgTarget = testDatabaseTargets().find((t) => t.dialect === 'postgres');

describe.runIf(pgTarget)('scale-out on PostgreSQL', { timeout: 600_000 }, () => {
  let platform: TestPlatform | undefined;
  let receiver: LoopbackReceiver | undefined;
  let api: FeiraProcess | undefined;
  let dir: string | undefined;
  const dispatchers: ChildProcess[] = [];
  afterEach(async () => {
    for (const d of dispatchers.splice(0)) d.kill('SIGKILL');
    if (api) {
      for (const pid of childPids(api.child.pid as number)) process.kill(pid, 'SIGKILL');
      await api.stop('SIGKILL');
    }
    await receiver?.close();
    await platform?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('two API workers and three dispatchers, bursts of 1,000 orders: every event delivered, none twice without a failure, the log complete; a SIGKILLed dispatcher mid-burst loses nothing', async () => {
    platform = await createTestPlatform(pgTarget as NonNullable<typeof pgTarget>, { outboundCa: testTls.ca });
    const test = platform;
    receiver = await startReceiver({ tls: true, answer: () => ({ status: 200 }) });
    const hooks = receiver;
    const seller = await sellerWithToken(test);
    expect((await signup(test, seller, 'v1', hooks.url, ['order'])).statusCode).toBe(200);
    const { url } = await sharedDatabaseUrl(test.database);

    dir = mkdtempSync(join(tmpdir(), 'feira-scale-'));
    api = runFeira(
      ['start', '--workers', '2', '--no-dispatcher', '--port', '0', '--seed', 'none', '--data-dir', dir, '--log-level', 'silent'],
      {
        FEIRA_DATABASE: url,
        FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        FEIRA_SECRET_KEY: testConfig().secretKey,
      },
    );
    const base = `http://127.0.0.1:${(await api.waitFor(LISTENING, 240_000))[1]}`;
    await servingWorkerPids(base, 2).catch((error) => {
      throw new Error(
        `${(error as Error).message}; children ${childPids(api?.child.pid as number).join(',')}; stdout:\n${api?.stdout()}\nstderr:\n${api?.stderr()}`,
      );
    });
    const env = {
      FEIRA_DATABASE_URL: url,
      FEIRA_BATCH_SIZE: '50',
      FEIRA_REQUEST_TIMEOUT_MS: '10000',
    };
    dispatchers.push(
      ...(await Promise.all(
        ['a', 'b', 'c'].map((n) => spawnDispatcher({ ...env, FEIRA_WORKER_NAME: `dispatcher-${n}` }, 120_000)),
      )),
    );

    const delivered = () => {
      const perId = new Map<string, number>();
      for (const r of hooks.received) {
        const id = String(r.headers['x-webhook-id']);
        perId.set(id, (perId.get(id) ?? 0) + 1);
      }
      return { perId };
    };

    // Progress for a failure's report: outbox, fan-out and deliveries as the database sees them.
    const progress = async () => {
      const count = async (q: Promise<{ n: number | string | bigint }>) => Number((await q).n);
      const db = test.database.db;
      return {
        events: await count(
          db
            .selectFrom('outbox_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow(),
        ),
        undispatched: await count(
          db
            .selectFrom('outbox_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('dispatched_at', 'is', null)
            .executeTakeFirstOrThrow(),
        ),
        deliveries: await count(
          db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow(),
        ),
        received: hooks.received.length,
      };
    };
    let lastReport = 0;
    /** The delivery id of each order's event (via the outbox), once every order has one. */
    const deliveryIdsOf = async (orders: string[]) => {
      const out = new Map<string, string>();
      for (let i = 0; i < orders.length; i += 500) {
        const rows = await test.database.db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
          .select(['e.record_id', 'd.id'])
          .where('e.record_id', 'in', orders.slice(i, i + 500))
          .execute();
        for (const r of rows) out.set(r.record_id, r.id);
      }
      return out;
    };
    const deliveredAll = (orders: string[]) => async () => {
      const ids = await deliveryIdsOf(orders);
      const { perId } = delivered();
      if (ids.size === orders.length && [...ids.values()].every((id) => perId.has(id))) return ids;
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        console.info(`scale-out progress: ${JSON.stringify({ ...(await progress()), withDelivery: ids.size })}`);
      }
      return undefined;
    };

    // Burst 1: nothing fails, so nothing is sent twice.
    const first = await writeOrders(base, seller.tenantId, 1000, 16);
    await pollUntil('burst 1 delivered', deliveredAll(first), { deadlineMs: 240_000, intervalMs: 250 });
    expect([...delivered().perId.values()].every((n) => n === 1)).toBe(true);
    expect(hooks.received).toHaveLength(1000);

    // Burst 2: dispatcher a is SIGKILLed half-way through the writes.
    const killed = dispatchers[0] as ChildProcess;
    const second = await writeOrders(base, seller.tenantId, 1000, 16, () => killed.kill('SIGKILL'));
    await pollUntil('burst 2 delivered', deliveredAll(second), { deadlineMs: 240_000, intervalMs: 250 });
    const { perId } = delivered();
    // Every order's event has exactly one delivery (one X-Webhook-Id), and each reached the receiver.
    const all = new Map([...(await deliveryIdsOf(first)), ...(await deliveryIdsOf(second))]);
    expect(all.size).toBe(2000);
    for (const id of all.values()) expect(perId.has(id)).toBe(true);
    // … and whatever arrived twice was re-sent after the killed dispatcher's lease ran out (a later fencing token).
    const twice = [...perId].filter(([, n]) => n > 1).map(([id]) => id);
    if (twice.length > 0) {
      const fences = await test.database.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'fence'])
        .where('id', 'in', twice)
        .execute();
      for (const f of fences) expect(f.fence).toBeGreaterThan(1);
    }
    // The delivery log: every delivery succeeded, with a succeeded attempt on record.
    await pollUntil(
      'every delivery recorded',
      async () => {
        const row = await test.database.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(row.n) === 2000 || undefined;
      },
      { deadlineMs: 60_000 },
    );
    const logged = await test.database.db
      .selectFrom('webhook_delivery_attempts')
      .select('delivery_id')
      .where('outcome', '=', 'succeeded')
      .distinct()
      .execute();
    expect(logged).toHaveLength(2000);
    console.info(`scale-out test: ${twice.length} deliveries sent twice after the SIGKILL`);
  });
});
