import type { Topic } from '@feira/contract';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, startReceiver } from '../../test/webhooks/loopback-receiver.js';
import { dispatcherOf, recordChange, sellerWithToken, signup } from '../../test/webhooks/webhook-kit.js';
import { insertOrder } from '../records/kinds/orders.js';
import { openDatabase } from '../storage/database.js';
import { OUTBOX_CHANNEL } from '../storage/outbox-signal.js';
import {
  createTestPlatform,
  pollUntil,
  sharedDatabaseUrl,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  testDatabaseTargets,
  testTls,
} from '../testing.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';

/** Waits for `check` to hold (the shared pollUntil, every 10 ms), failing after `deadlineMs`. */
const until = (what: string, check: () => boolean | Promise<boolean>, deadlineMs = 5_000) =>
  pollUntil(what, async () => (await check()) || undefined, { deadlineMs, intervalMs: 10 });

const ORDER = { customer: { id: 'c1', name: 'Ana' }, items: [{ sku: 'A', quantity: 1, price: 5 }] };

// A poll this long cannot deliver within the tests' 5 s deadlines: only the outbox signal can.
const SLEEPY = { pollIntervalMs: 600_000, maxPollIntervalMs: 600_000 };

describe.each(testDatabaseTargets())('outbox signal on $dialect', (target) => {
  let platform: TestPlatform;
  let hooks: LoopbackReceiver;
  let dispatcher: WebhookDispatcher | null = null;

  beforeAll(async () => {
    platform = await createTestPlatform(target, { outboundCa: testTls.ca });
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = null;
    await hooks?.close();
  });
  afterAll(() => platform.close());

  /** A running dispatcher that has finished its first pass and now sleeps for ten minutes. */
  async function sleepingDispatcher(): Promise<WebhookDispatcher> {
    const running = dispatcherOf(platform, SLEEPY);
    running.start();
    await until('the signal listening', () => platform.database.outboxSignal.listening());
    await until('a first pass', () => running.stats().passes >= 1);
    // PostgreSQL: the LISTEN connection's own "look now" pass, once connected.
    if (target.dialect === 'postgres') await until('the pass after connecting', () => running.stats().passes >= 2);
    return running;
  }

  /** A seller subscribed to `topics` at a fresh receiver (`hooks`), and a dispatcher sleeping between polls. */
  async function subscribedSeller(topics: Topic[] = ['sac_ticket']) {
    hooks = await startReceiver({ tls: true });
    const seller = await sellerWithToken(platform);
    await signup(platform, seller, 'v1', hooks.url, topics);
    const running = await sleepingDispatcher();
    dispatcher = running;
    return { seller, running };
  }

  /** PostgreSQL: another process's view of the same schema (its own pool and signal), as `feira start` on a second host opens. */
  async function otherProcess() {
    const { url, schema } = await sharedDatabaseUrl(platform.database);
    const database = await openDatabase(url);
    return {
      schema: schema as string,
      database,
      deps: { clock: platform.clock, random: platform.app.platform.random, database },
    };
  }

  it('W6: an event committed while the dispatcher sleeps between polls is delivered at once, not at the next poll', async () => {
    const { seller, running } = await subscribedSeller();
    const passes = running.stats().passes;

    const recordId = platform.app.platform.random.uuid();
    await recordChange(platform, { tenantId: seller.tenantId, recordId });
    const [request] = await hooks.waitFor(1, 5_000);
    expect(JSON.parse(request!.raw.toString('utf8')).data.params.id).toBe(recordId);
    expect(running.stats().passes).toBeGreaterThan(passes);

    // Several commits in a row: each is heard, none waits for the poll.
    for (let i = 0; i < 5; i++) await recordChange(platform, { tenantId: seller.tenantId });
    expect(await hooks.waitFor(6, 5_000)).toHaveLength(6);
  });

  it('a pass that fans out fewer events than it asked for saw them all: the dispatcher sleeps after it, without a second, empty pass per event', async () => {
    const { seller, running } = await subscribedSeller();
    const recorded = (n: number) =>
      until(`${n} deliveries recorded`, async () => {
        const row = await platform.database.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', seller.tenantId)
          .where('state', '=', 'succeeded')
          .executeTakeFirstOrThrow();
        return Number(row.n) >= n;
      });

    for (let i = 1; i <= 3; i++) {
      const passes = running.stats().passes;
      await recordChange(platform, { tenantId: seller.tenantId });
      await hooks.waitFor(i, 5_000);
      // The result is written after the pass (in a batch, up to 50 ms later): a pass that followed at once
      // would have run by then.
      await recorded(i);
      expect(running.stats().passes).toBe(passes + 1);
    }
  });

  it('W6: an order written through the admin API is delivered at once too', async () => {
    const { seller } = await subscribedSeller(['order']);
    const created = await platform.app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${seller.tenantId}/orders`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      payload: { customer: { id: 'c1', name: 'Ana' }, items: [{ sku: 'A', quantity: 1, price: 5 }] },
    });
    expect(created.statusCode).toBe(201);
    const [request] = await hooks.waitFor(1, 5_000);
    expect(JSON.parse(request!.raw.toString('utf8'))).toMatchObject({
      data: { status: 'CREATION', params: { id: created.json().id } },
      topic: 'order',
    });
  });

  it('W6: a write rolled back sends nothing (it signals only after a commit), and the next committed event is still delivered at once', async () => {
    const { seller, running } = await subscribedSeller();
    const { appendEvent } = await import('../records/outbox.js');
    await expect(
      platform.database.db.transaction().execute(async (trx) => {
        await appendEvent(
          trx,
          {
            tenantId: seller.tenantId,
            topic: 'sac_ticket',
            status: 'CREATION',
            recordId: 'r1',
            resource: '/seller/v0/tickets/r1',
          },
          platform.app.platform,
        );
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // The next committed event is the only one delivered.
    const recordId = platform.app.platform.random.uuid();
    await recordChange(platform, { tenantId: seller.tenantId, recordId });
    const received = await hooks.waitFor(1, 5_000);
    expect(received.map((r) => JSON.parse(r.raw.toString('utf8')).data.params.id)).toEqual([recordId]);
    await running.stop();
    dispatcher = null;
    expect(hooks.received).toHaveLength(1);
  });

  it.runIf(target.dialect === 'postgres')(
    'W6: an order written by another process (its own pool and signal) wakes this process’s sleeping dispatcher at once',
    async () => {
      const { seller } = await subscribedSeller(['order']);
      const other = await otherProcess();
      try {
        const order = await insertOrder(other.database.db, seller.tenantId, ORDER, other.deps);
        const [request] = await hooks.waitFor(1, 5_000);
        expect(JSON.parse(request!.raw.toString('utf8')).data.params.id).toBe(order.id);
      } finally {
        await other.database.close();
      }
    },
  );

  it.runIf(target.dialect === 'postgres')(
    'a writer whose own dispatcher has room wakes only that one; a writer without a dispatcher notifies the others',
    async () => {
      const { seller } = await subscribedSeller(['order']);
      const other = await otherProcess();
      // What every other process's LISTEN connection hears.
      const heard: string[] = [];
      const listener = new pg.Client({ connectionString: process.env.FEIRA_TEST_DATABASE_URL as string });
      await listener.connect();
      listener.on('notification', (message) => {
        if (message.payload?.startsWith(`${other.schema} `)) heard.push(message.payload);
      });
      await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
      try {
        await insertOrder(platform.database.db, seller.tenantId, ORDER, platform.app.platform);
        await hooks.waitFor(1, 5_000);
        // A process with no dispatcher of its own (an API worker started with --no-dispatcher).
        await insertOrder(other.database.db, seller.tenantId, ORDER, other.deps);
        await hooks.waitFor(2, 5_000);
        await until('the second writer heard', () => heard.length > 0);
        // Notifications arrive in commit order: one from the first writer would have come first.
        expect(heard).toHaveLength(1);
      } finally {
        await other.database.close();
        await listener.end();
      }
    },
  );

  it.runIf(target.dialect === 'postgres')(
    'when the LISTEN connection is cut, it reconnects by itself and the next commit is heard again',
    async () => {
      const { seller } = await subscribedSeller();
      const pid = platform.database.outboxSignal.listenerPid();
      expect(pid).toEqual(expect.any(Number));
      await sql`select pg_terminate_backend(${pid})`.execute(platform.database.db);
      await until('a new LISTEN connection', () => {
        const now = platform.database.outboxSignal.listenerPid();
        return now !== null && now !== pid;
      });
      const recordId = platform.app.platform.random.uuid();
      await recordChange(platform, { tenantId: seller.tenantId, recordId });
      const [request] = await hooks.waitFor(1, 5_000);
      expect(JSON.parse(request!.raw.toString('utf8')).data.params.id).toBe(recordId);
    },
  );
});
