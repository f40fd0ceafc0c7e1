import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../test/webhooks/loopback-receiver.js';
import { sellerWithToken, signup } from '../test/webhooks/webhook-kit.js';
import { outboxEventRow } from './records/outbox.js';
import { createTestPlatform, pollUntil, type TestPlatform, testDatabaseTargets, testTls } from './testing.js';
import { startBackgroundWorkers } from './workers.js';

const WORKER = `pool-test-${process.pid}-${Date.now()}`;
/** This test's dispatcher's connections (other test files run dispatchers on the same server meanwhile). */
const DISPATCHER_CONNECTIONS = `select count(*)::int as n from pg_stat_activity where application_name = 'feira-dispatcher ${WORKER}'`;

describe.each(testDatabaseTargets())('background workers on $dialect', (target) => {
  let platform: TestPlatform | undefined;
  const held: pg.PoolClient[] = [];
  afterEach(async () => {
    for (const client of held.splice(0)) client.release();
    await platform?.close();
    platform = undefined;
  });

  // SQLite has one connection, which the dispatcher shares by design.
  it.runIf(target.dialect === 'postgres')(
    'deploy.md, connection pools: the dispatcher has connections of its own: an event goes out while every connection of the API pool is taken, and stop() closes them',
    async () => {
      platform = await createTestPlatform(target, { outboundCa: testTls.ca });
      const test = platform;
      const receiver = await startReceiver({ tls: true });
      try {
        const seller = await sellerWithToken(test);
        expect((await signup(test, seller, 'v1', receiver.url)).statusCode).toBe(200);
        const workers = await startBackgroundWorkers(test.app.platform, {
          dispatcher: true,
          dispatcherOptions: { worker: WORKER },
        });
        const pool = test.database.pgPool as pg.Pool;
        // Every connection of the API's pool is held (as by a burst of slow requests); the event commits on one of them.
        while (held.length < (pool.options.max ?? 10)) held.push(await pool.connect());
        const row = outboxEventRow(
          {
            tenantId: seller.tenantId,
            topic: 'sac_ticket',
            status: 'CREATION',
            recordId: 't-1',
            resource: '/seller/v0/tickets/t-1',
          },
          test.app.platform,
        );
        await held[0]?.query(
          'insert into outbox_events (id, tenant_id, topic, status, record_id, resource, body, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8)',
          [row.id, row.tenant_id, row.topic, row.status, row.record_id, row.resource, row.body, row.created_at],
        );
        const [delivered] = await receiver.waitFor(1, 10_000);
        expect(JSON.parse(delivered?.raw.toString() ?? '{}')).toMatchObject({ tenant_id: seller.tenantId, topic: 'sac_ticket' });
        const during = await held[1]?.query<{ n: number }>(DISPATCHER_CONNECTIONS);
        expect(during?.rows[0]?.n).toBeGreaterThan(0);
        await workers.stop();
        await pollUntil(
          "the dispatcher's connections closed",
          async () => ((await held[1]?.query<{ n: number }>(DISPATCHER_CONNECTIONS))?.rows[0]?.n === 0 ? true : undefined),
          { deadlineMs: 10_000 },
        );
      } finally {
        await receiver.close();
      }
    },
  );
});
